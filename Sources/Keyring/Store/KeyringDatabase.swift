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
/// upgrade. A new database is built complete under a temporary name with the home's file mode
/// and published atomically, so an existing `keyring.db` that is empty, short or unbound is
/// damage, refused, never started anew; SQLite gives its `-wal` and `-shm` files the database
/// file's mode.
///
/// Opened as untrusted input (docs/STORAGE.md, "SQLite files in shared directories"): the file
/// is vetted relative to the held `Keychains/` directory and SQLite's descriptor proven to be it
/// (``DatabaseFile``, ``SQLiteDefenses``); the connection is defensive with an untrusted schema;
/// the schema must be exactly the keyring's and that of the tables modules above adopted
/// (``ExtensionTable``; checked again when another process changes it);
/// and every write states how many rows it must change.
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
    /// The WAL pages after which a commit checkpoints (SQLite's default is 1,000).
    ///
    /// A process never closes its connection, so its WAL outlives it, and the next process to
    /// open the database while nobody else holds it open (a command-line tool, a widget started
    /// alone) rebuilds the WAL's index by reading every frame since the last checkpoint: about
    /// 1 ms for 730 frames on the benchmark's VM, an eighth of a cold read. Writers pay for the
    /// smaller bound with checkpoints four times as often (docs/ARCHITECTURE.md, "The keyring
    /// checkpoints its WAL at 256 pages").
    package static let checkpointPages = 256

    /// The database file.
    package let path: FilePath
    /// The master secret the keys below were derived from.
    private let master: SymmetricKey
    /// Seals item rows (XChaCha20-Poly1305); derived from the master secret on first use.
    ///
    /// The keys of the items are derived when first used, not on open: a process that only
    /// reads Vault records never needs them, and each is a guarded allocation (`sodium_malloc`:
    /// six system calls and fresh pages) that a cold read would pay for nothing.
    var itemSealingKey: SymmetricKey { key(id: 5) }
    /// Keys the BLAKE2b lookup hashes of item attributes; derived from the master secret on
    /// first use.
    var itemLookupKey: SymmetricKey { key(id: 6) }
    /// Seals the bytes of emulated Secure Enclave private keys inside their (already sealed)
    /// item rows (``SecureEnclaveSealing``); derived from the master secret on first use, never
    /// exported, never returned by any API.
    var secureEnclaveKey: SymmetricKey { key(id: 7) }
    // Guarded by `lock`: every use of the connection is inside `lock.withLock`.
    nonisolated(unsafe) private let connection: SQLiteConnection
    private let lock = Lock()
    /// The access groups whose items of the sealed-JSON layout this process knows to be
    /// imported (or absent), so the check costs one look per group and process.
    let itemImportsChecked = Locked<Set<GroupIdentifier>>([])
    /// The same for keysets.
    let keysetImportsChecked = Locked<Set<GroupIdentifier>>([])
    /// What modules above the keyring have established once for this database in this process
    /// (an import done, say), so that they look it up instead of asking the database again
    /// (``hasEstablished(_:)``). A few facts, so a list: a `Set<Fact>` would make each new
    /// process look `Fact`'s `Hashable` conformance up among every loaded library's.
    private let established = Locked<[Fact]>([])
    /// The tables modules above adopted in this process (``adopt(_:)``), by name, each with the
    /// schema objects it must consist of.
    private let adopted = Locked<[String: [SchemaObject]]>([:])
    /// Keys derived from the master secret (``derivedKey(id:)``, and the keyring's own item
    /// keys), by id, each derived once.
    private let derivedKeys = Locked<[UInt64: SymmetricKey]>([:])
    /// Item rows this process found consistent, by their exact bytes (``ConsistentItemRows``:
    /// sound for this object's life because its keys are fixed).
    let consistentItemRows = Locked(ConsistentItemRows())
    /// The primary-key hashes of generic-password queries, by their key's fields
    /// (``QueriedKeyDigests``: sound for this object's life because its lookup key is fixed).
    let queriedKeyDigests = Locked(QueriedKeyDigests())
    /// Tags that verified (``verifies(tag:of:derivedKeyID:name:)``), each with the id of the
    /// derived key it verified under.
    private let verifiedTags = Locked(ExactBytesMemo<String, UInt64>(capacity: 128, largestInput: 4_096))
    /// Keysets read by this process, each valid for one ``changeStamp``.
    let keysets = Locked<[GroupIdentifier: (stamp: ChangeStamp, keyset: Keyset?)]>([:])
    /// Answers to item searches, each valid for one ``ContentStamp`` (``Keyring/keepsFoundItems``).
    let keptLookups = Locked(KeptLookups())
    /// Counts this process's commits: `PRAGMA data_version` changes only for other connections'.
    nonisolated(unsafe) private var localCommits: UInt64 = 0
    /// Counts this process's flushed commits (``flushedCommitCount()``). Guarded by `lock`.
    nonisolated(unsafe) private var flushedCommits: UInt64 = 0
    /// The `PRAGMA data_version` last read, with the wal-index header read just before it
    /// (``stamp(_:)``); `nil` once this connection begins a write. Guarded by `lock`.
    nonisolated(unsafe) private var lastDataVersion: (header: WALIndexHeader, value: Int64)?
    /// Whether `PRAGMA data_version` has run on this connection, which maps the wal-index:
    /// before it, reading the header would open the `-shm` file. Guarded by `lock`.
    nonisolated(unsafe) private var walIndexIsMapped = false
    /// How many stamps ran `PRAGMA data_version` (for tests: that one did not). Guarded by `lock`.
    nonisolated(unsafe) private var dataVersionQueries = 0
    /// Whether the connection's `synchronous` is FULL, as it is opened; `false` while a
    /// deferred commit runs, or after putting FULL back failed. Guarded by `lock`.
    nonisolated(unsafe) private var synchronousIsFull = true
    /// The `PRAGMA schema_version` whose schema was last found to be exactly the keyring's.
    /// Guarded by `lock`. Another process can change the schema after this one opened the
    /// file; every write transaction compares, and checks the schema again when it moved.
    nonisolated(unsafe) private var checkedSchemaVersion: Int64

    /// By the path's text, as ``FileVersionCache``: a table keyed by `FilePath` made each new
    /// process look `FilePath`'s `Hashable` conformance up among every loaded library's.
    private static let opened = Locked<[String: KeyringDatabase]>([:])

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
        let key = path.string
        if let database = opened.withLock({ $0[key] }), database.master.constantTimeEquals(master) { return database }
        let database = try KeyringDatabase(home: home, path: path, master: master)
        return opened.withLock { table in
            // Two threads may have opened it at once: keep the first, so every caller shares one.
            if let existing = table[key], existing.master.constantTimeEquals(master) { return existing }
            table[key] = database
            return database
        }
    }

    /// Forgets every database this process opened, so the next use opens the file anew. For
    /// tests that replace or damage the file behind an open connection.
    package static func closeAll() {
        opened.withLock { $0.removeAll() }
        HomeDirectories.forgetEveryConclusion()
    }

    private init(home: KeyringHome, path: FilePath, master: SymmetricKey) throws(KeyringError) {
        self.path = path
        self.master = master
        let bindingKey = KeyDerivation.deriveKey(from: master, context: "GVKEYRNG", id: 3)
        let binding = Self.bindingTag(bindingKey)
        // Everything below is relative to the home's held `Keychains/` (created and vetted
        // when missing), never reopened by path: in a unixGroup home a member can swap
        // `Keychains` or a directory above it for a link at any moment, and the held handle
        // is the directory that was vetted. The file SQLite opens by path is proven to be the
        // one vetted here (``DatabaseFile``).
        let directory = try home.keychains()
        let file = try Self.vetOrCreate(in: directory, path: path, binding: binding)
        try Self.refuseEmptyOrTruncated(file, path: path)
        let opened: SQLiteConnection
        var schemaVersion: Int64 = 0
        do {
            opened = try Self.connect(to: file, in: directory, path: path)
            try opened.execute("PRAGMA busy_timeout = \(Self.busyTimeoutMilliseconds)")
            // Before touching anything else: a file that is not a database fails here.
            try Self.enableWAL(on: opened, in: directory)
            try opened.execute("PRAGMA synchronous = FULL")
            try opened.execute("PRAGMA wal_autocheckpoint = \(Self.checkpointPages)")
            // One read transaction: the schema and the binding are checked in one state.
            try opened.execute(.begin)
            do {
                schemaVersion = try opened.integer("PRAGMA schema_version")
                try Self.checkSchema(of: opened, path: path, adopted: [:])
                try Self.checkBinding(of: opened, binding: binding, path: path)
                try opened.execute(.commit)
            } catch {
                try? opened.execute(.rollback)
                throw error
            }
            // SQLite has opened (or created, with the database's mode) the -wal and -shm files
            // by now: vetted like the database, so a planted link or FIFO is not kept in use.
            try Self.checkCompanions(of: opened, in: directory, path: path)
        } catch let failure as SQLiteConnection.Failure {
            throw Self.error(failure, path: path)
        } catch let error as KeyringError {
            throw error
        } catch let error as StorageError {
            throw KeyringError(storage: error, while: "lock the keyring database for opening")
        } catch {
            throw KeyringError(.ioError, "open the keyring database \(path): \(error)", underlyingError: error)
        }
        connection = opened
        checkedSchemaVersion = schemaVersion
    }

    // MARK: Transactions

    /// Runs `body` in a write transaction (`BEGIN IMMEDIATE` ... `COMMIT`), rolled back if
    /// `body` throws or the commit fails. With `durability` ``CommitDurability/flushed`` (the
    /// default) a commit that returned is durable.
    ///
    /// `changesCachedState` is `false` only for transactions that change nothing a process
    /// caches (the Vault's ledger rows, which are looked up every time): they leave this
    /// process's ``ChangeStamp`` as it was, so a write's two ledger commits do not make the next
    /// key lookup read and decrypt the keyset again. Other processes' commits of any kind still
    /// change the stamp (through `PRAGMA data_version`).
    package func write<Result>(
        _ operation: String,
        changesCachedState: Bool = true,
        durability: CommitDurability = .flushed,
        _ body: (borrowing Transaction) throws(KeyringError) -> Result
    ) throws(KeyringError) -> Result {
        try lock.withLock { () throws(KeyringError) -> Result in
            lastDataVersion = nil
            do throws(SQLiteConnection.Failure) {
                try setSynchronous(for: durability)
                try connection.execute(.beginImmediate)
            } catch {
                throw Self.error(error, path: path, while: operation)
            }
            // Every other commit of this connection is flushed: FULL is put back however this
            // one ends, and if that fails the next flushed write puts it back before it begins.
            defer { if durability == .deferred { try? setSynchronous(for: .flushed) } }
            do {
                try checkSchemaUnchanged()
                let result = try body(Transaction(connection: connection, path: path, operation: operation))
                // Counted before the commit: a failed commit only costs a cache refresh.
                if changesCachedState { localCommits &+= 1 }
                try connection.execute(.commit)
                if durability == .flushed { flushedCommits &+= 1 }
                return result
            } catch let failure as SQLiteConnection.Failure {
                try? connection.execute(.rollback)
                throw Self.error(failure, path: path, while: operation)
            } catch let error as KeyringError {
                try? connection.execute(.rollback)
                throw error
            } catch {
                try? connection.execute(.rollback)
                throw KeyringError(.ioError, "\(operation): \(error)", underlyingError: error)
            }
        }
    }

    /// Whether a write transaction's commit waits for the device.
    package enum CommitDurability: Sendable {
        /// Flushed before the commit returns (`synchronous=FULL`): it survives a power loss.
        case flushed
        /// Appended to the WAL without a flush of its own (`synchronous=NORMAL`): a killed
        /// process keeps it, a power loss or an OS crash may take the database back to the
        /// state before it, never to a damaged one; the next flushed commit of any process of
        /// the home makes it durable too. For a commit whose loss the caller's protocol already
        /// survives and that a flushed commit of its own follows, such as the Vault's
        /// announcement of a write (docs/FORMAT.md, section 4).
        case deferred
    }

    /// Sets the connection's `synchronous` for a commit of `durability`, unless it is set so.
    /// Called with `lock` held, outside a transaction.
    private func setSynchronous(for durability: CommitDurability) throws(SQLiteConnection.Failure) {
        guard synchronousIsFull != (durability == .flushed) else { return }
        synchronousIsFull = false
        try connection.execute(durability == .flushed ? "PRAGMA synchronous = FULL" : "PRAGMA synchronous = NORMAL")
        synchronousIsFull = durability == .flushed
    }

    /// How many flushed commits this process made on this database: what a test counts to show
    /// which steps of an operation wait for the device.
    package func flushedCommitCount() -> UInt64 {
        lock.withLock { flushedCommits }
    }

    /// Checks the schema again, inside the caller's write transaction, if another connection
    /// changed it since it was last checked: a trigger planted while this process has the
    /// database open must not be obeyed by its next write. Costs one `PRAGMA` otherwise.
    private func checkSchemaUnchanged() throws {
        let version = try connection.integer("PRAGMA schema_version")
        guard version != checkedSchemaVersion else { return }
        try Self.checkSchema(of: connection, path: path, adopted: adopted.withLock { $0 })
        checkedSchemaVersion = version
    }

    // MARK: Tables of the modules above

    /// Makes `table` part of what this process requires of the database: creates it if the
    /// database lacks it, and otherwise refuses the database unless the table's objects are
    /// exactly what its definition makes and its recorded version is the definition's. From
    /// then on every schema check of this process (``write(_:changesCachedState:durability:_:)`` when
    /// another process changed the schema) includes the table.
    ///
    /// Call it before the first statement on the table, every time a process may be about to
    /// use it: after the first call for a database it costs one dictionary lookup.
    ///
    /// - Throws: ``KeyringStatus/decode`` for a table altered, one with a planted index, or one
    ///   of a newer version; the storage statuses when the table cannot be created.
    package func adopt(_ table: ExtensionTable) throws(KeyringError) {
        if adopted.withLock({ $0[table.name] != nil }) { return }
        let expected = Self.referenceObjects(of: table)
        try lock.withLock { () throws(KeyringError) in
            do {
                let found = try Self.objects(of: table.name, in: connection)
                if found.isEmpty {
                    try create(table, expected: expected)
                } else {
                    try Self.checkObjects(found, expected: expected, path: path)
                    try checkVersion(of: table)
                }
            } catch let failure as SQLiteConnection.Failure {
                throw Self.error(failure, path: path, while: "create the \(table.name) table of the keyring database")
            } catch let error as KeyringError {
                throw error
            } catch {
                throw KeyringError(.ioError, "create the \(table.name) table of keyring database \(path): \(error)", underlyingError: error)
            }
            adopted.withLock { $0[table.name] = expected }
        }
    }

    /// Creates `table` and records its version, in one write transaction, unless another
    /// process created it first (then that one is checked like any found table).
    private func create(_ table: ExtensionTable, expected: [SchemaObject]) throws {
        lastDataVersion = nil
        try setSynchronous(for: .flushed)
        try connection.execute(.beginImmediate)
        do {
            try checkSchemaUnchanged()
            let found = try Self.objects(of: table.name, in: connection)
            if found.isEmpty {
                for statement in table.createStatements { try connection.execute(statement) }
                try connection.run("INSERT OR REPLACE INTO meta (name, value) VALUES (?, ?)", [.text(table.versionRow), .integer(table.version)])
            } else {
                try Self.checkObjects(found, expected: expected, path: path)
                try checkVersion(of: table)
            }
            try connection.execute(.commit)
        } catch {
            try? connection.execute(.rollback)
            throw error
        }
        // This process's own schema change is not a reason to check the whole schema again.
        checkedSchemaVersion = try connection.integer("PRAGMA schema_version")
    }

    /// Refuses a table whose recorded version is not `table`'s: a newer module wrote it, and
    /// reading it as this version would misread it. No row: the table predates the row (version 1).
    private func checkVersion(of table: ExtensionTable) throws {
        let recorded = try connection.query("SELECT value FROM meta WHERE name = ?", [.text(table.versionRow)]) { $0.integer(0) }.first ?? 1
        guard recorded == table.version else {
            throw KeyringError(.decode, "keyring database \(path) holds version \(recorded) of its \(table.name) table; this GroupVault reads version \(table.version): it was not used (a newer GroupVault wrote it, or it is damaged)")
        }
    }

    /// What SQLite records for `table`'s definition (``SchemaObject/recorded(by:)``). A
    /// definition that makes an object of another table, or a trigger or a view, is a
    /// programming error of the module that wrote it, not a state of any file.
    private static func referenceObjects(of table: ExtensionTable) -> [SchemaObject] {
        let objects = SchemaObject.recorded(by: table.createStatements)
        precondition(!expectedSchema.contains { $0.table == table.name }, "extension table \(table.name) is one of the keyring's own tables")
        precondition(objects.allSatisfy { $0.table == table.name }, "the definition of extension table \(table.name) makes an object of another table")
        return objects
    }

    /// The schema objects of the file that belong to `table`.
    private static func objects(of table: String, in connection: SQLiteConnection) throws -> [SchemaObject] {
        try connection.query(SchemaObject.tableQuery, [.text(table)]) { SchemaObject($0) }
    }

    /// Refuses `found` unless it is exactly `expected`, naming what differs.
    private static func checkObjects(_ found: [SchemaObject], expected: [SchemaObject], path: FilePath) throws {
        guard SchemaObject.sorted(found) != SchemaObject.sorted(expected) else { return }
        throw schemaMismatch(found: found, expected: expected, path: path)
    }

    /// A key derived from the home's master secret under the keyring database's context
    /// `GVKEYRNG` (keyed BLAKE2b, docs/FORMAT.md), for a module above that authenticates its
    /// own rows; derived once per process. The keyring's own keys are ids 3, 5, 6 and 7, which
    /// no other module may ask for.
    package func derivedKey(id: UInt64) -> SymmetricKey {
        precondition(![3, 5, 6, 7].contains(id), "key id \(id) of the keyring database is the keyring's own")
        return key(id: id)
    }

    /// Whether `tag` is the keyed BLAKE2b-256 of `message` under ``derivedKey(id:)`` `id`
    /// (compared in constant time): how a module above authenticates a row of its own.
    ///
    /// A tag that verified is remembered with the exact bytes of `message` and `tag`, under
    /// `name` (which only narrows the search, ``ExactBytesMemo``), and the same bytes asked
    /// again are not hashed again: a warm `Vault.read` verifies its record's ledger row each
    /// time, and the hash was 3,500 of its 103,400 instructions. Sound with no invalidation:
    /// the answer is a function of the bytes and of a key fixed for this object's life, and
    /// each entry keeps the id of the key it verified under. Only verifications that succeeded
    /// are kept, at most 128.
    package func verifies(tag: [UInt8], of message: [UInt8], derivedKeyID id: UInt64, name: String) -> Bool {
        if verifiedTags.withLock({ $0.result(for: name, message, tag) }) == id { return true }
        guard constantTimeEquals(tag, Digest.keyedBLAKE2b256(message, key: derivedKey(id: id))) else { return false }
        verifiedTags.withLock { $0.remember(id, for: name, message, tag) }
        return true
    }

    /// The key of `id` under `GVKEYRNG`, derived on first use; two threads deriving it at once
    /// keep the first, so every caller uses one allocation.
    private func key(id: UInt64) -> SymmetricKey {
        if let key = derivedKeys.withLock({ $0[id] }) { return key }
        let key = KeyDerivation.deriveKey(from: master, context: "GVKEYRNG", id: id)
        return derivedKeys.withLock { keys in
            if let first = keys[id] { return first }
            keys[id] = key
            return key
        }
    }

    /// Whether `fact` was established for this database in this process (``establish(_:)``).
    package func hasEstablished(_ fact: Fact) -> Bool {
        established.withLock { $0.contains(fact) }
    }

    /// Records that `fact` holds for this database, for the rest of this process.
    package func establish(_ fact: Fact) {
        established.withLock { facts in
            if !facts.contains(fact) { facts.append(fact) }
        }
    }

    /// A fact a module above established for this database (``establish(_:)``): `kind` names
    /// the fact and its module, `subject` what it is about (an access group, say).
    package struct Fact: Hashable, Sendable {
        package let kind: String
        package let subject: String

        package init(kind: String, subject: String) {
            self.kind = kind
            self.subject = subject
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
                try connection.execute(.begin)
            } catch {
                throw Self.error(error, path: path, while: operation)
            }
            defer { try? connection.execute(.commit) }
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
        try stamp { ChangeStamp(dataVersion: $0, localCommits: localCommits) }
    }

    /// Identifies one committed content of the database as this process sees it, every commit
    /// counted: unlike ``ChangeStamp``, the Vault's ledger commits too. Another connection's
    /// commit changes `PRAGMA data_version`; every row this connection inserts, updates or
    /// deletes changes SQLite's count of them (`sqlite3_total_changes64`), whichever path made
    /// it and whether or not its transaction then committed. Equal stamps mean no row changed in
    /// between, so a verdict drawn from the rows (a record admitted by its ledger row) stands.
    package struct ContentStamp: Equatable, Sendable {
        let dataVersion: Int64
        let rowsChanged: Int64
    }

    /// The current ``ContentStamp``.
    package func contentStamp() throws(KeyringError) -> ContentStamp {
        try stamp { ContentStamp(dataVersion: $0, rowsChanged: connection.rowsChanged) }
    }

    /// A stamp made, under the lock, from `PRAGMA data_version` and what this process counts.
    ///
    /// The pragma begins and ends a read transaction: two `fcntl` locks and a statement, most
    /// of a warm read's check that nothing changed. Its answer changes only when the wal-index
    /// header differs from the one this connection last read (``WALIndexHeader``), so while the
    /// header is the one read just *before* the last pragma, the answer is that pragma's and it
    /// is not asked again. Read before, not after: a commit landing between the two then shows
    /// as a new header next time, never as an old one. This connection's own writes drop the
    /// answer (a rollback is not a new header), and they are counted by the stamps themselves.
    private func stamp<Stamp>(_ make: (_ dataVersion: Int64) -> Stamp) throws(KeyringError) -> Stamp {
        try lock.withLock { () throws(KeyringError) -> Stamp in
            let header = walIndexIsMapped ? connection.walIndexHeader() : nil
            if let header, let last = lastDataVersion, last.header == header { return make(last.value) }
            let value: Int64
            do throws(SQLiteConnection.Failure) {
                value = try connection.integer("PRAGMA data_version")
            } catch {
                throw Self.error(error, path: path, while: "check the keyring database for changes")
            }
            dataVersionQueries += 1
            walIndexIsMapped = true
            lastDataVersion = header.map { ($0, value) }
            return make(value)
        }
    }

    /// How many stamps so far asked SQLite for `PRAGMA data_version` rather than finding the
    /// wal-index header unchanged (for tests).
    package func dataVersionQueryCount() -> Int {
        lock.withLock { dataVersionQueries }
    }

    /// The connection while ``KeyringDatabase/write(_:_:)`` or ``KeyringDatabase/read(_:_:)``
    /// holds it: statements with bound values, failures mapped to ``KeyringError``.
    package struct Transaction: ~Copyable {
        fileprivate let connection: SQLiteConnection
        fileprivate let path: FilePath
        fileprivate let operation: String

        /// Runs a statement that returns no rows; returns how many rows it changed. The store's
        /// own writes use ``apply(_:_:expecting:)``, which checks that count.
        package func run(_ sql: String, _ values: [SQLiteConnection.Value] = []) throws(KeyringError) -> Int {
            do {
                try connection.run(sql, values)
                return connection.changes
            } catch {
                throw KeyringDatabase.error(error, path: path, while: operation)
            }
        }

        /// Runs a write and refuses its effect unless it changed the rows it must have: a
        /// write that SQLite reports done but that changed nothing (a planted trigger's
        /// `RAISE(IGNORE)`, a row that vanished) fails loudly, and the transaction rolls back.
        package func apply(_ sql: String, _ values: [SQLiteConnection.Value] = [], expecting expected: ExpectedChanges) throws(KeyringError) {
            let changed = try run(sql, values)
            guard expected.allows(changed) else {
                throw KeyringError(.decode, "\(operation): a write to keyring database \(path) changed \(changed) rows where it must change \(expected); nothing was committed: the database does not behave as its schema says, so restore it from a backup")
            }
        }

        /// How many rows a write must change.
        package enum ExpectedChanges: CustomStringConvertible, Sendable {
            /// Exactly this many (an insert, an update or delete of a row just read).
            case exactly(Int)
            /// Any number: a delete of whatever a group holds, whose count nothing else fixes.
            case anyNumber

            package func allows(_ count: Int) -> Bool {
                switch self {
                case .exactly(let expected): count == expected
                case .anyNumber: count >= 0
                }
            }

            package var description: String {
                switch self {
                case .exactly(let expected): "\(expected)"
                case .anyNumber: "any number of"
                }
            }
        }

        /// Runs a query and maps each row.
        package func query<Row>(_ sql: String, _ values: [SQLiteConnection.Value] = [], _ map: (SQLiteConnection.RowReader) -> Row) throws(KeyringError) -> [Row] {
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

    /// Switches the connection's database to WAL under the open lock
    /// (``DatabaseFile/withOpenLock(of:in:_:)``, the group database's too), so processes opening
    /// a new home at once wait for each other's switch instead of failing: SQLite does not wait
    /// on its own for the lock the switch takes.
    private static func enableWAL(on connection: SQLiteConnection, in directory: DirectoryHandle) throws {
        try DatabaseFile.withOpenLock(of: fileName, in: directory) {
            let mode = try connection.query("PRAGMA journal_mode = WAL") { $0.text(0) }.first ?? ""
            guard mode.lowercased() == "wal" else {
                throw SQLiteConnection.Failure(code: SQLITE_ERROR, message: "journal mode is \(mode), not wal", operation: "enable WAL")
            }
        }
    }

    /// The vetted `keyring.db` of `directory`, made first if there is none.
    ///
    /// Only a database this call created is new: it is built complete (schema, binding to
    /// the home, schema version) under a temporary name nobody else knows, and only then
    /// published as `keyring.db`, atomically and never over an existing file. Every
    /// `keyring.db` a process finds is therefore a finished database; one that is empty, short
    /// or lacks its binding is damage (or an attack), refused with a reason, never initialised
    /// again (which would mint a new key #1 and make every earlier record fail authentication).
    private static func vetOrCreate(in directory: DirectoryHandle, path: FilePath, binding: [UInt8]) throws(KeyringError) -> DatabaseFile {
        func vet() throws(KeyringError) -> DatabaseFile? {
            do {
                return try DatabaseFile.vet(fileName, in: directory)
            } catch {
                throw KeyringError(storage: error, while: "open the keyring database")
            }
        }
        if let file = try vet() { return file }
        try create(in: directory, path: path, binding: binding)
        // Ours, or the one another process published first.
        guard let file = try vet() else {
            throw KeyringError(.ioError, "keyring database \(path) vanished right after it was created; another process is removing it: try again")
        }
        return file
    }

    /// Builds a complete new database under a temporary name and publishes it as `keyring.db`
    /// unless another process published one first (then that one is used, this one removed).
    private static func create(in directory: DirectoryHandle, path: FilePath, binding: [UInt8]) throws(KeyringError) {
        let temporary: DatabaseFile
        do {
            temporary = try DatabaseFile.createTemporary(for: fileName, in: directory)
        } catch {
            throw KeyringError(storage: error, while: "create the keyring database")
        }
        do {
            try build(temporary, in: directory, binding: binding)
        } catch {
            try? DatabaseFile.discard(temporary.name, in: directory)
            throw error
        }
        do {
            _ = try DatabaseFile.publish(temporary.name, as: fileName, in: directory)
        } catch {
            throw KeyringError(storage: error, while: "create the keyring database")
        }
    }

    /// The schema, the binding and the version, in one transaction, in the unpublished
    /// `temporary` (rollback journal: the file is complete, with no companion, once this
    /// returns and its connection is closed).
    private static func build(_ temporary: DatabaseFile, in directory: DirectoryHandle, binding: [UInt8]) throws(KeyringError) {
        let path = directory.path.appending(temporary.name)
        do {
            let connection = try connect(to: temporary, in: directory, path: path)
            try connection.execute("PRAGMA synchronous = FULL")
            try connection.execute(.beginImmediate)
            do {
                for statement in schemaStatements { try connection.execute(statement) }
                try connection.run("INSERT INTO meta (name, value) VALUES ('home', ?)", [.blob(binding)])
                try connection.run("INSERT INTO meta (name, value) VALUES ('schema', ?)", [.integer(schemaVersion)])
                try connection.execute(.commit)
            } catch {
                try? connection.execute(.rollback)
                throw error
            }
        } catch let failure as SQLiteConnection.Failure {
            throw Self.error(failure, path: path, while: "create the keyring database")
        } catch let error as KeyringError {
            throw error
        } catch {
            throw KeyringError(.ioError, "create the keyring database \(path): \(error)", underlyingError: error)
        }
    }

    /// Opens `file` with SQLite (never through a link), proves the descriptor SQLite holds is
    /// that file, and hardens the connection, all before its first statement reads the file.
    private static func connect(to file: DatabaseFile, in directory: DirectoryHandle, path: FilePath) throws -> SQLiteConnection {
        do {
            try DatabaseFile.vetCompanions(of: file.name, in: directory)
        } catch {
            throw KeyringError(storage: error, while: "open the keyring database")
        }
        let connection = try SQLiteConnection(openingExisting: path.string)
        do {
            try SQLiteDefenses.checkOpenedFile(connection.handle, file, path: path, sharing: directory.sharing)
        } catch {
            throw KeyringError(storage: error, while: "open the keyring database")
        }
        connection.holdsRecordLocks(on: RecordLockedFiles.Identity(device: file.device, inode: file.inode))
        if let problem = SQLiteDefenses.harden(connection.handle) {
            throw KeyringError(.ioError, "keyring database \(path): \(problem); it was not used")
        }
        return connection
    }

    /// Refuses a `keyring.db` that cannot be a database this code published: empty, or shorter
    /// than a page, or not a whole number of pages (SQLite's page sizes are powers of two from
    /// 512 bytes). SQLite would take an empty file for a new database.
    private static func refuseEmptyOrTruncated(_ file: DatabaseFile, path: FilePath) throws(KeyringError) {
        let advice = "it was not used and will not be overwritten: restore keyring.db from a backup; only if there is none, remove it deliberately to start an empty keyring (every item and key it held is then lost)"
        if file.size == 0 {
            throw KeyringError(.decode, "keyring database \(path) is empty (0 bytes), so it lost everything it held (a truncation, a failed copy, or someone emptied it); \(advice)")
        }
        if file.size < 512 || file.size % 512 != 0 {
            throw KeyringError(.decode, "keyring database \(path) is truncated (\(file.size) bytes, not a whole number of database pages); \(advice)")
        }
    }

    /// After opening: the `-wal` and `-shm` files SQLite now uses must be regular files with one
    /// link, owned and moded like the database; and the WAL SQLite holds must be the `-wal` in
    /// the held directory.
    private static func checkCompanions(of connection: SQLiteConnection, in directory: DirectoryHandle, path: FilePath) throws(KeyringError) {
        do {
            try DatabaseFile.vetCompanions(of: fileName, in: directory)
            // The WAL index is where SQLite keeps its WAL read and write locks.
            if let shm = try DatabaseFile.vet(fileName + "-shm", in: directory) {
                connection.holdsRecordLocks(on: RecordLockedFiles.Identity(device: shm.device, inode: shm.inode))
            }
            let walName = fileName + "-wal"
            let wal = SQLiteDefenses.walFileDescriptor(connection.handle)
            if wal >= 0, let vetted = try DatabaseFile.vet(walName, in: directory) {
                try vetted.checkOpened(descriptor: wal, path: directory.path.appending(walName), sharing: directory.sharing)
            }
        } catch {
            throw KeyringError(storage: error, while: "open the keyring database")
        }
    }

    /// The keyring's tables and indexes, each statement written as SQLite records it
    /// (``SchemaObject/recorded(by:)``). Created only in a new database
    /// (``build(_:in:binding:)``); an existing one must hold exactly these objects, with this
    /// text (``checkSchema(of:path:adopted:)``), which is what the `CREATE ... IF NOT EXISTS`
    /// statements of earlier versions also recorded.
    static let schemaStatements = [
        "CREATE TABLE meta (name TEXT PRIMARY KEY, value BLOB NOT NULL) WITHOUT ROWID",
        """
        CREATE TABLE items (
            id INTEGER PRIMARY KEY,
            access_group TEXT NOT NULL,
            item_class TEXT NOT NULL,
            key_hash BLOB NOT NULL,
            service_hash BLOB NOT NULL,
            account_hash BLOB NOT NULL,
            server_hash BLOB NOT NULL,
            reference_hash BLOB NOT NULL,
            sealed BLOB NOT NULL
        )
        """,
        "CREATE UNIQUE INDEX items_by_key ON items (access_group, key_hash)",
        "CREATE INDEX items_by_service ON items (access_group, item_class, service_hash)",
        "CREATE INDEX items_by_account ON items (access_group, item_class, account_hash)",
        "CREATE INDEX items_by_server ON items (access_group, item_class, server_hash)",
        "CREATE INDEX items_by_reference ON items (reference_hash)",
        """
        CREATE TABLE keys (
            access_group TEXT NOT NULL,
            id INTEGER NOT NULL,
            status TEXT NOT NULL,
            created_at REAL NOT NULL,
            retired_at REAL,
            sealed BLOB NOT NULL,
            PRIMARY KEY (access_group, id)
        ) WITHOUT ROWID
        """,
        "CREATE TABLE imports (access_group TEXT NOT NULL, kind TEXT NOT NULL, PRIMARY KEY (access_group, kind)) WITHOUT ROWID",
    ]

    /// What ``schemaStatements`` make, as SQLite records them.
    static let expectedSchema = SchemaObject.recorded(by: schemaStatements)

    /// Refuses a database whose schema is not exactly the keyring's and the `adopted` tables':
    /// a trigger, view, index or table that this code did not create (a trigger that ignores
    /// ledger updates or item deletes would switch off rollback protection), or one of its
    /// objects altered or missing. Tables of no definition this process adopted, with their
    /// indexes, are left to the processes that use them (``ExtensionTable``); a trigger or view
    /// never is, whatever table it names.
    private static func checkSchema(of connection: SQLiteConnection, path: FilePath, adopted: [String: [SchemaObject]]) throws {
        var expected = expectedSchema
        var known = Set(expected.map(\.table))
        for (table, objects) in adopted {
            expected += objects
            known.insert(table)
        }
        let found = try connection.query(SchemaObject.query) { SchemaObject($0) }.filter { object in
            known.contains(object.table) || (object.type != "table" && object.type != "index")
        }
        try checkObjects(found, expected: expected, path: path)
    }

    /// The refusal of a schema that is not `expected`: the first object found that should not
    /// be there, or else the objects missing.
    private static func schemaMismatch(found: [SchemaObject], expected: [SchemaObject], path: FilePath) -> KeyringError {
        let advice = "it was not used and will not be changed: someone who can write the keychains directory altered it, or it is damaged; restore keyring.db from a backup"
        if let unexpected = SchemaObject.sorted(found).first(where: { !expected.contains($0) }) {
            return KeyringError(.decode, "keyring database \(path) holds a schema object the keyring never creates or one it altered: \(unexpected.printed); \(advice)")
        }
        let missing = SchemaObject.sorted(expected.filter { !found.contains($0) }).map(\.name)
        return KeyringError(.decode, "keyring database \(path) lacks part of the keyring's schema (\(missing.joined(separator: ", "))); \(advice)")
    }

    /// Refuses a database not bound to this home, or of another schema version. A database
    /// without a binding is damaged: a new one always has it (``build(_:in:binding:)``).
    private static func checkBinding(of connection: SQLiteConnection, binding: [UInt8], path: FilePath) throws {
        let tags = try connection.query("SELECT value FROM meta WHERE name = 'home'") { $0.blob(0) }
        guard let tag = tags.first else {
            throw KeyringError(.decode, "keyring database \(path) has no binding to its home, which every keyring database is created with: it is damaged or was emptied; it was not used and will not be overwritten: restore keyring.db from a backup, or remove it deliberately to start an empty keyring (every item and key it held is then lost)")
        }
        guard constantTimeEquals(tag, binding) else {
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
            return KeyringError(.decode, "\(doing)keyring database \(path) is damaged or is not a SQLite database (\(failure)); it was not used and will not be overwritten: restore it from a backup, or move it away to start over", underlyingError: failure, remedy: .restoreFromBackup(path: path.string))
        case SQLITE_FULL:
            return KeyringError(.ioError, "\(doing)keyring database \(path): the disk is full (\(failure)); free disk space and try again", underlyingError: failure, remedy: .freeSpace)
        case SQLITE_BUSY, SQLITE_LOCKED:
            return KeyringError(.ioError, "\(doing)keyring database \(path) stayed locked by another process for \(busyTimeoutMilliseconds / 1000) s (\(failure)); try again", underlyingError: failure, remedy: .retry)
        case SQLITE_READONLY, SQLITE_PERM, SQLITE_CANTOPEN:
            return KeyringError(.writePermission, "\(doing)keyring database \(path) cannot be opened for writing (\(failure)); check its owner and mode", underlyingError: failure, remedy: .fixPermissions(path: path.string))
        default:
            return KeyringError(.ioError, "\(doing)keyring database \(path): \(failure)", underlyingError: failure)
        }
    }
}
