import Foundation
import GroupVaultTestKit
import Keyring
import Vault
import XCTest

/// A home whose keyring database was made while the trust ledger was part of the keyring's own
/// schema (Fixtures/database-home, see its README) opens with no conversion: in a process that
/// never uses the Vault, which leaves the ledger alone, and in one that does.
final class DatabaseHomeTests: FixtureHomeTestCase {
    override class var fixture: String { "database-home" }

    func testAProcessThatNeverUsesTheVaultFindsEveryItem() throws {
        let items = try keyring.items(matching: ItemQuery(service: "api", accessGroup: Self.group))

        XCTAssertEqual(items.compactMap(\.account), ["item-0", "item-1", "item-2"])
    }

    func testEveryRecordReadsAgainstItsLedgerRow() throws {
        let vault = try Vault(keyring: keyring, group: Self.group)

        XCTAssertEqual(try vault.read(CounterRecord.self, from: "state"), CounterRecord(writer: "fixture", counter: 3))
        XCTAssertEqual(try vault.read(CounterRecord.self, from: "other"), CounterRecord(writer: "fixture", counter: 1))
    }

    func testTheNextWriteContinuesTheLedgersSequence() throws {
        let vault = try Vault(keyring: keyring, group: Self.group)

        XCTAssertEqual(try vault.write(CounterRecord(writer: "test", counter: 4), to: "state").sequence, 4)
    }

    func testTheDatabaseIsNotConverted() throws {
        let schema = "SELECT COUNT(*) FROM sqlite_schema"
        let before = OutsideSQL.integer(schema, on: databasePath)

        _ = try Vault(keyring: keyring, group: Self.group).write(CounterRecord(writer: "test", counter: 4), to: "state")

        XCTAssertEqual(OutsideSQL.integer(schema, on: databasePath), before)
        XCTAssertNil(OutsideSQL.integer("SELECT value FROM meta WHERE name = 'table.ledger'", on: databasePath), "a version row was added")
    }

    private var databasePath: String {
        home.home.root.appendingPathComponent("Keychains").appendingPathComponent(KeyringDatabase.fileName).path
    }
}
