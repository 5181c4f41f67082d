import Foundation
import GroupVaultTestKit
import Keyring
import XCTest

/// A damaged items file is refused as `errSecDecode`: never parsed into items, and never
/// overwritten by a later write (so what is left can still be recovered from it).
final class ItemStoreCorruptionTests: XCTestCase {
    private var home: ItemTestHome!
    private var rng = SeededGenerator()

    override func setUpWithError() throws {
        home = try ItemTestHome()
        rng = SeededGenerator()
        try keyring.add(KeychainItem(service: "api", account: "a", secret: Data("first".utf8)))
        try keyring.add(KeychainItem(service: "api", account: "b", secret: Data("second".utf8), label: "L"))
    }

    override func tearDown() {
        home.remove()
    }

    private var keyring: Keyring { home.keyring() }
    private var file: URL { home.itemsFile(ItemTestHome.shared) }

    private func replaceFile(with bytes: [UInt8]) throws {
        try Data(bytes).write(to: file)
    }

    private func fileBytes() throws -> [UInt8] {
        Array(try Data(contentsOf: file))
    }

    /// Reading must fail with errSecDecode: no items, wrong or right, come back.
    private func assertReadIsDecode(_ context: @autoclosure () -> String, file: StaticString = #filePath, line: UInt = #line) {
        do {
            let items = try keyring.items(matching: ItemQuery(accessGroup: ItemTestHome.shared))
            XCTFail("\(context()): read \(items.count) items from a damaged file; \(rng.describe)", file: file, line: line)
        } catch {
            // items(matching:) has typed throws: every error here is a KeyringError.
            XCTAssertEqual(error.status, .decode, "\(context()): \(error); \(rng.describe)", file: file, line: line)
        }
    }

    func testRandomBytesAreDecode() throws {
        for round in 0..<50 {
            let count = Int.random(in: 0...600, using: &rng)
            try replaceFile(with: rng.bytes(count: count))
            assertReadIsDecode("round \(round), \(count) random bytes")
        }
    }

    func testRandomBytesAfterAValidHeaderAreDecode() throws {
        let header = Array(try fileBytes().prefix(5))
        for round in 0..<50 {
            try replaceFile(with: header + rng.bytes(count: Int.random(in: 0...600, using: &rng)))
            assertReadIsDecode("round \(round), valid magic and version then random bytes")
        }
    }

    func testEveryTruncationIsDecode() throws {
        let original = try fileBytes()
        for length in 0..<original.count {
            try replaceFile(with: Array(original.prefix(length)))
            assertReadIsDecode("truncated to \(length) of \(original.count) bytes")
        }
    }

    func testBitFlipsAtSeededPositionsAreDecode() throws {
        let original = try fileBytes()
        for round in 0..<200 {
            var damaged = original
            let position = Int.random(in: 0..<original.count, using: &rng)
            damaged[position] ^= 1 << UInt8.random(in: 0...7, using: &rng)
            try replaceFile(with: damaged)
            assertReadIsDecode("round \(round), bit flipped at byte \(position) of \(original.count)")
        }
    }

    func testAFileCopiedFromAnotherGroupIsDecode() throws {
        try keyring.add(KeychainItem(service: "api", account: "elsewhere", accessGroup: ItemTestHome.appGroup, secret: Data("x".utf8)))
        try replaceFile(with: Array(try Data(contentsOf: home.itemsFile(ItemTestHome.appGroup))))
        assertReadIsDecode("items file of \(ItemTestHome.appGroup) copied over \(ItemTestHome.shared)")
    }

    func testASearchOfEveryGroupFailsWhenOneGroupIsDamaged() throws {
        try replaceFile(with: Array(try fileBytes().dropLast()))
        XCTAssertThrowsError(try keyring.items(matching: ItemQuery(service: "api"))) { error in
            XCTAssertEqual((error as? KeyringError)?.status, .decode)
        }
    }

    func testTheDecodeReasonNamesTheFileAndWhatToDo() throws {
        try replaceFile(with: Array(try fileBytes().dropLast()))
        XCTAssertThrowsError(try keyring.items(matching: ItemQuery(accessGroup: ItemTestHome.shared))) { error in
            let reason = (error as? KeyringError)?.reason ?? ""
            XCTAssertTrue(reason.contains("items.sealed"), reason)
            XCTAssertTrue(reason.contains("backup"), reason)
        }
    }

    func testAFailedAddLeavesTheDamagedFileUnchanged() throws {
        var damaged = try fileBytes()
        damaged[damaged.count / 2] ^= 0x40
        try replaceFile(with: damaged)
        XCTAssertThrowsError(try keyring.add(KeychainItem(service: "api", account: "c", secret: Data("third".utf8)))) { error in
            XCTAssertEqual((error as? KeyringError)?.status, .decode)
        }
        XCTAssertEqual(try fileBytes(), damaged)
    }

    func testAFailedUpdateLeavesTheDamagedFileUnchanged() throws {
        let damaged = Array(try fileBytes().dropLast(3))
        try replaceFile(with: damaged)
        var changes = ItemChanges()
        changes.label = "new"
        XCTAssertThrowsError(try keyring.update(matching: ItemQuery(accessGroup: ItemTestHome.shared), with: changes)) { error in
            XCTAssertEqual((error as? KeyringError)?.status, .decode)
        }
        XCTAssertEqual(try fileBytes(), damaged)
    }

    func testAFailedDeleteLeavesTheDamagedFileUnchanged() throws {
        let damaged = rng.bytes(count: 300)
        try replaceFile(with: damaged)
        XCTAssertThrowsError(try keyring.delete(matching: ItemQuery(accessGroup: ItemTestHome.shared))) { error in
            XCTAssertEqual((error as? KeyringError)?.status, .decode, rng.describe)
        }
        XCTAssertEqual(try fileBytes(), damaged, rng.describe)
    }

    func testADamagedGroupBlocksAnUpdateOfOtherGroupsInTheSameCall() throws {
        try keyring.add(KeychainItem(service: "api", account: "a", accessGroup: ItemTestHome.appGroup, secret: Data("x".utf8)))
        try replaceFile(with: Array(try fileBytes().dropLast()))
        var changes = ItemChanges()
        changes.label = "new"
        XCTAssertThrowsError(try keyring.update(matching: ItemQuery(service: "api"), with: changes)) { error in
            XCTAssertEqual((error as? KeyringError)?.status, .decode)
        }
        XCTAssertNil(try keyring.item(matching: ItemQuery(service: "api", accessGroup: ItemTestHome.appGroup)).label)
    }
}
