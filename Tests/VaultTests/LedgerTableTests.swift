import Foundation
import GroupVaultTestKit
import Keyring
import SealedStorage
import Vault
import XCTest

/// The trust ledger is the Vault's own table in the keyring database, not part of the keyring's
/// schema (docs/ARCHITECTURE.md, "Tables of the modules above"): created on the Vault's first
/// use of a database the keyring made without it, and guarded like the keyring's own tables.
final class LedgerTableTests: VaultTestCase {
    func testTheLedgersDefinitionIsWrittenAsSQLiteRecordsIt() {
        // The keyring holds a database's ledger to the objects derived from this text.
        XCTAssertTrue(LedgerTable.definition.isWrittenAsSQLiteRecordsIt)
    }

    func testTheLedgerIsCreatedOnTheVaultsFirstWriteToADatabaseTheKeyringMadeWithoutIt() throws {
        _ = try KeyringDatabase.shared(for: sandbox.home)
        XCTAssertEqual(ledgerObjects(), 0, "the keyring alone made the ledger")
        KeyringDatabase.closeAll()

        try sandbox.vault().write(AuthState.signedIn, to: "auth-state")

        XCTAssertEqual(ledgerObjects(), 1)
        XCTAssertEqual(OutsideSQL.integer("SELECT confirmed FROM ledger WHERE record = 'auth-state'", on: sandbox.databasePath), 1)
        XCTAssertEqual(try sandbox.vault().read(AuthState.self, from: "auth-state"), .signedIn)
    }

    func testATriggerThatIgnoresLedgerUpdatesIsRefused() throws {
        try sandbox.vault().write(AuthState.signedIn, to: "auth-state")
        KeyringDatabase.closeAll()
        OutsideSQL.execute("CREATE TRIGGER keep_ledger BEFORE UPDATE ON ledger BEGIN SELECT RAISE(IGNORE); END", on: sandbox.databasePath)

        do {
            let value = try sandbox.vault().read(AuthState.self, from: "auth-state")
            XCTFail("read \(value) through a database whose ledger ignores updates")
        } catch {
            XCTAssertEqual(error.code, .keyring, error.reason)
            XCTAssertTrue(error.reason.contains("keep_ledger"), error.reason)
        }
    }

    func testATriggerPlantedWhileTheLedgerIsOpenThatUndoesItsUpdatesIsRefused() throws {
        // Not an ignored write (the update reports one row changed): a trigger that puts the
        // old values back. Only a new look at the schema catches it.
        let ledger = try LedgerTable(database: KeyringDatabase.shared(for: sandbox.home), group: VaultSandbox.group)
        try ledger.update("record") { $0 = LedgerTable.Row(confirmed: 1, confirmedDigest: "one") }
        OutsideSQL.execute("""
            CREATE TRIGGER undo AFTER UPDATE ON ledger BEGIN
                UPDATE ledger SET confirmed = old.confirmed, confirmed_digest = old.confirmed_digest, tag = old.tag
                WHERE access_group = old.access_group AND record = old.record;
            END
            """, on: sandbox.databasePath)

        XCTAssertThrowsError(try ledger.update("record") { $0 = LedgerTable.Row(confirmed: 2, confirmedDigest: "two") }) { error in
            XCTAssertEqual((error as? KeyringError)?.status, .decode, "\(error)")
            XCTAssertTrue(((error as? KeyringError)?.reason ?? "").contains("undo"), "\(error)")
        }
        XCTAssertEqual(try ledger.row("record")?.confirmed, 1)
    }

    /// A tag that verified is remembered with the row's exact bytes
    /// (`KeyringDatabase.verifies(tag:of:derivedKeyID:name:)`): the row altered afterwards,
    /// while this process keeps the database open, fails authentication.
    func testALedgerRowAlteredAfterThisProcessVerifiedItFailsAuthentication() throws {
        let ledger = try LedgerTable(database: KeyringDatabase.shared(for: sandbox.home), group: VaultSandbox.group)
        try ledger.update("record") { $0 = LedgerTable.Row(confirmed: 1, confirmedDigest: "one") }
        XCTAssertEqual(try ledger.row("record")?.confirmed, 1)

        OutsideSQL.execute("UPDATE ledger SET confirmed = 2 WHERE record = 'record'", on: sandbox.databasePath)

        XCTAssertThrowsError(try ledger.row("record")) { error in
            XCTAssertEqual((error as? KeyringError)?.status, .decode, "\(error)")
        }
    }

    func testThisProcessesLedgerCommitsLeaveItsCachedKeysetsValid() throws {
        _ = try sandbox.keyring.groupKey(for: VaultSandbox.group)
        let database = try KeyringDatabase.shared(for: sandbox.home)
        let ledger = try LedgerTable(database: database, group: VaultSandbox.group)
        let before = try database.changeStamp()

        try ledger.update("auth-state") { $0 = LedgerTable.Row(confirmed: 1, confirmedDigest: String(repeating: "a", count: 64)) }

        XCTAssertEqual(try database.changeStamp(), before, "a ledger row is cached nowhere, so committing one must not make the keyset be read again")
    }

    /// How many schema objects the keyring database has for the `ledger` table.
    private func ledgerObjects() -> Int64? {
        OutsideSQL.integer("SELECT COUNT(*) FROM sqlite_schema WHERE tbl_name = 'ledger'", on: sandbox.databasePath)
    }
}
