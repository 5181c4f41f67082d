import CSQLite
import SealedStorage
import SystemPackage

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The keyring's SQLite database: `Keychains/keyring.db`, one per home.
///
/// One per home rather than per access group because operations span groups (a search of every
/// group an identity has, a move between groups) and must be one transaction; and because a
/// process then keeps one connection, one set of prepared statements and one WAL, whatever
/// the number of groups. Access control between groups is not a file-permission matter here:
/// every process of the home can read every file of `Keychains/` anyway; groups are enforced by
/// the entitlement checks and by binding each row to its group cryptographically.
///
/// Settings (docs/STORAGE.md): WAL journal, `synchronous=FULL` (a commit that returned survives
/// a power loss), a busy timeout instead of failing at once under concurrency, and
/// `BEGIN IMMEDIATE` for every write, so two writers never both read and then both fail to
/// upgrade. The file is created by this code with the home's file mode before SQLite opens it;
/// SQLite gives its `-wal` and `-shm` files the database file's mode.
///
/// The database is bound to its home: the `meta` row `home` holds a keyed BLAKE2b tag computed
/// with a key derived from the home's master secret, so a database file copied from another
/// home (or made by hand) is refused on open with a reason.
///
/// A process opens each home's database once and keeps it (``shared(for:)``): the connection,
/// its prepared statements and the keys derived from the master secret live as long as the
/// process. Every use goes through one mutex; SQLite's own locks order the processes.
package final class KeyringDatabase: Sendable {
    /// The file name inside `Keychains/`.
    package static let fileName = "keyring.db"
    /// The layout of the tables; a database with another number is refused, never guessed at.
    package static let schemaVersion: Int64 = 1
    /// How long a statement waits for another process's write transaction before failing.
    package static let busyTimeoutMilliseconds: Int32 = 10_000

    /// The database file.
    package let path: FilePath
    /// The master secret the keys below were derived from.
    private let master: SymmetricKey
    /// Tags ledger rows (keyed BLAKE2b); derived once from the master secret.
    package let ledgerKey: SymmetricKey
    /// Seals item rows (XChaCha20-Poly1305); derived once from the master secret.
    let itemSealingKey: SymmetricKey
    /// Keys the BLAKE2b lookup hashes of item attributes; derived once from the master secret.
    let itemLookupKey: SymmetricKey
    // Guarded by `lock`: every use of the connection is inside `lock.withLock`.
    nonisolated(unsafe) private let connection: SQLiteConnection
    private let lock = Lock()
    /// The access groups whose items of the sealed-JSON layout this process knows to be
    /// imported (or absent), so the check costs one look per group and process.
    let itemImportsChecked = Locked<Set<GroupIdentifier>>([])
    /// The same for keysets.
    let keysetImportsChecked = Locked<Set<GroupIdentifier>>([])
    /// The same for the Vault's trust ledger (kept by `TrustLedger`, which imports it).
    package let ledgerImportsChecked = Locked<Set<GroupIdentifier>>([])
    /// Keysets read by this process, each valid for one ``changeStamp``.
    let keysets = Locked<[GroupIdentifier: (stamp: ChangeStamp, keyset: Keyset?)]>([:])
    /// Counts this process's commits: `PRAGMA data_version` changes only for other connections'.
    nonisolated(unsafe) private var localCommits: UInt64 = 0

    private static let opened = Locked<[FilePath: KeyringDatabase]>([:])

    /// The database of `home`, opened (and created, with the home's file mode) on first use in
    /// this process and kept for the process's lifetime.
    ///
    /// - Throws: ``KeyringStatus/decode`` for a file that is not a database, is corrupted or
    ///   truncated, belongs to another home, or has an unknown schema (each with its reason);
    ///   ``KeyringStatus/ioError`` and the other storage statuses when it cannot be opened.
    package static func shared(for home: KeyringHome) throws(KeyringError) -> KeyringDatabase {
        // A few lstats while master.key is unchanged (KeyringHome.masterKey: the home's two
        // directories, passphrase.wrapped, master.key). A replaced master secret must not be served
        // from keys derived from the old one: the database is opened anew, and its binding to
        // the home then decides.
        try shared(for: home, master: home.masterKey())
    }

    /// ``shared(for:)`` for a caller that already has `home`'s master secret as of now
    /// (``KeyringHome/masterKey()``).
    package static func shared(for home: KeyringHome, master: SymmetricKey) throws(KeyringError) -> KeyringDatabase {
        let path = home.databasePath
        if let database = opened.withLock({ $0[path] }), database.master.constantTimeEquals(master) { return database }
        let database = try KeyringDatabase(home: home, path: path, master: master)
        return opened.withLock { table in
            // Two threads may have opened it at once: keep the first, so every caller shares one.
            if let existing = table[path], existing.master.constantTimeEquals(master) { return existing }
            table[path] = database
            return database
        }
    }

    /// Forgets every database this process opened, so the next use opens the file anew. For
    /// tests that replace or damage the file behind an open connection.
    package static func closeAll() {
        opened.withLock { $0.removeAll() }
    }

    private init(home: KeyringHome, path: FilePath, master: SymmetricKey) throws(KeyringError) {
        self.path = path
        self.master = master
        try home.prepareKeychains()
        ledgerKey = KeyDerivation.deriveKey(from: master, context: "GVKEYRNG", id: 4)
        let bindingKey = KeyDerivation.deriveKey(from: master, context: "GVKEYRNG", id: 3)
        itemSealingKey = KeyDerivation.deriveKey(from: master, context: "GVKEYRNG", id: 5)
        itemLookupKey = KeyDerivation.deriveKey(from: master, context: "GVKEYRNG", id: 6)
        try Self.createIfAbsent(path, sharing: home.sharing)
        try home.mapStorage("open the keyring database") { () throws(StorageError) in
            try SafeFile.checkOwnership(path, sharing: home.sharing.fileSharing)
        }
        let opened: SQLiteConnection
        do {
            opened = try SQLiteConnection(openingExisting: path.string)
            try opened.execute("PRAGMA busy_timeout = \(Self.busyTimeoutMilliseconds)")
            // Before touching anything else: a file that is not a database fails here.
            try Self.enableWAL(on: opened)
            try opened.execute("PRAGMA synchronous = FULL")
            try opened.execute("BEGIN IMMEDIATE")
            do {
                try Self.createSchema(in: opened, binding: Self.bindingTag(bindingKey), path: path)
                try opened.execute("COMMIT")
            } catch {
                try? opened.execute("ROLLBACK")
                throw error
            }
        } catch let failure as SQLiteConnection.Failure {
            throw Self.error(failure, path: path)
        } catch let error as KeyringError {
            throw error
        } catch {
            throw KeyringError(.ioError, "open the keyring database \(path): \(error)")
        }
        connection = opened
    }

    // MARK: Transactions

    /// Runs `body` in a write transaction (`BEGIN IMMEDIATE` ... `COMMIT`), rolled back if
    /// `body` throws or the commit fails. A commit that returned is durable.
    ///
    /// `changesCachedState` is `false` only for transactions that change nothing a process
    /// caches (the Vault's ledger rows, which are looked up every time): they leave this
    /// process's ``ChangeStamp`` as it was, so a write's two ledger commits do not make the next
    /// key lookup read and decrypt the keyset again. Other processes' commits of any kind still
    /// change the stamp (through `PRAGMA data_version`).
    package func write<Result>(
        _ operation: String,
        changesCachedState: Bool = true,
        _ body: (borrowing Transaction) throws(KeyringError) -> Result
    ) throws(KeyringError) -> Result {
        try lock.withLock { () throws(KeyringError) -> Result in
            do throws(SQLiteConnection.Failure) {
                try connection.execute("BEGIN IMMEDIATE")
            } catch {
                throw Self.error(error, path: path, while: operation)
            }
            do {
                let result = try body(Transaction(connection: connection, path: path, operation: operation))
                // Counted before the commit: a failed commit only costs a cache refresh.
                if changesCachedState { localCommits &+= 1 }
                try connection.execute("COMMIT")
                return result
            } catch let failure as SQLiteConnection.Failure {
                try? connection.execute("ROLLBACK")
                throw Self.error(failure, path: path, while: operation)
            } catch let error as KeyringError {
                try? connection.execute("ROLLBACK")
                throw error
            } catch {
                try? connection.execute("ROLLBACK")
                throw KeyringError(.ioError, "\(operation): \(error)")
            }
        }
    }

    /// Runs `body` for reading. Each statement sees one committed state; use ``write(_:_:)``
    /// when several reads must agree.
    package func read<Result>(
        _ operation: String,
        _ body: (borrowing Transaction) throws(KeyringError) -> Result
    ) throws(KeyringError) -> Result {
        try lock.withLock { () throws(KeyringError) -> Result in
            try body(Transaction(connection: connection, path: path, operation: operation))
        }
    }

    /// Runs `body` in a read transaction (`BEGIN` ... `COMMIT`): every statement in it sees
    /// the same committed state, as of its first read, and no writer waits for it (WAL).
    package func snapshot<Result>(
        _ operation: String,
        _ body: (borrowing Transaction) throws(KeyringError) -> Result
    ) throws(KeyringError) -> Result {
        try lock.withLock { () throws(KeyringError) -> Result in
            do throws(SQLiteConnection.Failure) {
                try connection.execute("BEGIN")
            } catch {
                throw Self.error(error, path: path, while: operation)
            }
            defer { try? connection.execute("COMMIT") }
            return try body(Transaction(connection: connection, path: path, operation: operation))
        }
    }

    /// Identifies one committed state of the database as this process sees it: another
    /// connection's commit changes `PRAGMA data_version`, this process's own commits the local
    /// counter (except those that change nothing cached, ``write(_:changesCachedState:_:)``).
    /// Equal stamps mean nothing a cache holds was committed in between; reading it costs no I/O
    /// beyond what SQLite keeps in shared memory.
    package struct ChangeStamp: Equatable, Sendable {
        let dataVersion: Int64
        let localCommits: UInt64
    }

    /// The current ``ChangeStamp``.
    package func changeStamp() throws(KeyringError) -> ChangeStamp {
        try lock.withLock { () throws(KeyringError) -> ChangeStamp in
            do throws(SQLiteConnection.Failure) {
                return ChangeStamp(dataVersion: try connection.integer("PRAGMA data_version"), localCommits: localCommits)
            } catch {
                throw Self.error(error, path: path, while: "check the keyring database for changes")
            }
        }
    }

    /// The connection while ``KeyringDatabase/write(_:_:)`` or ``KeyringDatabase/read(_:_:)``
    /// holds it: statements with bound values, failures mapped to ``KeyringError``.
    package struct Transaction: ~Copyable {
        fileprivate let connection: SQLiteConnection
        fileprivate let path: FilePath
        fileprivate let operation: String

        /// Runs a statement that returns no rows; returns how many rows it changed.
        @discardableResult
        func run(_ sql: String, _ values: [SQLiteConnection.Value] = []) throws(KeyringError) -> Int {
            do {
                try connection.run(sql, values)
                return connection.changes
            } catch {
                throw KeyringDatabase.error(error, path: path, while: operation)
            }
        }

        /// Runs a query and maps each row.
        func query<Row>(_ sql: String, _ values: [SQLiteConnection.Value] = [], _ map: (SQLiteConnection.RowReader) -> Row) throws(KeyringError) -> [Row] {
            do {
                return try connection.query(sql, values, map)
            } catch {
                throw KeyringDatabase.error(error, path: path, while: operation)
            }
        }

        /// Fails like the disk would at a ``FaultPoint`` armed by a test (debug builds only).
        package func checkFault(_ point: FaultPoint) throws(KeyringError) {
            do {
                try FaultInjection.check(point)
            } catch {
                throw KeyringError(storage: StorageError(.system(error), operation: point.rawValue, path: path), while: operation)
            }
        }
    }

    // MARK: Opening

    /// Switches the connection's database to WAL, waiting for other processes that are doing
    /// the same: several processes opening a new home at once all get here together.
    ///
    /// Why a loop of our own and not just the busy timeout: switching a database that is not yet
    /// WAL takes a read lock and then asks for the write lock inside the same statement, and
    /// SQLite never calls the busy handler for that upgrade (waiting there could deadlock), so
    /// the statement fails at once with `SQLITE_BUSY` while another process holds the write lock
    /// for its own switch or its schema. The attempt is repeated, holding no lock in between,
    /// for as long as the busy timeout would have waited.
    private static func enableWAL(on connection: SQLiteConnection) throws(SQLiteConnection.Failure) {
        let clock = ContinuousClock()
        let deadline = clock.now.advanced(by: .milliseconds(Int(busyTimeoutMilliseconds)))
        while true {
            do throws(SQLiteConnection.Failure) {
                let mode = try connection.query("PRAGMA journal_mode = WAL") { $0.text(0) }.first ?? ""
                guard mode.lowercased() == "wal" else {
                    throw SQLiteConnection.Failure(code: SQLITE_ERROR, message: "journal mode is \(mode), not wal", operation: "enable WAL")
                }
                return
            } catch where error.primaryCode == SQLITE_BUSY && clock.now < deadline {
                // A few milliseconds is what another process's switch and schema take.
                usleep(UInt32.random(in: 2_000...10_000))
            }
        }
    }

    private static func createIfAbsent(_ path: FilePath, sharing: StorageSharing) throws(KeyringError) {
        let mode = sharing.fileSharing.fileMode
        let descriptor = open(path.string, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode_t(mode))
        if descriptor < 0 {
            let code = errno
            if code == EEXIST { return }
            throw KeyringError(storage: StorageError(.system(Errno(rawValue: code)), operation: "create", path: path), while: "create the keyring database")
        }
        // open() applied the umask; the mode must be exactly the home's.
        _ = fchmod(descriptor, mode_t(mode))
        _ = fsync(descriptor)
        close(descriptor)
        _ = try? AtomicFile.syncDirectory(path.removingLastComponent())
    }

    private static func createSchema(in connection: SQLiteConnection, binding: [UInt8], path: FilePath) throws {
        try connection.execute("""
            CREATE TABLE IF NOT EXISTS meta (name TEXT PRIMARY KEY, value BLOB NOT NULL) WITHOUT ROWID;
            CREATE TABLE IF NOT EXISTS ledger (
                access_group TEXT NOT NULL,
                record TEXT NOT NULL,
                confirmed INTEGER NOT NULL,
                confirmed_digest TEXT NOT NULL,
                pending INTEGER,
                pending_digest TEXT,
                tag BLOB NOT NULL,
                PRIMARY KEY (access_group, record)
            ) WITHOUT ROWID;
            CREATE TABLE IF NOT EXISTS items (
                id INTEGER PRIMARY KEY,
                access_group TEXT NOT NULL,
                item_class TEXT NOT NULL,
                key_hash BLOB NOT NULL,
                service_hash BLOB NOT NULL,
                account_hash BLOB NOT NULL,
                server_hash BLOB NOT NULL,
                reference_hash BLOB NOT NULL,
                sealed BLOB NOT NULL
            );
            CREATE UNIQUE INDEX IF NOT EXISTS items_by_key ON items (access_group, key_hash);
            CREATE INDEX IF NOT EXISTS items_by_service ON items (access_group, item_class, service_hash);
            CREATE INDEX IF NOT EXISTS items_by_account ON items (access_group, item_class, account_hash);
            CREATE INDEX IF NOT EXISTS items_by_server ON items (access_group, item_class, server_hash);
            CREATE INDEX IF NOT EXISTS items_by_reference ON items (reference_hash);
            CREATE TABLE IF NOT EXISTS keys (
                access_group TEXT NOT NULL,
                id INTEGER NOT NULL,
                status TEXT NOT NULL,
                created_at REAL NOT NULL,
                retired_at REAL,
                sealed BLOB NOT NULL,
                PRIMARY KEY (access_group, id)
            ) WITHOUT ROWID;
            CREATE TABLE IF NOT EXISTS imports (access_group TEXT NOT NULL, kind TEXT NOT NULL, PRIMARY KEY (access_group, kind)) WITHOUT ROWID;
            """)
        let tags = try connection.query("SELECT value FROM meta WHERE name = 'home'") { $0.blob(0) }
        guard let tag = tags.first else {
            // A new database: bind it to this home and record the schema.
            try connection.run("INSERT INTO meta (name, value) VALUES ('home', ?)", [.blob(binding)])
            try connection.run("INSERT INTO meta (name, value) VALUES ('schema', ?)", [.integer(schemaVersion)])
            return
        }
        guard tag.count == binding.count, zip(tag, binding).reduce(0, { $0 | ($1.0 ^ $1.1) }) == 0 else {
            throw KeyringError(.decode, "keyring database \(path) belongs to another home (its binding does not verify under this home's master key); it was not used: put back this home's own keyring.db, or move it away to start an empty one")
        }
        let version = try connection.query("SELECT value FROM meta WHERE name = 'schema'") { $0.integer(0) }.first
        guard version == schemaVersion else {
            throw KeyringError(.decode, "keyring database \(path) has schema \(version.map(String.init) ?? "none"); this GroupVault reads schema \(schemaVersion): it was not used (a newer GroupVault wrote it, or it is damaged)")
        }
    }

    private static func bindingTag(_ key: SymmetricKey) -> [UInt8] {
        Digest.keyedBLAKE2b256(Array("GroupVault keyring database".utf8), key: key)
    }

    /// Maps a SQLite failure to the status a device would report, with a reason to act on.
    fileprivate static func error(_ failure: SQLiteConnection.Failure, path: FilePath, while operation: String? = nil) -> KeyringError {
        let doing = operation.map { "\($0): " } ?? ""
        switch failure.primaryCode {
        case SQLITE_NOTADB, SQLITE_CORRUPT, SQLITE_FORMAT:
            return KeyringError(.decode, "\(doing)keyring database \(path) is damaged or is not a SQLite database (\(failure)); it was not used and will not be overwritten: restore it from a backup, or move it away to start over")
        case SQLITE_FULL:
            return KeyringError(.ioError, "\(doing)keyring database \(path): the disk is full (\(failure)); free disk space and try again")
        case SQLITE_BUSY, SQLITE_LOCKED:
            return KeyringError(.ioError, "\(doing)keyring database \(path) stayed locked by another process for \(busyTimeoutMilliseconds / 1000) s (\(failure)); try again")
        case SQLITE_READONLY, SQLITE_PERM, SQLITE_CANTOPEN:
            return KeyringError(.writePermission, "\(doing)keyring database \(path) cannot be opened for writing (\(failure)); check its owner and mode")
        default:
            return KeyringError(.ioError, "\(doing)keyring database \(path): \(failure)")
        }
    }
}
