import Foundation
import GRDB
import Keyring
import SealedStorage
import SystemPackage

/// A SQLite database in a group's container, opened by several processes of the group at once:
/// the "Core Data store in the App Group", done so that the processes cooperate.
///
/// ```swift
/// var migrator = DatabaseMigrator()
/// migrator.registerMigration("v1") { db in
///     try db.create(table: "note") { t in t.autoIncrementedPrimaryKey("id"); t.column("text", .text) }
/// }
/// let database = try GroupDatabase(name: "notes", group: group, keyring: keyring, migrator: migrator)
/// try database.pool.write { db in try db.execute(sql: "INSERT INTO note (text) VALUES (?)", arguments: ["hi"]) }
///
/// // Another process of the group:
/// for await _ in try database.changes() { reloadNotes() }
/// ```
///
/// What opening does, and why:
/// - **Refused unless entitled**: the identity must be entitled to `group` as an application
///   group (the container is the application group's), as `containerURL` requires.
/// - **File modes of the group's sharing**: the database file is created 0600 (owner only) or
///   0660 (`unixGroup` sharing) in a directory of 0700 or 2770, before SQLite opens it; SQLite
///   gives the `-wal` and `-shm` files it creates the database file's mode. An existing file
///   with another owner, a wider mode, a second hard link, or that is not a regular file (a
///   symbolic link, a FIFO, a directory) is refused, and so are such `-wal` and `-shm` files.
/// - **The file SQLite opens is the file vetted**: the directory is held open, the file vetted
///   relative to it, and every connection GRDB opens (the writer, each reader) first proves
///   that the descriptor SQLite holds is that file (same device and inode, still regular with
///   one link), before any statement reads or writes it. A member of the group who swaps the
///   file or the directory for a link or another file while this process waits for the open
///   lock is refused, not followed into another database of this user's.
/// - **Defensive SQLite**: every connection runs in `SQLITE_DBCONFIG_DEFENSIVE` mode with
///   `trusted_schema` off, so schema objects from the file (which any member can write) cannot
///   call functions with side effects or corrupt the file through SQL.
/// - **Several processes at once**: a GRDB `DatabasePool` in WAL mode (readers never block the
///   writer, nor it them), IMMEDIATE write transactions (GRDB's default) and a busy timeout
///   (``defaultBusyTimeout``), so a writer waits for another process's write instead of failing.
/// - **Migrations run once** across racing processes: opening and migrating happen under an
///   exclusive `flock` on `<name>.sqlite-open.lock`, so the first opener migrates (and turns the
///   file into WAL mode) and the others then find every migration recorded by GRDB and run none.
/// - **A change signal after each commit**: see ``changes()``.
///
/// What it does **not** protect: the contents are **not encrypted at rest**. Anyone who can read
/// the container (the owner, members of the Unix group with `unixGroup` sharing, root, a
/// backup) can read and change the database, and entitlements are checked cooperatively by this
/// library, not by the kernel. Keep secrets in the keychain (`Keyring`) or in sealed Vault
/// records, and store only their identifiers here.
public final class GroupDatabase: Sendable {
    /// How long a write waits for another process's write before failing with `SQLITE_BUSY`.
    public static let defaultBusyTimeout: TimeInterval = 10
    /// The longest database name, in bytes.
    public static let maximumNameLength = 64

    /// The group whose container holds the database.
    public let group: GroupIdentifier
    /// The database's name: the file is `<container>/GroupDatabase/<name>.sqlite`.
    public let name: String
    /// The database file.
    public let url: URL
    /// The GRDB pool: read and write through it as with any GRDB database.
    public let pool: DatabasePool

    /// `GroupDatabase/` in the container, held open since the database was opened.
    let directory: DirectoryHandle
    let signal: CommitSignal
    /// The files this database's connections hold POSIX record locks on (the database and its
    /// WAL index), registered with ``RecordLockedFiles`` for as long as the pool lives.
    private let recordLockedFiles: RecordLockRegistrations

    /// Opens (creating if needed) the database `name` of `group` for `keyring`'s identity, and
    /// runs `migrator`'s migrations that have not run yet.
    ///
    /// - Parameters:
    ///   - name: 1 to ``maximumNameLength`` bytes of `A-Z a-z 0-9 . _ -`, not starting with `.`.
    ///   - group: the application group whose container holds the database.
    ///   - keyring: the identity that must be entitled to `group`.
    ///   - migrator: the schema's migrations; `nil` to run none.
    ///   - configuration: GRDB's configuration; its `busyMode` is set to a timeout of
    ///     ``defaultBusyTimeout`` unless it already has one.
    /// - Throws: ``GroupDatabaseError/Code/invalidName``,
    ///   ``GroupDatabaseError/Code/missingEntitlement``, ``GroupDatabaseError/Code/storage``
    ///   (directory or file refused), ``GroupDatabaseError/Code/database`` (SQLite, migrations).
    public init(
        name: String,
        group: GroupIdentifier,
        keyring: Keyring,
        migrator: DatabaseMigrator? = nil,
        configuration: Configuration = Configuration()
    ) throws(GroupDatabaseError) {
        if let problem = Self.problem(withName: name) {
            throw GroupDatabaseError(.invalidName, "database name \"\(UntrustedText.printable(name, limit: 80))\" \(problem); use 1 to \(Self.maximumNameLength) of A-Z a-z 0-9 . _ - without a leading '.'")
        }
        let identity = keyring.identity
        guard identity.isEntitled(toApplicationGroup: group) else {
            throw GroupDatabaseError(.missingEntitlement, "\(identity.subject) is not entitled to application group \(group): add it to com.apple.security.application-groups to use its container", remedy: .grantEntitlement(group: group.rawValue))
        }
        // The container held open, never its path: in a unixGroup home a member can swap
        // `Group Containers` (or any directory above the container) for a link to a private
        // directory of this user's at any moment, and reopening a path the keyring vetted would
        // follow it there. `GroupDatabase/` is reached from the held container by name.
        let container: DirectoryHandle?
        do {
            container = try keyring.containerDirectory(for: group)
        } catch {
            throw GroupDatabaseError(.storage, "could not open the container of \(group): \(error)", underlyingError: error)
        }
        guard let container else {
            throw GroupDatabaseError(.missingEntitlement, "the keyring gives \(identity.subject) no container for \(group)", remedy: .grantEntitlement(group: group.rawValue))
        }
        // The held container's sharing: in a unixGroup home it carries the home's group.
        let sharing = container.sharing
        let fileName = "\(name).sqlite"
        let held: DirectoryHandle
        let vetted: DatabaseFile
        do {
            held = try container.subdirectory(creating: "GroupDatabase")
            vetted = try Self.vetOrCreate(fileName, in: held)
            try DatabaseFile.vetCompanions(of: fileName, in: held)
        } catch {
            throw GroupDatabaseError(.storage, "could not prepare database \"\(name)\" of \(group): \(error)", underlyingError: error)
        }
        // Paths from here on are for SQLite's open (proven to be `vetted` by every
        // connection's first step) and for messages.
        let directory = held.path
        let file = directory.appending(fileName)

        var configuration = configuration
        if case .immediateError = configuration.busyMode {
            configuration.busyMode = .timeout(Self.defaultBusyTimeout)
        }
        // Every connection GRDB opens, now or later (readers open lazily), is checked before
        // its first statement touches the file. GRDB runs this after the caller's own
        // `prepareDatabase` steps, which must therefore not read the database.
        let recordLockedFiles = RecordLockRegistrations()
        configuration.prepareDatabase { db in
            guard let connection = db.sqliteConnection else {
                throw GroupDatabaseError(.database, "GRDB gave no SQLite connection for database \"\(name)\" of \(group)")
            }
            do {
                try SQLiteDefenses.checkOpenedFile(connection, vetted, path: file, sharing: sharing)
            } catch {
                throw GroupDatabaseError(.storage, "database \"\(name)\" of \(group) was not used: \(error)", underlyingError: error)
            }
            recordLockedFiles.register(RecordLockedFiles.Identity(device: vetted.device, inode: vetted.inode))
            if let problem = SQLiteDefenses.harden(connection) {
                throw GroupDatabaseError(.database, "database \"\(name)\" of \(group) was not used: \(problem)")
            }
        }
        // Opening and migrating happen under the open lock (DatabaseFile.withOpenLock, as the
        // keyring's database): the first opener turns the file into WAL mode, which SQLite's
        // busy timeout does not cover, and migrations must run once, not once per racer.
        let pool: DatabasePool
        do {
            pool = try DatabaseFile.withOpenLock(of: fileName, in: held) { () throws -> DatabasePool in
                let pool: DatabasePool
                do {
                    pool = try DatabasePool(path: file.string, configuration: configuration)
                } catch let error as GroupDatabaseError {
                    // The prepareDatabase step's refusal, as GRDB rethrows it.
                    throw error
                } catch {
                    throw GroupDatabaseError(.database, "SQLite could not open database \"\(name)\" of \(group): \(error)", underlyingError: error)
                }
                if let migrator {
                    do {
                        try migrator.migrate(pool)
                    } catch {
                        throw GroupDatabaseError(.database, "migrating database \"\(name)\" of \(group) failed: \(error)", underlyingError: error)
                    }
                }
                return pool
            }
        } catch let error as GroupDatabaseError {
            throw error
        } catch {
            throw GroupDatabaseError(.storage, "could not lock database \"\(name)\" of \(group) for opening: \(error)", underlyingError: error)
        }
        let signal = CommitSignal(name: "\(name).sqlite-commit", in: held)
        do {
            try signal.prepare()
            // The -wal and -shm files exist now (opening in WAL mode creates them); a mode
            // wider than the sharing allows would expose the recent commits they hold, and a
            // second link or another type is refused as for the database.
            try DatabaseFile.vetCompanions(of: fileName, in: held)
            // The WAL index is where SQLite keeps its WAL read and write locks.
            if let shm = try DatabaseFile.vet(fileName + "-shm", in: held) {
                recordLockedFiles.register(RecordLockedFiles.Identity(device: shm.device, inode: shm.inode))
            }
        } catch {
            throw GroupDatabaseError(.storage, "database \"\(name)\" of \(group) has a file this process will not use: \(error)", underlyingError: error)
        }
        // After the migrations: their commits are this opener's business, not news. From here
        // on every commit of this process touches the signal file.
        pool.add(transactionObserver: signal, extent: .databaseLifetime)

        self.group = group
        self.name = name
        self.url = URL(fileURLWithPath: file.string)
        self.pool = pool
        self.directory = held
        self.signal = signal
        self.recordLockedFiles = recordLockedFiles
    }

    deinit {
        // Here rather than when the registrations are freed: GRDB's pool keeps the closure that
        // holds them for as long as it lives, which may be after this database is gone.
        recordLockedFiles.removeAll()
    }

    /// Why `name` is not a valid database name, or `nil`.
    static func problem(withName name: String) -> String? {
        let bytes = Array(name.utf8)
        if bytes.isEmpty { return "is empty" }
        if bytes.count > maximumNameLength { return "is \(bytes.count) bytes long, over the limit" }
        if bytes.first == UInt8(ascii: ".") { return "starts with '.'" }
        let allowed = { (byte: UInt8) in
            (0x61...0x7A).contains(byte) || (0x41...0x5A).contains(byte) || (0x30...0x39).contains(byte)
                || byte == UInt8(ascii: ".") || byte == UInt8(ascii: "_") || byte == UInt8(ascii: "-")
        }
        return bytes.allSatisfy(allowed) ? nil : "contains a character that is not allowed"
    }

    /// The vetted database file `name` of `directory`, created empty first (with the
    /// sharing's exact mode, published atomically so that nobody ever sees it half made) if
    /// there is none. SQLite makes an empty file a new database: the app's migrations run.
    static func vetOrCreate(_ name: String, in directory: DirectoryHandle) throws(StorageError) -> DatabaseFile {
        if let file = try DatabaseFile.vet(name, in: directory) { return file }
        let temporary = try DatabaseFile.createTemporary(for: name, in: directory)
        // false: another process published its own first; that one is vetted below.
        _ = try DatabaseFile.publish(temporary.name, as: name, in: directory)
        guard let file = try DatabaseFile.vet(name, in: directory) else {
            throw StorageError(.system(.noSuchFileOrDirectory), operation: "open database", path: directory.path.appending(name),
                               hint: "the file vanished right after it was created; another process is removing it: try again")
        }
        return file
    }
}
