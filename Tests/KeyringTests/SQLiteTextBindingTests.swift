@testable import Keyring
import XCTest

/// A bound text reaches SQLite by its length, from the string's own UTF-8 (no C-string copy per
/// bound value, on every lookup and Vault read): these tests hold what SQLite then stores to
/// exactly the string's bytes.
final class SQLiteTextBindingTests: XCTestCase {
    private var connection: SQLiteConnection!

    override func setUpWithError() throws {
        connection = try SQLiteConnection(inMemory: ())
        try connection.execute("CREATE TABLE texts (value TEXT)")
    }

    /// What `text` is stored as: its type as SQLite sees it and its bytes.
    private func stored(_ text: String) throws -> (type: String, bytes: [UInt8]) {
        try connection.run("DELETE FROM texts")
        try connection.run("INSERT INTO texts (value) VALUES (?)", [.text(text)])
        let rows = try connection.query("SELECT typeof(value), CAST(value AS BLOB) FROM texts") { row in
            (type: row.text(0), bytes: row.blob(1))
        }
        return try XCTUnwrap(rows.first)
    }

    func testAnEmptyTextIsStoredAsEmptyTextNotNull() throws {
        let (type, bytes) = try stored("")

        XCTAssertEqual(type, "text")
        XCTAssertEqual(bytes, [])
    }

    func testATextIsStoredByteForByteWhateverItsScript() throws {
        for text in ["group.com.example.app", "caf\u{E9}", "cafe\u{301}", "\u{1F511} key", String(repeating: "x", count: 4_096)] {
            let (type, bytes) = try stored(text)

            XCTAssertEqual(type, "text", text)
            XCTAssertEqual(bytes, Array(text.utf8), text)
        }
    }

    func testATextIsBoundByItsLengthNotUpToItsFirstNUL() throws {
        let (_, bytes) = try stored("before\u{0}after")

        XCTAssertEqual(bytes, Array("before\u{0}after".utf8))
    }

    func testABoundTextFindsTheRowStoredWithIt() throws {
        try connection.run("INSERT INTO texts (value) VALUES (?)", [.text("caf\u{E9}")])

        let precomposed = try connection.query("SELECT count(*) FROM texts WHERE value = ?", [.text("caf\u{E9}")]) { $0.integer(0) }
        let decomposed = try connection.query("SELECT count(*) FROM texts WHERE value = ?", [.text("cafe\u{301}")]) { $0.integer(0) }

        XCTAssertEqual(precomposed, [1])
        XCTAssertEqual(decomposed, [0], "texts are compared as bytes, as the keyring's lookups are")
    }
}
