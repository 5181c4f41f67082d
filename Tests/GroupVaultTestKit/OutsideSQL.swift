import CSQLite
import XCTest

/// SQL run on a database file through a connection of its own, as another program (a member of
/// the group, an attacker who can write the directory) would run it behind the library's back.
public enum OutsideSQL {
    /// Runs `sql` (one or more statements) on the database at `path`; a failure fails the test.
    public static func execute(_ sql: String, on path: String, file: StaticString = #filePath, line: UInt = #line) {
        var connection: OpaquePointer?
        XCTAssertEqual(sqlite3_open_v2(path, &connection, SQLITE_OPEN_READWRITE, nil), SQLITE_OK, file: file, line: line)
        defer { sqlite3_close_v2(connection) }
        var message: UnsafeMutablePointer<CChar>?
        let result = sqlite3_exec(connection, sql, nil, nil, &message)
        XCTAssertEqual(result, SQLITE_OK, message.map { String(cString: $0) } ?? "", file: file, line: line)
        sqlite3_free(message)
    }

    /// The integer in the first column of the first row `sql` returns, or `nil` when it returns
    /// no row, read through a read-only connection of its own.
    public static func integer(_ sql: String, on path: String, file: StaticString = #filePath, line: UInt = #line) -> Int64? {
        var connection: OpaquePointer?
        XCTAssertEqual(sqlite3_open_v2(path, &connection, SQLITE_OPEN_READONLY, nil), SQLITE_OK, file: file, line: line)
        defer { sqlite3_close_v2(connection) }
        var statement: OpaquePointer?
        XCTAssertEqual(sqlite3_prepare_v2(connection, sql, -1, &statement, nil), SQLITE_OK, String(cString: sqlite3_errmsg(connection)), file: file, line: line)
        defer { sqlite3_finalize(statement) }
        guard sqlite3_step(statement) == SQLITE_ROW else { return nil }
        return sqlite3_column_int64(statement, 0)
    }
}
