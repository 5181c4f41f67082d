@testable import Keyring
import XCTest

/// The schema a database must hold is derived from the text of its definition, without SQLite
/// (docs/ARCHITECTURE.md, "The expected schema is derived from the definition's text"); these
/// tests hold the derivation to what SQLite itself records.
final class SchemaObjectTests: XCTestCase {
    func testTheKeyringsSchemaIsDerivedAsSQLiteRecordsIt() {
        XCTAssertEqual(KeyringDatabase.expectedSchema, SchemaObject.recordedBySQLite(KeyringDatabase.schemaStatements))
        XCTAssertEqual(KeyringDatabase.expectedSchema.count, KeyringDatabase.schemaStatements.count)
    }

    func testAnIndexBelongsToTheTableItIsOnAndAUniqueIndexKeepsItsKeyword() {
        let statements = [
            "CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT NOT NULL)",
            "CREATE UNIQUE INDEX notes_by_body ON notes (body)",
        ]

        XCTAssertEqual(SchemaObject.derived(from: statements), [
            SchemaObject(type: "index", name: "notes_by_body", table: "notes", sql: "CREATE UNIQUE INDEX notes_by_body ON notes (body)"),
            SchemaObject(type: "table", name: "notes", table: "notes", sql: "CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT NOT NULL)"),
        ])
        XCTAssertEqual(SchemaObject.derived(from: statements), SchemaObject.recordedBySQLite(statements))
    }

    func testADefinitionThatMakesSQLiteAddAnIndexOfItsOwnIsNotWrittenAsSQLiteRecordsIt() {
        // A text primary key of a table with row ids: SQLite adds sqlite_autoindex_tokens_1.
        let table = ExtensionTable(name: "tokens", version: 1, createStatements: ["CREATE TABLE tokens (name TEXT PRIMARY KEY, value BLOB)"])

        XCTAssertFalse(table.isWrittenAsSQLiteRecordsIt)
    }

    func testObjectsCompareEqualWhateverTheOrderTheyWereFoundIn() {
        let objects = SchemaObject.recordedBySQLite(KeyringDatabase.schemaStatements)

        XCTAssertEqual(SchemaObject.sorted(objects.reversed()), objects)
    }
}
