import Foundation
import GroupVaultTestKit
@testable import Keyring
import XCTest

/// A table that a module above keeps in the keyring database (the Vault's trust ledger is one):
/// created where a database lacks it, held to its definition by every process that adopts it,
/// left alone by a process that does not, and never a way in for a trigger.
final class ExtensionTableTests: ItemTestCase {
    private let notes = ExtensionTable(name: "notes", version: 1, createStatements: [
        "CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT NOT NULL)",
        "CREATE INDEX notes_by_body ON notes (body)",
    ])

    override func setUpWithError() throws {
        try super.setUpWithError()
        // The database, made by the keyring alone: it has none of the module's tables.
        try keyring.add(KeychainItem(service: "api", account: "a", secret: Data("first".utf8)))
    }

    // MARK: Creation

    func testTheTestTablesDefinitionIsWrittenAsSQLiteRecordsIt() {
        XCTAssertTrue(notes.isWrittenAsSQLiteRecordsIt)
    }

    func testAnAdoptedTableIsCreatedInADatabaseMadeWithoutIt() throws {
        XCTAssertEqual(count("SELECT COUNT(*) FROM sqlite_schema WHERE tbl_name = 'notes'"), 0)

        try reopened().adopt(notes)

        XCTAssertEqual(count("SELECT COUNT(*) FROM sqlite_schema WHERE tbl_name = 'notes'"), 2, "the table and its index")
        XCTAssertEqual(count("SELECT value FROM meta WHERE name = 'table.notes'"), 1, "its version is recorded")
    }

    func testAProcessThatNeverAdoptsATableOpensTheDatabaseAndLeavesTheTableAlone() throws {
        try reopened().adopt(notes)
        OutsideSQL.execute("INSERT INTO notes (body) VALUES ('kept')", on: path)

        _ = try reopened()
        try keyring.add(KeychainItem(service: "api", account: "b", secret: Data("second".utf8)))

        XCTAssertEqual(try keyring.items(matching: ItemQuery(service: "api")).count, 2)
        XCTAssertEqual(count("SELECT COUNT(*) FROM notes"), 1)
    }

    func testACommitThatChangesNothingCachedLeavesTheChangeStampAndAnyOtherCommitChangesIt() throws {
        let database = try reopened()
        try database.adopt(notes)
        let before = try database.changeStamp()

        try insertNote("uncached", in: database, changesCachedState: false)
        XCTAssertEqual(try database.changeStamp(), before, "nothing cached changed, so no cache need be read again")

        try insertNote("cached", in: database, changesCachedState: true)
        XCTAssertNotEqual(try database.changeStamp(), before)
    }

    // MARK: Held to its definition by the processes that adopt it

    func testAnAdoptedTableWithAColumnAddedIsRefused() throws {
        try reopened().adopt(notes)
        OutsideSQL.execute("ALTER TABLE notes ADD COLUMN planted TEXT", on: path)

        assertAdoptionRefused(containing: ["keyring.db", "notes", "planted", "backup"])
    }

    func testAnIndexPlantedOnAnAdoptedTableIsRefused() throws {
        try reopened().adopt(notes)
        OutsideSQL.execute("CREATE INDEX planted_index ON notes (id, body)", on: path)

        assertAdoptionRefused(containing: ["keyring.db", "index", "planted_index"])
    }

    func testAnIndexPlantedOnAnAdoptedTableWhileItIsOpenStopsTheNextWrite() throws {
        let database = try reopened()
        try database.adopt(notes)
        OutsideSQL.execute("CREATE INDEX planted_index ON notes (id, body)", on: path)

        XCTAssertThrowsError(try insertNote("after", in: database, changesCachedState: false)) { error in
            XCTAssertEqual((error as? KeyringError)?.status, .decode, "\(error)")
            XCTAssertTrue(((error as? KeyringError)?.reason ?? "").contains("planted_index"), "\(error)")
        }
        XCTAssertEqual(count("SELECT COUNT(*) FROM notes"), 0, "the write was committed")
    }

    func testATableOfANewerVersionIsRefused() throws {
        try reopened().adopt(notes)
        OutsideSQL.execute("UPDATE meta SET value = 2 WHERE name = 'table.notes'", on: path)

        assertAdoptionRefused(containing: ["keyring.db", "version 2", "notes", "newer GroupVault"])
    }

    func testATableWithoutAVersionRowIsReadAsVersionOne() throws {
        // Tables made before versions were recorded (the Vault's ledger, created with the
        // keyring's own schema) have no row.
        try reopened().adopt(notes)
        OutsideSQL.execute("DELETE FROM meta WHERE name = 'table.notes'", on: path)

        XCTAssertNoThrow(try reopened().adopt(notes))
        XCTAssertNil(count("SELECT value FROM meta WHERE name = 'table.notes'"), "an existing table was converted")
    }

    // MARK: Helpers

    private var path: String { home.databaseFile.path }

    /// The database as a new process opens it: no table adopted yet.
    private func reopened() throws -> KeyringDatabase {
        KeyringDatabase.closeAll()
        return try KeyringDatabase.shared(for: home.home)
    }

    private func count(_ sql: String) -> Int64? {
        OutsideSQL.integer(sql, on: path)
    }

    private func insertNote(_ body: String, in database: KeyringDatabase, changesCachedState: Bool) throws {
        try database.write("add a note", changesCachedState: changesCachedState) { (transaction: borrowing KeyringDatabase.Transaction) throws(KeyringError) in
            try transaction.apply("INSERT INTO notes (body) VALUES (?)", [.text(body)], expecting: .exactly(1))
        }
    }

    /// A new process adopting ``notes`` is refused as damaged (`decode`), with a reason naming
    /// each of `fragments`.
    private func assertAdoptionRefused(containing fragments: [String], file: StaticString = #filePath, line: UInt = #line) {
        assertRefusedAsDamaged({ try reopened().adopt(notes) }, naming: fragments, file: file, line: line)
    }
}
