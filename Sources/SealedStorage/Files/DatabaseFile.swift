import SystemPackage
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A SQLite database file in a held directory, vetted before SQLite opens it and checked again
/// on the descriptor SQLite opened.
///
/// SQLite opens files by path, so a database cannot be opened through ``DirectoryHandle``
/// alone: between any check of the path and SQLite's `open`, a member of the group who can
/// write the directory (or one above it) can swap the file, or the directory, for a link to
/// another file of the victim's. What is vetted here is therefore the *file*, by device and
/// inode: ``vet(_:in:)`` looks the name up relative to the held directory (`fstatat`,
/// `AT_SYMLINK_NOFOLLOW`), and ``checkOpened(descriptor:)`` then `fstat`s the descriptor SQLite
/// itself opened and refuses it unless it is that same file, still regular, owned and moded
/// as the sharing allows, with one link. A swap before SQLite's open is refused there; a swap
/// after it does not matter, SQLite already holds the vetted file.
///
/// Why the vetting does not open the file itself (an `openat` and `fstat`, as everywhere else
/// in this layer): SQLite locks its database with POSIX record locks, which belong to the
/// process and the inode, not to a descriptor, and closing *any* descriptor of the file drops
/// *all* of the process's locks on it. A vetting descriptor closed while another connection
/// of the process holds its read lock would silently release that lock (and let another
/// process checkpoint and remove a WAL under it). So the only descriptors of a database file
/// this layer ever closes are those of files nobody else can have open yet: the temporary of
/// ``createTemporary(for:in:)``, before it is published.
package struct DatabaseFile: Sendable, Equatable {
    /// The name in its directory.
    package let name: String
    /// The device holding the file (`st_dev`).
    package let device: UInt64
    /// The file's inode number (`st_ino`).
    package let inode: UInt64
    /// Its size in bytes when it was vetted.
    package let size: Int64

    /// The files SQLite keeps beside a database `name`: its WAL, the WAL's shared-memory index,
    /// and the rollback journal.
    package static func companionNames(of name: String) -> [String] {
        [name + "-wal", name + "-shm", name + "-journal"]
    }

    /// Runs `body` holding the exclusive `flock` on `<name>-open.lock` in `directory`: how every
    /// GroupVault process opening the SQLite database `name` waits for the others.
    ///
    /// Why a lock and not SQLite's busy timeout alone: the first opener switches the file to
    /// WAL (and a group database's opener runs its migrations), and that switch reads and then
    /// asks for the write lock inside one statement, an upgrade SQLite never waits for (waiting
    /// there could deadlock): a racing opener fails at once with "database is locked". Under
    /// this lock the openers go one at a time, and a waiter is woken by the kernel when the
    /// holder is done, where a retry loop would poll with sleeps until a deadline. Once a file
    /// is WAL (the mode is kept in the file) the switch is a no-op and the lock is held for a
    /// moment, once per process opening the database.
    package static func withOpenLock<Result>(of name: String, in directory: DirectoryHandle, _ body: () throws -> Result) throws -> Result {
        try withExclusiveLock(in: directory, name: "\(name)-open.lock", body)
    }

    /// Looks up `name` in `directory` without following a link and vets it: a regular file,
    /// owned and moded as the directory's sharing allows, with exactly one link (a second
    /// name could be another file of the victim's that an attacker linked here). `nil` when
    /// there is no such entry.
    package static func vet(_ name: String, in directory: DirectoryHandle) throws(StorageError) -> DatabaseFile? {
        guard let status = try directory.status(of: name) else { return nil }
        try check(status, path: directory.path.appending(name), sharing: directory.sharing, operation: "vet database file")
        return DatabaseFile(name: name, status: status)
    }

    /// Vets the companions SQLite would open beside `name` (``companionNames(of:)``) that
    /// exist: each a regular file with one link, owned and moded as the sharing allows. A
    /// FIFO, a directory or a second link to another file planted as `-wal` or `-shm` is
    /// refused here, before SQLite writes into it.
    package static func vetCompanions(of name: String, in directory: DirectoryHandle) throws(StorageError) {
        for companion in companionNames(of: name) {
            guard let status = try directory.status(of: companion) else { continue }
            try check(status, path: directory.path.appending(companion), sharing: directory.sharing, operation: "vet database companion file")
        }
    }

    /// Checks the descriptor SQLite opened for this file (`descriptor` is SQLite's: it is
    /// `fstat`ed, never closed): the same device and inode as vetted, still a regular file
    /// with one link, owned and moded as `sharing` allows.
    /// - Throws: ``StorageError`` naming `path`; ``StorageError/Kind/wrongFileType`` with a
    ///   hint when SQLite holds another file than the one vetted.
    package func checkOpened(descriptor: Int32, path: FilePath, sharing: FileSharing) throws(StorageError) {
        guard descriptor >= 0 else {
            throw StorageError(.wrongFileType, operation: "check opened database", path: path,
                               hint: "SQLite's descriptor of the file could not be found (an unexpected SQLite build or VFS), so the file it opened cannot be proven to be the one vetted; it was not used")
        }
        let status: Stat
        do {
            status = try Syscall.status(FileDescriptor(rawValue: descriptor))
        } catch {
            throw StorageError(.system(error), operation: "check opened database", path: path)
        }
        try Self.check(status, path: path, sharing: sharing, operation: "check opened database")
        guard UInt64(status.deviceID.rawValue) == device, UInt64(status.inode.rawValue) == inode else {
            throw StorageError(.wrongFileType, operation: "check opened database", path: path,
                               hint: "the file SQLite opened is not the one vetted in the held directory (device \(status.deviceID.rawValue) inode \(status.inode.rawValue), expected device \(device) inode \(inode)): the file or a directory above it was replaced between the check and the open, by a link or a rename; it was not used")
        }
    }

    /// Creates a new, empty temporary file beside `name` in `directory` (`O_CREAT|O_EXCL`,
    /// never through a link), with the sharing's exact file mode whatever the umask, durable
    /// (`fsync`), and closed before anyone else can know its name. Returns the temporary, its
    /// identity taken from the creating descriptor (not looked up again by name, which another
    /// member could have replaced by then): fill it (SQLite may open it, and
    /// ``checkOpened(descriptor:path:sharing:)`` proves it is this file), then
    /// ``publish(_:as:in:)`` it.
    /// Faults armed at the system calls (`call-open`, `call-fchmod`, `call-fsync`) apply; the
    /// write steps of a Vault write (`create-temporary`, ...) deliberately do not.
    package static func createTemporary(for name: String, in directory: DirectoryHandle) throws(StorageError) -> DatabaseFile {
        let temporary = AtomicFile.temporaryPrefix(for: FilePath(name)) + SecureRandom.hex(count: AtomicFile.suffixLength / 2)
        let path = directory.path.appending(temporary)
        let file: FileDescriptor
        do {
            file = try directory.createFile(temporary, .readWrite)
        } catch {
            throw StorageError(.system(error), operation: "create database file", path: path)
        }
        let status: Stat
        do {
            try Syscall.sync(file)
            status = try Syscall.status(file)
        } catch {
            Syscall.close(file)
            try? Syscall.unlink(temporary, in: directory.descriptor)
            throw StorageError(.system(error), operation: "create database file", path: path)
        }
        // Nobody else has this file open (it was created exclusively under a random name), so
        // closing it cannot drop anyone's SQLite locks.
        Syscall.close(file)
        return DatabaseFile(name: temporary, status: status)
    }

    /// Renames `temporary` (from ``createTemporary(for:in:)``) to `name` unless `name` exists
    /// (`renameat2(RENAME_NOREPLACE)`), then `fsync`s the directory. Returns `false`, and
    /// removes the temporary, when another process published `name` first: open theirs.
    ///
    /// On a file system without `RENAME_NOREPLACE` (`EINVAL`), or a kernel without
    /// `renameat2`, the same is done with `linkat` (which never replaces either) and an
    /// `unlinkat` of the temporary; between the two the file has two links, so an opener
    /// arriving in that instant refuses it once and succeeds when it tries again.
    package static func publish(_ temporary: String, as name: String, in directory: DirectoryHandle) throws(StorageError) -> Bool {
        do {
            do {
                try Syscall.renameNoReplace(temporary, to: name, in: directory.descriptor)
            } catch .invalidArgument, .noFunction {
                try Syscall.link(temporary, in: directory.descriptor, as: name, in: directory.descriptor)
                try Syscall.unlink(temporary, in: directory.descriptor)
            }
        } catch .fileExists {
            try discard(temporary, in: directory)
            return false
        } catch {
            try? discard(temporary, in: directory)
            throw StorageError(.system(error), operation: "publish database file", path: directory.path.appending(name))
        }
        try directory.sync()
        return true
    }

    /// Removes an unpublished temporary and any companion SQLite left beside it.
    package static func discard(_ temporary: String, in directory: DirectoryHandle) throws(StorageError) {
        for entry in [temporary] + companionNames(of: temporary) {
            do {
                try Syscall.unlink(entry, in: directory.descriptor)
            } catch .noSuchFileOrDirectory {
                continue
            } catch {
                throw StorageError(.system(error), operation: "remove unpublished database file", path: directory.path.appending(entry))
            }
        }
    }

    private init(name: String, status: Stat) {
        self.name = name
        device = UInt64(status.deviceID.rawValue)
        inode = UInt64(status.inode.rawValue)
        size = status.size
    }

    /// Type, link count, owner and mode of a database file or companion.
    private static func check(_ status: Stat, path: FilePath, sharing: FileSharing, operation: String) throws(StorageError) {
        switch status.type {
        case .regular: break
        case .symbolicLink: throw StorageError(.symbolicLink, operation: operation, path: path)
        default:
            throw StorageError(.wrongFileType, operation: operation, path: path,
                               hint: "a database file must be a regular file (this one is a \(status.type)); it was not used")
        }
        guard status.linkCount == 1 else {
            throw StorageError(.wrongFileType, operation: operation, path: path,
                               hint: "it has \(status.linkCount) hard links, so it may be another file's other name; it was not used: remove the extra name deliberately once you know which file it is")
        }
        try SafeDirectory.checkOwnerAndMode(status, path: path, sharing: sharing, operation: operation)
    }
}
