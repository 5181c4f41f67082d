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
///   with another owner, a wider mode or a symbolic link is refused.
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

    let directory: FilePath
    let sharing: FileSharing
    let signal: CommitSignal

    /// Opens (creating if needed) the database `name` of `group` for `keyring`'s identity, and
    /// runs `migrator`'s migrations that have not run yet.
    ///
    /// - Parameters:
    ///   - name: 1 to ``maximumNameLength`` bytes of `A-Z a-z 0-9 . _ -`, not starting with `.`.
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
            throw GroupDatabaseError(.missingEntitlement, "\(identity) is not entitled to application group \(group): add it to com.apple.security.application-groups to use its container")
        }
        let container: URL?
        do {
            container = try keyring.containerURL(for: group)
        } catch {
            throw GroupDatabaseError(.storage, "could not open the container of \(group): \(error)", cause: error)
        }
        guard let container else {
            throw GroupDatabaseError(.missingEntitlement, "the keyring gives \(identity) no container for \(group)")
        }
        let sharing = keyring.home.sharing.fileSharing
        let directory = FilePath(container.path).appending("GroupDatabase")
        let file = directory.appending("\(name).sqlite")
        do {
            try SafeDirectory.ensure(directory, sharing: sharing)
            try Self.createFile(file, sharing: sharing)
        } catch {
            throw GroupDatabaseError(.storage, "could not prepare database \"\(name)\" of \(group): \(error)", cause: error)
        }

        var configuration = configuration
        if case .immediateError = configuration.busyMode {
            configuration.busyMode = .timeout(Self.defaultBusyTimeout)
        }
        // Opening and migrating happen under an exclusive flock: the first opener turns the
        // file into WAL mode, which takes an exclusive SQLite lock that does not wait on the
        // busy timeout (racing openers failed with "database is locked" on
        // `PRAGMA journal_mode = WAL`), and migrations must run once, not once per racer.
        let pool: DatabasePool
        do {
            pool = try withExclusiveLock(at: directory.appending("\(name).sqlite-open.lock"), sharing: sharing) { () throws -> DatabasePool in
                let pool: DatabasePool
                do {
                    pool = try DatabasePool(path: file.string, configuration: configuration)
                } catch {
                    throw GroupDatabaseError(.database, "SQLite could not open database \"\(name)\" of \(group): \(error)", cause: error)
                }
                if let migrator {
                    do {
                        try migrator.migrate(pool)
                    } catch {
                        throw GroupDatabaseError(.database, "migrating database \"\(name)\" of \(group) failed: \(error)", cause: error)
                    }
                }
                return pool
            }
        } catch let error as GroupDatabaseError {
            throw error
        } catch {
            throw GroupDatabaseError(.storage, "could not lock database \"\(name)\" of \(group) for opening: \(error)", cause: error)
        }
        let signal = CommitSignal(path: directory.appending("\(name).sqlite-commit"), sharing: sharing)
        do {
            try signal.prepare()
            // The -wal and -shm files exist now (opening in WAL mode creates them); a mode
            // wider than the sharing allows would expose the recent commits they hold.
            for suffix in ["-wal", "-shm"] {
                try SafeFile.checkOwnership(FilePath(file.string + suffix), sharing: sharing)
            }
        } catch {
            throw GroupDatabaseError(.storage, "database \"\(name)\" of \(group) has a file this process will not use: \(error)", cause: error)
        }
        // After the migrations: their commits are this opener's business, not news. From here
        // on every commit of this process touches the signal file.
        pool.add(transactionObserver: signal, extent: .databaseLifetime)

        self.group = group
        self.name = name
        self.url = URL(fileURLWithPath: file.string)
        self.pool = pool
        self.directory = directory
        self.sharing = sharing
        self.signal = signal
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

    /// Creates `path` with the sharing's exact mode if it is missing (never through a symbolic
    /// link), then vets it: SQLite would otherwise create it with the process umask.
    static func createFile(_ path: FilePath, sharing: FileSharing) throws(StorageError) {
        do {
            let descriptor = try Syscall.typed {
                try FileDescriptor.open(
                    path, .readWrite, options: [.create, .exclusiveCreate, .noFollow, .closeOnExec],
                    permissions: FilePermissions(rawValue: CModeT(sharing.fileMode)))
            }
            defer { try? descriptor.close() }
            // Created by this call: the exact mode, whatever the umask.
            try Syscall.changeMode(descriptor, to: sharing.fileMode)
        } catch where error == .fileExists {
            // Someone created it before: it must be what this home allows.
        } catch {
            throw StorageError(.system(error), operation: "create", path: path)
        }
        try SafeFile.checkOwnership(path, sharing: sharing)
    }
}
