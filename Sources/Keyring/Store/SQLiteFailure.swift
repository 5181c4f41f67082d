import CSQLite

/// A failed SQLite call in the keyring's store: the result code and SQLite's message, as GRDB's
/// `DatabaseError` keeps them. The underlying error of a ``KeyringError`` the store reports.
///
/// The message never holds bound values: the store binds every value, it never formats one
/// into SQL.
public struct SQLiteFailure: Error, Sendable, Hashable, CustomStringConvertible {
    /// The extended result code, e.g. `SQLITE_IOERR_FSYNC` (1034) or `SQLITE_FULL` (13).
    public let code: Int32
    /// What SQLite said.
    public let message: String
    /// What was being done, e.g. "open database".
    public let operation: String

    package init(code: Int32, message: String, operation: String) {
        self.code = code
        self.message = message
        self.operation = operation
    }

    /// The primary result code (the low byte of the extended one), e.g. `SQLITE_IOERR` (10).
    public var primaryCode: Int32 { code & 0xff }

    /// True for a damaged file or one that is not a SQLite database (`SQLITE_CORRUPT`, `SQLITE_NOTADB`).
    public var isCorruption: Bool { primaryCode == SQLITE_CORRUPT || primaryCode == SQLITE_NOTADB }

    /// `open database: disk I/O error (SQLite code 10)`.
    public var description: String { "\(operation): \(message) (SQLite code \(code))" }
}
