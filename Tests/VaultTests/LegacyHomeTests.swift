import Foundation
import GroupVaultTestKit
import Keyring
import Vault
import XCTest

/// A home written by the sealed-JSON code before the keyring database (Fixtures/legacy-home,
/// see its README) opens with every item, key, record and trust-ledger entry; the items and the
/// ledger are imported into the database once, and the old files are kept.
final class LegacyHomeTests: FixtureHomeTestCase {
    override class var fixture: String { "legacy-home" }

    func testEveryItemIsFound() throws {
        let items = try keyring.items(matching: ItemQuery(service: "api", accessGroup: Self.group))

        XCTAssertEqual(items.compactMap(\.account), ["item-0", "item-1", "item-2"])
        XCTAssertEqual(items.map(\.secret), ["item-0", "item-1", "item-2"].map { Data($0.utf8) })
    }

    func testEveryImportedItemKeepsItsAttributes() throws {
        let items = try keyring.items(matching: ItemQuery(service: "api", accessGroup: Self.group))
        XCTAssertEqual(items.count, 3)
        for item in items {
            XCTAssertEqual(item.accessGroup, Self.group)
            XCTAssertEqual(item.itemClass, .genericPassword)
            XCTAssertNotNil(item.creationDate, "\(item)")
            XCTAssertNotNil(item.modificationDate, "\(item)")
            // Found again through each indexed attribute, with everything it had.
            let reference = try XCTUnwrap(item.persistentReference)
            XCTAssertEqual(try keyring.items(matching: ItemQuery(persistentReference: reference)), [item])
            XCTAssertEqual(try keyring.item(matching: ItemQuery(service: "api", account: item.account)), item)
        }
    }

    func testTheOldItemsFileIsKeptUnchanged() throws {
        let old = keyring.home.root.appendingPathComponent("Keychains").appendingPathComponent(Self.group.rawValue).appendingPathComponent("items.sealed")
        let before = try Data(contentsOf: old)
        _ = try keyring.items(matching: ItemQuery(service: "api"))
        try keyring.add(KeychainItem(service: "api", account: "new", secret: Data("n".utf8)))

        XCTAssertEqual(try Data(contentsOf: old), before)
    }

    func testTheItemImportRunsOnce() throws {
        XCTAssertEqual(try keyring.delete(matching: ItemQuery(service: "api", account: "item-0")), 1)
        // As a new process would: the database opened anew, the old file still there.
        KeyringDatabase.closeAll()

        XCTAssertEqual(try keyring.items(matching: ItemQuery(service: "api")).compactMap(\.account), ["item-1", "item-2"])
    }

    func testEveryKeyIsFound() throws {
        XCTAssertEqual(try keyring.keys(in: Self.group).map(\.id), [1, 2])
        XCTAssertEqual(try keyring.groupKey(for: Self.group).id, 2)
    }

    func testTheOldKeysetFileIsKeptUnchangedAfterARotation() throws {
        let old = keyring.home.root.appendingPathComponent("Keychains").appendingPathComponent(Self.group.rawValue).appendingPathComponent("keyset.sealed")
        let before = try Data(contentsOf: old)

        XCTAssertEqual(try keyring.rotateKey(in: Self.group).id, 3, "ids continue after the imported keys")

        XCTAssertEqual(try Data(contentsOf: old), before)
        XCTAssertEqual(try keyring.keys(in: Self.group).map(\.id), [1, 2, 3])
    }

    func testEveryRecordReads() throws {
        let vault = try Vault(keyring: keyring, group: Self.group)

        XCTAssertEqual(try vault.read(CounterRecord.self, from: "state"), CounterRecord(writer: "fixture", counter: 3))
        XCTAssertEqual(try vault.read(CounterRecord.self, from: "other"), CounterRecord(writer: "fixture", counter: 1))
    }

    func testEveryLedgerEntryIsImported() throws {
        let vault = try Vault(keyring: keyring, group: Self.group)

        XCTAssertEqual(try vault.ledger.recordNames(), ["other", "state"])
        XCTAssertEqual(try vault.ledger.entry(for: RecordName(validating: "state"))?.sequence, 3)
        XCTAssertEqual(try vault.ledger.entry(for: RecordName(validating: "other"))?.sequence, 1)
    }

    func testTheNextWriteContinuesTheImportedSequence() throws {
        let vault = try Vault(keyring: keyring, group: Self.group)

        XCTAssertEqual(try vault.write(CounterRecord(writer: "test", counter: 4), to: "state").sequence, 4)
    }

    func testTheOldLedgerFileIsKept() throws {
        let vault = try Vault(keyring: keyring, group: Self.group)
        _ = try vault.ledger.recordNames()

        let old = keyring.home.root.appendingPathComponent("Keychains").appendingPathComponent(Self.group.rawValue).appendingPathComponent("vault-ledger.sealed")
        XCTAssertTrue(FileManager.default.fileExists(atPath: old.path))
    }
}
