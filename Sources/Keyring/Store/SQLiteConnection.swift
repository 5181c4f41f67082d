import CSQLite
import SealedStorage

/// One connection to a SQLite database file, with the few operations the keyring's store needs:
/// statements prepared once and reused, typed binding, and errors that name what failed.
///
/// Not thread-safe by itself: ``KeyringDatabase`` serializes every use behind a mutex (the
/// connection is opened `SQLITE_OPEN_NOMUTEX`, so SQLite does not lock twice).
package final class SQLiteConnection {
    /// A failed SQLite call (``SQLiteFailure``: the type is public, as the underlying error of
    /// the keyring errors the store reports).
    package typealias Failure = SQLiteFailure

    /// The SQLite connection, for ``SQLiteDefenses``.
    let handle: OpaquePointer
    private var statements: [String: OpaquePointer] = [:]

    /// Opens (without creating) the database at `path`. The caller creates the file with the
    /// right mode first (SQLite gives its -wal and -shm files the database file's mode), and
    /// proves before the first statement that the file SQLite opened is the one it vetted
    /// (``SQLiteDefenses``).
    ///
    /// Not `SQLITE_OPEN_NOFOLLOW`: it refuses a symbolic link in *any* component of the path,
    /// above the home's root too, where links are the user's own choice (a symlinked `$HOME`),
    /// and proves nothing the descriptor check does not: it is itself a check by path, made
    /// before SQLite's open, with the same window. SQLite's unix VFS opens the final
    /// component with `O_NOFOLLOW` regardless.
    convenience init(openingExisting path: String) throws(Failure) {
        try self.init(path, flags: SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX)
    }

    /// A private in-memory database: the reference the keyring's schema is compared with.
    convenience init(inMemory: Void) throws(Failure) {
        try self.init(":memory:", flags: SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_MEMORY)
    }

    private init(_ path: String, flags: Int32) throws(Failure) {
        // SQLite has no descriptor-based open: the layer makes this one open by path, and
        // KeyringDatabase vets the file relative to its held directory first and proves, before
        // the first statement, that SQLite's descriptor is that file (DatabaseFile.checkOpened
        // through SQLiteDefenses).
        let result: Int32
        let handle: OpaquePointer?
        do {
            (result, handle) = try Syscall.openSQLiteDatabase(path, flags: flags)
        } catch {
            throw Failure(code: SQLITE_CANTOPEN, message: "\(error)", operation: "open database")
        }
        guard result == SQLITE_OK, let handle else {
            let message = handle.map { String(cString: sqlite3_errmsg($0)) } ?? "out of memory"
            if let handle { sqlite3_close_v2(handle) }
            throw Failure(code: result, message: message, operation: "open database")
        }
        self.handle = handle
        sqlite3_extended_result_codes(handle, 1)
    }

    /// The files on which this connection's SQLite holds POSIX record locks, registered with
    /// ``RecordLockedFiles`` so that the file layer never opens (and then closes, which would
    /// drop those locks) one of them found under another name.
    private var recordLockedFiles: [RecordLockedFiles.Identity] = []

    /// Registers `file` as held by this connection's record locks, until the connection closes.
    func holdsRecordLocks(on file: RecordLockedFiles.Identity) {
        RecordLockedFiles.insert(file)
        recordLockedFiles.append(file)
    }

    deinit {
        for statement in statements.values { sqlite3_finalize(statement) }
        sqlite3_close_v2(handle)
        for file in recordLockedFiles { RecordLockedFiles.remove(file) }
    }

    /// Runs SQL without results (schema, pragmas, transaction control).
    func execute(_ sql: String) throws(Failure) {
        let result = sqlite3_exec(handle, sql, nil, nil, nil)
        guard result == SQLITE_OK else { throw failure(result, "execute \(sql.prefix(60))") }
    }

    /// The statements that begin and end a transaction.
    enum TransactionControl: String {
        case begin = "BEGIN"
        case beginImmediate = "BEGIN IMMEDIATE"
        case commit = "COMMIT"
        case rollback = "ROLLBACK"
    }

    /// Runs a transaction control statement, prepared once per connection: every operation
    /// runs two, and `sqlite3_exec` parses its text each time (3,500 instructions a statement).
    func execute(_ control: TransactionControl) throws(Failure) {
        let statement = try prepared(control.rawValue)
        defer { sqlite3_reset(statement) }
        let result = sqlite3_step(statement)
        guard result == SQLITE_DONE else { throw failure(result, "execute \(control.rawValue)") }
    }

    /// How many rows this connection's statements have inserted, updated or deleted since it
    /// was opened (``KeyringDatabase/ContentStamp``).
    var rowsChanged: Int64 { sqlite3_total_changes64(handle) }

    /// The header of the database's wal-index, read without a lock or a system call
    /// (``WALIndexHeader``), or `nil` when it cannot be read consistently. Only for a connection
    /// in WAL mode that has run a read transaction: SQLite's unix VFS opens the `-shm` file on
    /// this call otherwise.
    func walIndexHeader() -> WALIndexHeader? {
        WALIndexHeader(of: handle)
    }

    /// The integer a single-value query (such as `PRAGMA data_version`) returns.
    func integer(_ sql: String) throws(Failure) -> Int64 {
        try query(sql) { row in row.integer(0) }.first ?? 0
    }

    /// Runs a statement (prepared once per connection) with `values` bound in order, and maps
    /// each result row.
    func query<Row>(_ sql: String, _ values: [Value] = [], _ map: (RowReader) -> Row) throws(Failure) -> [Row] {
        let statement = try prepared(sql)
        defer {
            sqlite3_reset(statement)
            sqlite3_clear_bindings(statement)
        }
        try bind(values, to: statement, sql: sql)
        var rows: [Row] = []
        while true {
            let result = sqlite3_step(statement)
            if result == SQLITE_DONE { return rows }
            guard result == SQLITE_ROW else { throw failure(result, "run \(sql.prefix(60))") }
            rows.append(map(RowReader(statement: statement)))
        }
    }

    /// Runs a statement that returns no rows.
    func run(_ sql: String, _ values: [Value] = []) throws(Failure) {
        _ = try query(sql, values) { _ in () }
    }

    /// How many rows the last statement changed.
    var changes: Int { Int(sqlite3_changes(handle)) }

    /// A value to bind.
    package enum Value {
        case integer(Int64)
        case real(Double)
        case text(String)
        case blob([UInt8])
        case null
    }

    /// Reads the columns of the current row.
    package struct RowReader {
        let statement: OpaquePointer

        package func isNull(_ column: Int32) -> Bool { sqlite3_column_type(statement, column) == SQLITE_NULL }
        package func integer(_ column: Int32) -> Int64 { sqlite3_column_int64(statement, column) }
        package func double(_ column: Int32) -> Double { sqlite3_column_double(statement, column) }
        package func text(_ column: Int32) -> String {
            guard let pointer = sqlite3_column_text(statement, column) else { return "" }
            return String(cString: pointer)
        }
        package func blob(_ column: Int32) -> [UInt8] {
            var bytes: [UInt8] = []
            appendBlob(column, to: &bytes)
            return bytes
        }
        /// Appends the blob in `column` to `bytes`: several columns read into one array.
        package func appendBlob(_ column: Int32, to bytes: inout [UInt8]) {
            // sqlite3_column_blob before sqlite3_column_bytes, as SQLite asks.
            guard let pointer = sqlite3_column_blob(statement, column) else { return }
            let count = Int(sqlite3_column_bytes(statement, column))
            bytes.append(contentsOf: UnsafeRawBufferPointer(start: pointer, count: count))
        }
    }

    private func prepared(_ sql: String) throws(Failure) -> OpaquePointer {
        if let statement = recentlyPrepared(sql) { return statement }
        if let statement = statements[sql] {
            remember(statement, preparedFrom: sql)
            return statement
        }
        var statement: OpaquePointer?
        let result = sqlite3_prepare_v3(handle, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &statement, nil)
        guard result == SQLITE_OK, let statement else { throw failure(result, "prepare \(sql.prefix(60))") }
        statements[sql] = statement
        remember(statement, preparedFrom: sql)
        return statement
    }

    /// Where the text of a recently used statement's SQL was stored, and the statement. The
    /// address is only ever compared, never read through: the string may be gone.
    private struct RecentStatement {
        let text: UnsafeRawPointer
        let count: Int
        let statement: OpaquePointer
    }

    /// The statements used last, found by where their SQL's text is stored: callers pass the
    /// same literal (or the same cached text) every time, and hashing it to look it up in
    /// ``statements`` was 700 to 1,400 instructions a statement, on every lookup and read.
    private var recent: [RecentStatement] = []
    private var nextRecent = 0
    private static let recentCapacity = 16

    /// The statement of `sql` if its text is stored where a recent statement's was and is that
    /// statement's SQL byte for byte (SQLite keeps the text it prepared): the address only
    /// narrows the search, since a freed string's storage can hold another text later.
    private func recentlyPrepared(_ sql: String) -> OpaquePointer? {
        sql.utf8.withContiguousStorageIfAvailable { bytes -> OpaquePointer? in
            guard let base = bytes.baseAddress else { return nil }
            let text = UnsafeRawPointer(base)
            for entry in recent where entry.text == text && entry.count == bytes.count {
                guard let kept = sqlite3_sql(entry.statement), strlen(kept) == bytes.count,
                      memcmp(kept, text, bytes.count) == 0 else { return nil }
                return entry.statement
            }
            return nil
        } ?? nil
    }

    private func remember(_ statement: OpaquePointer, preparedFrom sql: String) {
        sql.utf8.withContiguousStorageIfAvailable { bytes in
            guard let base = bytes.baseAddress else { return }
            let entry = RecentStatement(text: UnsafeRawPointer(base), count: bytes.count, statement: statement)
            if recent.count < Self.recentCapacity {
                recent.append(entry)
            } else {
                recent[nextRecent] = entry
                nextRecent = (nextRecent + 1) % Self.recentCapacity
            }
        }
    }

    private func bind(_ values: [Value], to statement: OpaquePointer, sql: String) throws(Failure) {
        for (offset, value) in values.enumerated() {
            let index = Int32(offset + 1)
            let result: Int32
            switch value {
            case .integer(let number): result = sqlite3_bind_int64(statement, index, number)
            case .real(let number): result = sqlite3_bind_double(statement, index, number)
            case .text(let string): result = Self.bind(string, to: statement, at: index)
            case .blob(let bytes):
                result = bytes.withUnsafeBytes { buffer in
                    // A zero-length blob still needs a non-null pointer, or SQLite stores NULL.
                    sqlite3_bind_blob(statement, index, buffer.baseAddress ?? UnsafeRawPointer(bitPattern: 1), Int32(buffer.count), groupvault_sqlite_transient())
                }
            case .null: result = sqlite3_bind_null(statement, index)
            }
            guard result == SQLITE_OK else { throw failure(result, "bind value \(index) of \(sql.prefix(60))") }
        }
    }

    /// Binds `text` by its length, from the string's own UTF-8 storage when it has some: passing
    /// the `String` where SQLite wants a C string made a NUL-terminated copy of it first, an array
    /// allocated and freed for every bound text (two on every lookup and every Vault read).
    /// SQLite copies the bytes (`SQLITE_TRANSIENT`) before this returns.
    private static func bind(_ text: String, to statement: OpaquePointer, at index: Int32) -> Int32 {
        let bound = text.utf8.withContiguousStorageIfAvailable { bytes -> Int32 in
            guard let count = Int32(exactly: bytes.count) else { return SQLITE_TOOBIG }
            // An empty text still needs a non-null pointer, or SQLite stores NULL.
            let start = UnsafeRawPointer(bytes.baseAddress ?? emptyText.utf8Start).assumingMemoryBound(to: CChar.self)
            return sqlite3_bind_text(statement, index, start, count, groupvault_sqlite_transient())
        }
        return bound ?? sqlite3_bind_text(statement, index, text, -1, groupvault_sqlite_transient())
    }

    private static let emptyText: StaticString = ""

    private func failure(_ code: Int32, _ operation: String) -> Failure {
        Failure(code: sqlite3_extended_errcode(handle), message: String(cString: sqlite3_errmsg(handle)), operation: operation)
    }
}
