import Foundation
import GroupVaultTestKit
@testable import Keyring
import SealedStorage
import XCTest

/// A damaged item row of the keyring database is refused as `errSecDecode`: never parsed into
/// an item, and never overwritten by a later write (so what is left can still be recovered).
/// A damaged row fails the operations that would read it; rows beside it stay usable.
final class ItemStoreCorruptionTests: ItemTestCase {
    private var rng = SeededGenerator()

    override func setUpWithError() throws {
        try super.setUpWithError()
        rng = SeededGenerator()
        try keyring.add(KeychainItem(service: "api", account: "a", secret: Data("first".utf8)))
        try keyring.add(KeychainItem(service: "api", account: "b", secret: Data("second".utf8), label: "L"))
    }

    /// The sealed bytes of the first item of `group` (account "a" in the shared group).
    private func rowBytes(_ group: GroupIdentifier = ItemTestHome.shared) throws -> [UInt8] {
        try KeyringDatabase.shared(for: home.home).read("test") { (transaction: borrowing KeyringDatabase.Transaction) throws(KeyringError) -> [UInt8] in
            try transaction.query("SELECT sealed FROM items WHERE access_group = ? ORDER BY id LIMIT 1", [.text(group.rawValue)]) { $0.blob(0) }.first ?? []
        }
    }

    /// Replaces the sealed bytes of the first item of the shared group, as an attacker or a
    /// damaged disk could.
    private func replaceRow(with bytes: [UInt8]) throws {
        try KeyringDatabase.shared(for: home.home).write("test") { (transaction: borrowing KeyringDatabase.Transaction) throws(KeyringError) in
            _ = try transaction.run(
                "UPDATE items SET sealed = ? WHERE id = (SELECT min(id) FROM items WHERE access_group = ?)",
                [.blob(bytes), .text(ItemTestHome.shared.rawValue)])
        }
    }

    /// The first row's item replaced by `item`, sealed under the keyring's own item key with
    /// the row's own additional data: authentic, as a buggy writer could have written it.
    /// Written as JSON, the body every row had before the binary one.
    private func replaceRow(withAuthentic item: KeychainItem) throws {
        try replaceRow(withAuthenticBody: try ItemTable.encodedByJSONEncoder(item))
    }

    /// The first row's body replaced by `body`, sealed as ``replaceRow(withAuthentic:)`` seals.
    private func replaceRow(withAuthenticBody body: [UInt8]) throws {
        let database = try KeyringDatabase.shared(for: home.home)
        let stored = try database.read("test") { (transaction: borrowing KeyringDatabase.Transaction) throws(KeyringError) -> [ItemTable.Hashes] in
            try transaction.query(
                "SELECT key_hash, service_hash, account_hash, server_hash, reference_hash FROM items WHERE access_group = ? ORDER BY id LIMIT 1",
                [.text(ItemTestHome.shared.rawValue)]
            ) { ItemTable.Hashes(key: $0.blob(0), service: $0.blob(1), account: $0.blob(2), server: $0.blob(3), reference: $0.blob(4)) }
        }
        let hashes = try XCTUnwrap(stored.first)
        let sealed = SealedBox.seal(
            body, format: ItemTable.masterSecretFormat, using: database.itemSealingKey,
            authenticating: ItemTable.additionalData(format: ItemTable.masterSecretFormat.version, group: ItemTestHome.shared, itemClass: "genp", hashes: hashes))
        try replaceRow(with: sealed.combined)
    }

    func testAnAuthenticRowWhoseItemClaimsAnotherPrimaryKeyIsDecode() throws {
        try replaceRow(withAuthentic: KeychainItem(service: "api", account: "z", accessGroup: ItemTestHome.shared, secret: Data("planted".utf8)))

        assertReadIsDecode("an item of account z in the row of account a")
        XCTAssertThrowsError(try keyring.item(matching: ItemQuery(service: "api", account: "a"))) { error in
            XCTAssertEqual((error as? KeyringError)?.status, .decode)
        }
    }

    /// A row found consistent is remembered by its bytes (ConsistentItemRows): an authentic row
    /// written over it, with the same columns and additional data, is checked in full again.
    func testARowFoundConsistentThenOverwrittenByAnAuthenticRowClaimingAnotherPrimaryKeyIsDecode() throws {
        XCTAssertEqual(try keyring.item(matching: ItemQuery(service: "api", account: "a")).secret, Data("first".utf8))
        XCTAssertEqual(try KeyringDatabase.shared(for: home.home).consistentItemRows.withLock { $0.count }, 1, "the lookup remembered its row")

        try replaceRow(withAuthentic: KeychainItem(service: "api", account: "z", accessGroup: ItemTestHome.shared, secret: Data("planted".utf8)))

        XCTAssertThrowsError(try keyring.item(matching: ItemQuery(service: "api", account: "a"))) { error in
            XCTAssertEqual((error as? KeyringError)?.status, .decode)
        }
    }

    func testAnAuthenticRowWhoseItemClaimsAnotherGroupIsDecode() throws {
        let other = try XCTUnwrap(GroupIdentifier(rawValue: "group.com.example.other"))
        try replaceRow(withAuthentic: KeychainItem(service: "api", account: "a", accessGroup: other, secret: Data("planted".utf8)))

        assertReadIsDecode("an item of another group in a row of the shared group")
    }

    // MARK: Bodies

    func testANewRowHoldsTheBinaryBody() throws {
        let database = try KeyringDatabase.shared(for: home.home)
        let box = try SealedBox(combined: try rowBytes(), formats: [ItemTable.masterSecretFormat])
        let stored = try database.read("test") { (transaction: borrowing KeyringDatabase.Transaction) throws(KeyringError) -> [ItemTable.Hashes] in
            try transaction.query(
                "SELECT key_hash, service_hash, account_hash, server_hash, reference_hash FROM items WHERE access_group = ? ORDER BY id LIMIT 1",
                [.text(ItemTestHome.shared.rawValue)]
            ) { ItemTable.Hashes(key: $0.blob(0), service: $0.blob(1), account: $0.blob(2), server: $0.blob(3), reference: $0.blob(4)) }
        }
        let body = try box.open(
            using: database.itemSealingKey,
            authenticating: ItemTable.additionalData(format: 1, group: ItemTestHome.shared, itemClass: "genp", hashes: try XCTUnwrap(stored.first)))

        XCTAssertEqual(Array(body.prefix(2)), [ItemRowBinary.marker, ItemRowBinary.version])
        XCTAssertEqual(ItemRowBinary.item(from: body)?.secret, Data("first".utf8))
    }

    func testARowWrittenAsJSONByAnEarlierVersionIsStillRead() throws {
        let item = try keyring.item(matching: ItemQuery(service: "api", account: "a"))
        try replaceRow(withAuthentic: item)

        XCTAssertEqual(try keyring.item(matching: ItemQuery(service: "api", account: "a")), item)
    }

    func testAnAuthenticRowWhoseBinaryBodyDoesNotDecodeIsDecode() throws {
        let item = try keyring.item(matching: ItemQuery(service: "api", account: "a"))
        var body = try XCTUnwrap(ItemRowBinary.body(of: item))
        body.append(0xFF)

        try replaceRow(withAuthenticBody: body)

        assertReadIsDecode("a binary body with a byte after its last field")
    }

    /// Reading must fail with errSecDecode: no items, wrong or right, come back.
    private func assertReadIsDecode(_ context: @autoclosure () -> String, file: StaticString = #filePath, line: UInt = #line) {
        do {
            let items = try keyring.items(matching: ItemQuery(accessGroup: ItemTestHome.shared))
            XCTFail("\(context()): read \(items.count) items from a damaged row; \(rng.describe)", file: file, line: line)
        } catch {
            // items(matching:) has typed throws: every error here is a KeyringError.
            XCTAssertEqual(error.status, .decode, "\(context()): \(error); \(rng.describe)", file: file, line: line)
        }
    }

    func testRandomBytesAreDecode() throws {
        for round in 0..<50 {
            let count = Int.random(in: 0...600, using: &rng)
            try replaceRow(with: rng.bytes(count: count))
            assertReadIsDecode("round \(round), \(count) random bytes")
        }
    }

    func testRandomBytesAfterAValidHeaderAreDecode() throws {
        let header = Array(try rowBytes().prefix(5))
        for round in 0..<50 {
            try replaceRow(with: header + rng.bytes(count: Int.random(in: 0...600, using: &rng)))
            assertReadIsDecode("round \(round), valid magic and version then random bytes")
        }
    }

    func testEveryTruncationIsDecode() throws {
        let original = try rowBytes()
        for length in 0..<original.count {
            try replaceRow(with: Array(original.prefix(length)))
            assertReadIsDecode("truncated to \(length) of \(original.count) bytes")
        }
    }

    func testBitFlipsAtSeededPositionsAreDecode() throws {
        let original = try rowBytes()
        for round in 0..<200 {
            var damaged = original
            let position = Int.random(in: 0..<original.count, using: &rng)
            damaged[position] ^= 1 << UInt8.random(in: 0...7, using: &rng)
            try replaceRow(with: damaged)
            assertReadIsDecode("round \(round), bit flipped at byte \(position) of \(original.count)")
        }
    }

    func testARowCopiedFromAnotherGroupIsDecode() throws {
        try keyring.add(KeychainItem(service: "api", account: "elsewhere", accessGroup: ItemTestHome.appGroup, secret: Data("x".utf8)))
        try replaceRow(with: try rowBytes(ItemTestHome.appGroup))
        assertReadIsDecode("item row of \(ItemTestHome.appGroup) copied over one of \(ItemTestHome.shared)")
    }

    func testARowCopiedOverAnotherRowOfTheSameGroupIsDecode() throws {
        let second = try KeyringDatabase.shared(for: home.home).read("test") { (transaction: borrowing KeyringDatabase.Transaction) throws(KeyringError) -> [UInt8] in
            try transaction.query("SELECT sealed FROM items WHERE access_group = ? ORDER BY id DESC LIMIT 1", [.text(ItemTestHome.shared.rawValue)]) { $0.blob(0) }.first ?? []
        }
        try replaceRow(with: second)
        assertReadIsDecode("the sealed item of account b copied over the row of account a")
    }

    func testASearchOfEveryGroupFailsWhenOneGroupIsDamaged() throws {
        try replaceRow(with: Array(try rowBytes().dropLast()))
        XCTAssertThrowsError(try keyring.items(matching: ItemQuery(service: "api"))) { error in
            XCTAssertEqual((error as? KeyringError)?.status, .decode)
        }
    }

    func testARowMovedToAnotherGroupIsDecode() throws {
        try KeyringDatabase.shared(for: home.home).write("test") { (transaction: borrowing KeyringDatabase.Transaction) throws(KeyringError) in
            _ = try transaction.run("UPDATE items SET access_group = ? WHERE access_group = ?", [.text(ItemTestHome.appGroup.rawValue), .text(ItemTestHome.shared.rawValue)])
        }
        XCTAssertThrowsError(try keyring.items(matching: ItemQuery(accessGroup: ItemTestHome.appGroup))) { error in
            XCTAssertEqual((error as? KeyringError)?.status, .decode)
        }
    }

    func testARowWithAnAlteredLookupHashIsDecode() throws {
        // Another row's account hash: a lookup by that account would find this row.
        try KeyringDatabase.shared(for: home.home).write("test") { (transaction: borrowing KeyringDatabase.Transaction) throws(KeyringError) in
            _ = try transaction.run(
                "UPDATE items SET account_hash = (SELECT account_hash FROM items ORDER BY id DESC LIMIT 1) WHERE id = (SELECT min(id) FROM items)")
        }
        // By the account alone, so the account's index is what finds rows (a lookup naming the
        // service too goes through the primary key's hash, which this row did not change).
        XCTAssertThrowsError(try keyring.items(matching: ItemQuery(account: "b"))) { error in
            XCTAssertEqual((error as? KeyringError)?.status, .decode)
        }
    }

    func testTheDecodeReasonNamesTheDatabaseAndWhatToDo() throws {
        try replaceRow(with: Array(try rowBytes().dropLast()))
        XCTAssertThrowsError(try keyring.items(matching: ItemQuery(accessGroup: ItemTestHome.shared))) { error in
            let reason = (error as? KeyringError)?.reason ?? ""
            XCTAssertTrue(reason.contains("keyring.db"), reason)
            XCTAssertTrue(reason.contains("backup"), reason)
        }
    }

    /// Each item is its own row now: an add beside a damaged row works, and never replaces it,
    /// not even an add with the damaged item's primary key.
    func testAnAddLeavesTheDamagedRowUnchanged() throws {
        var damaged = try rowBytes()
        damaged[damaged.count / 2] ^= 0x40
        try replaceRow(with: damaged)
        try keyring.add(KeychainItem(service: "api", account: "c", secret: Data("third".utf8)))
        XCTAssertThrowsError(try keyring.add(KeychainItem(service: "api", account: "a", secret: Data("again".utf8)))) { error in
            XCTAssertEqual((error as? KeyringError)?.status, .duplicateItem)
        }
        XCTAssertEqual(try rowBytes(), damaged)
        XCTAssertEqual(try keyring.item(matching: ItemQuery(service: "api", account: "c")).secret, Data("third".utf8))
    }

    func testAFailedUpdateLeavesTheDamagedRowUnchanged() throws {
        let damaged = Array(try rowBytes().dropLast(3))
        try replaceRow(with: damaged)
        var changes = ItemChanges()
        changes.label = "new"
        XCTAssertThrowsError(try keyring.update(matching: ItemQuery(accessGroup: ItemTestHome.shared), with: changes)) { error in
            XCTAssertEqual((error as? KeyringError)?.status, .decode)
        }
        XCTAssertEqual(try rowBytes(), damaged)
    }

    func testAFailedDeleteLeavesTheDamagedRowUnchanged() throws {
        let damaged = rng.bytes(count: 300)
        try replaceRow(with: damaged)
        XCTAssertThrowsError(try keyring.delete(matching: ItemQuery(accessGroup: ItemTestHome.shared))) { error in
            XCTAssertEqual((error as? KeyringError)?.status, .decode, rng.describe)
        }
        XCTAssertEqual(try rowBytes(), damaged, rng.describe)
    }

    func testADamagedGroupBlocksAnUpdateOfOtherGroupsInTheSameCall() throws {
        try keyring.add(KeychainItem(service: "api", account: "a", accessGroup: ItemTestHome.appGroup, secret: Data("x".utf8)))
        try replaceRow(with: Array(try rowBytes().dropLast()))
        var changes = ItemChanges()
        changes.label = "new"
        XCTAssertThrowsError(try keyring.update(matching: ItemQuery(service: "api"), with: changes)) { error in
            XCTAssertEqual((error as? KeyringError)?.status, .decode)
        }
        XCTAssertNil(try keyring.item(matching: ItemQuery(service: "api", accessGroup: ItemTestHome.appGroup)).label)
    }
}
