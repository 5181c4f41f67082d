import Foundation
import GroupVaultTestKit
import Keyring
import SealedStorage
import XCTest

/// A full disk (ENOSPC injected at a storage step) fails the write with errSecIO and a reason
/// that says so, and leaves what was stored before, and no temporary file, behind.
final class DiskFullTests: XCTestCase {
    private var home: ItemTestHome!

    override func setUpWithError() throws {
        home = try ItemTestHome()
        // Written before any fault is armed, so the master key and the group directory exist.
        try keyring.add(KeychainItem(service: "api", account: "a", secret: Data("first".utf8)))
        try keyring.add(KeychainItem(service: "api", account: "b", secret: Data("second".utf8)))
    }

    override func tearDown() {
        FaultInjection.disarmAll()
        home.remove()
    }

    private var keyring: Keyring { home.keyring() }

    private var groupDirectory: URL { home.itemsFile(ItemTestHome.shared).deletingLastPathComponent() }

    private func storedSecrets() throws -> [Data] {
        try keyring.items(matching: ItemQuery(service: "api")).map(\.secret)
    }

    private func assertDiskFullError(_ body: () throws -> Void, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertThrowsError(try body(), file: file, line: line) { error in
            guard let error = error as? KeyringError else { return XCTFail("not a KeyringError: \(error)", file: file, line: line) }
            XCTAssertEqual(error.status, .ioError, error.reason, file: file, line: line)
            XCTAssertTrue(error.reason.contains("free disk space"), error.reason, file: file, line: line)
        }
    }

    func testAddOnAFullDiskIsIOErrorSayingTheDiskIsFull() {
        FaultInjection.arm(.fail(.noSpace), at: .writeTemporary)
        assertDiskFullError { try keyring.add(KeychainItem(service: "api", account: "c", secret: Data("third".utf8))) }
    }

    func testAddOnAFullDiskKeepsTheEarlierItems() throws {
        FaultInjection.arm(.fail(.noSpace), at: .writeTemporary)
        _ = try? keyring.add(KeychainItem(service: "api", account: "c", secret: Data("third".utf8)))
        XCTAssertEqual(try storedSecrets(), [Data("first".utf8), Data("second".utf8)])
    }

    func testAddOnAFullDiskLeavesNoTemporaryFile() throws {
        FaultInjection.arm(.fail(.noSpace), at: .writeTemporary)
        _ = try? keyring.add(KeychainItem(service: "api", account: "c", secret: Data("third".utf8)))
        let names = try FileManager.default.contentsOfDirectory(atPath: groupDirectory.path).sorted()
        XCTAssertEqual(names, ["items.lock", "items.sealed"])
    }

    func testUpdateOnAFullDiskKeepsTheOldSecret() throws {
        FaultInjection.arm(.fail(.noSpace), at: .writeTemporary)
        var changes = ItemChanges()
        changes.secret = Data("replacement".utf8)
        assertDiskFullError { try keyring.update(matching: ItemQuery(service: "api", account: "a"), with: changes) }
        XCTAssertEqual(try storedSecrets(), [Data("first".utf8), Data("second".utf8)])
    }

    func testDeleteOnAFullDiskDeletesNothing() throws {
        FaultInjection.arm(.fail(.noSpace), at: .writeTemporary)
        assertDiskFullError { try keyring.delete(matching: ItemQuery(service: "api")) }
        XCTAssertEqual(try storedSecrets(), [Data("first".utf8), Data("second".utf8)])
    }

    func testAFailedSyncBeforeTheRenameKeepsTheEarlierItems() throws {
        FaultInjection.arm(.fail(.ioError), at: .syncTemporary)
        XCTAssertThrowsError(try keyring.add(KeychainItem(service: "api", account: "c", secret: Data("third".utf8)))) { error in
            XCTAssertEqual((error as? KeyringError)?.status, .ioError)
        }
        XCTAssertEqual(try storedSecrets(), [Data("first".utf8), Data("second".utf8)])
    }

    func testAnAddAfterSpaceIsFreedSucceeds() throws {
        FaultInjection.arm(.fail(.noSpace), at: .writeTemporary)
        _ = try? keyring.add(KeychainItem(service: "api", account: "c", secret: Data("third".utf8)))
        try keyring.add(KeychainItem(service: "api", account: "c", secret: Data("third".utf8)))
        XCTAssertEqual(try storedSecrets(), [Data("first".utf8), Data("second".utf8), Data("third".utf8)])
    }

    func testAMoveThatFailsWritingTheTargetLeavesTheItemInTheSource() throws {
        FaultInjection.arm(.fail(.noSpace), at: .writeTemporary)
        var changes = ItemChanges()
        changes.accessGroup = ItemTestHome.appGroup
        assertDiskFullError { try keyring.update(matching: ItemQuery(service: "api", account: "a"), with: changes) }
        XCTAssertEqual(try keyring.items(matching: ItemQuery(service: "api", account: "a")).map(\.accessGroup), [ItemTestHome.shared])
    }

    /// A reported failure changes nothing: the target, written first, is restored. (A crash
    /// between the two writes leaves a duplicate, never a loss: ItemMultiProcessTests kills a
    /// mover at every step.)
    func testAMoveThatFailsWritingTheSourceIsUndoneInTheTarget() throws {
        // The target is written first; the second write (the source) fails.
        FaultInjection.arm(.fail(.noSpace), at: .writeTemporary, afterPassing: 1)
        var changes = ItemChanges()
        changes.accessGroup = ItemTestHome.appGroup
        assertDiskFullError { try keyring.update(matching: ItemQuery(service: "api", account: "a"), with: changes) }
        let copies = try keyring.items(matching: ItemQuery(service: "api", account: "a"))
        XCTAssertEqual(copies.map(\.accessGroup), [ItemTestHome.shared])
        XCTAssertEqual(copies.map(\.secret), [Data("first".utf8)])
    }
}
