import SystemPackage

/// An exclusive or shared cross-process lock held with `flock(2)` on a dedicated lock file.
///
/// Why `flock` and a separate file: classic POSIX `fcntl` locks belong to the process and
/// vanish when *any* descriptor of the file is closed, so a library that opened the data file
/// elsewhere would silently drop its lock; and a data file is replaced by rename, so a lock on
/// it would guard an inode that is no longer the file. A lock file is never renamed, and an
/// `flock` belongs to its open file description, so two threads of one process exclude each
/// other too. The kernel drops the lock when its holder dies, so a killed writer never wedges
/// the others.
///
/// Lock files live where others may plant files (a group container's `GroupVault/locks`), so:
/// the file is opened with `O_NONBLOCK | O_NOFOLLOW | O_CLOEXEC` (a FIFO cannot hang the open,
/// a symbolic link is refused); anything but a regular file with exactly one link, owned as the
/// sharing mode expects, is refused before it is locked or its mode changed (a hard link to a
/// private file would otherwise have that file's mode set by `fchmod`); in a directory shared
/// with the group, an existing lock file is vetted before it is opened at all, since closing a
/// planted second name of `keyring.db` would drop this process's SQLite locks on it
/// (``Syscall/openVetted(_:in:_:options:path:operation:vet:)``); and the wait is bounded:
/// a lock someone holds forever gives a ``StorageError`` saying so after ``defaultWaitLimit``
/// instead of hanging every writer, and so every sign-out, behind it.
package struct FileLock: ~Copyable {
    private let descriptor: FileDescriptor
    /// The lock file.
    package let path: FilePath

    /// How long a lock is waited for before giving up. Holders keep a record's lock for one
    /// atomic write (milliseconds) and the group lock for one reseal, so this is generous.
    package static let defaultWaitLimit: Duration = .seconds(30)

    /// Waits (at most `waitLimit`) until this process holds the lock at `path`, creating the
    /// lock file if needed.
    package init(exclusiveAt path: FilePath, sharing: FileSharing, waitLimit: Duration = FileLock.defaultWaitLimit) throws(StorageError) {
        try self.init(at: path, sharing: sharing, exclusive: true, waitLimit: waitLimit)
    }

    /// Waits (at most `waitLimit`) until this process holds a shared lock at `path`: any number
    /// of shared holders together, none while someone holds it exclusively.
    package init(sharedAt path: FilePath, sharing: FileSharing, waitLimit: Duration = FileLock.defaultWaitLimit) throws(StorageError) {
        try self.init(at: path, sharing: sharing, exclusive: false, waitLimit: waitLimit)
    }

    /// Waits (at most `waitLimit`) until this process holds the lock file `name` in
    /// `directory`, opened relative to the directory's descriptor (`openat`), so a directory
    /// swapped for a symbolic link after `directory` was opened is not followed.
    package init(exclusiveIn directory: DirectoryHandle, name: String, waitLimit: Duration = FileLock.defaultWaitLimit) throws(StorageError) {
        try self.init(in: directory, name: name, exclusive: true, waitLimit: waitLimit)
    }

    /// The shared counterpart of ``init(exclusiveIn:name:waitLimit:)``.
    package init(sharedIn directory: DirectoryHandle, name: String, waitLimit: Duration = FileLock.defaultWaitLimit) throws(StorageError) {
        try self.init(in: directory, name: name, exclusive: false, waitLimit: waitLimit)
    }

    private init(in directory: DirectoryHandle, name: String, exclusive: Bool, waitLimit: Duration) throws(StorageError) {
        try self.init(name, in: directory.descriptor, path: try Self.path(of: name, in: directory), sharing: directory.sharing,
                      exclusive: exclusive, waitLimit: waitLimit)
    }

    /// The path of the lock file `name` in `directory`, for messages, once `name` is checked to
    /// be one path component.
    fileprivate static func path(of name: String, in directory: DirectoryHandle) throws(StorageError) -> FilePath {
        guard !name.isEmpty, name != ".", name != "..", !name.contains("/"), !name.utf8.contains(0) else {
            throw StorageError(.wrongFileType, operation: "open lock file", path: directory.path.string + "/" + UntrustedText.printable(name),
                               hint: "a lock file name must be one path component")
        }
        return directory.path.appending(name)
    }

    /// By path, the lock file is still opened relative to its directory, opened once with
    /// `O_DIRECTORY | O_NOFOLLOW`: a lock directory swapped for a symbolic link is refused, so no
    /// lock file is created, with the group's mode, wherever the link points.
    private init(at path: FilePath, sharing: FileSharing, exclusive: Bool, waitLimit: Duration) throws(StorageError) {
        let directory = try ParentDirectory(of: path, lookupOnly: true, operation: "open lock file")
        try self.init(directory.name, in: directory.descriptor, path: path, sharing: sharing, exclusive: exclusive, waitLimit: waitLimit)
        _ = consume directory  // closed here, after the lock file was opened through it
    }

    /// Opens the lock file `name` in `directory` (`path` names it in messages), vets it and
    /// waits for the lock.
    private init(
        _ name: String, in directory: FileDescriptor, path: FilePath, sharing: FileSharing, exclusive: Bool, waitLimit: Duration
    ) throws(StorageError) {
        let descriptor = try Self.openChecked(name, in: directory, path: path, sharing: sharing)
        do {
            try Self.acquire(descriptor, path: path, exclusive: exclusive, waitLimit: waitLimit)
        } catch {
            try? descriptor.close()
            throw error
        }
        self.descriptor = descriptor
        self.path = path
    }

    /// Opens the lock file `name` in `directory` and vets it (``open(_:in:path:sharing:)``, then
    /// ``checkAndSetMode(_:path:sharing:)``), closing it again if it is refused. Takes no lock.
    fileprivate static func openChecked(_ name: String, in directory: FileDescriptor, path: FilePath, sharing: FileSharing) throws(StorageError) -> FileDescriptor {
        let descriptor = try open(name, in: directory, path: path, sharing: sharing)
        do {
            try checkAndSetMode(descriptor, path: path, sharing: sharing)
        } catch {
            try? descriptor.close()
            throw error
        }
        return descriptor
    }

    /// The flags every lock file is opened with. Read-only is enough for flock, and lets a group
    /// member lock a file another member created; O_NONBLOCK so that a FIFO cannot hang the open.
    private static let openOptions: FileDescriptor.OpenOptions = [.noFollow, .closeOnExec, .nonBlocking]

    /// How many times a lock file that vanishes between its lookup and its creation (another
    /// process removing and creating it, which GroupVault itself never does) is looked up again.
    private static let openAttempts = 8

    /// Opens the lock file `name` in `directory`, creating it if needed.
    ///
    /// Owner only: one `openat(O_CREAT)`, as only this user can plant a name in the directory
    /// (a same-user attacker is out of scope), and the lock is on every write path. Shared with
    /// the group: another member may have planted another name of a file this process holds
    /// POSIX record locks on (`keyring.db`) here, and opening, refusing and closing that would
    /// drop those locks (Syscalls+VettedOpen.swift). So an existing lock file is vetted before
    /// it is opened (one link, owned by a member, and empty: a lock file is never written, so a
    /// database renamed here is refused by its content), and a missing one is created with
    /// `O_EXCL`: a new inode, on which nobody holds locks.
    private static func open(_ name: String, in directory: FileDescriptor, path: FilePath, sharing: FileSharing) throws(StorageError) -> FileDescriptor {
        // The creator sets the exact mode in checkAndSetMode, whatever its umask, or another
        // member could not open the file at all.
        let permissions = FilePermissions(rawValue: CModeT(sharing.fileMode))
        guard sharing.isGroupShared else {
            return try opening(path) { () throws(Errno) in
                try Syscall.open(name, in: directory, .readOnly, options: openOptions.union(.create), permissions: permissions)
            }
        }
        for _ in 0..<openAttempts {
            let existing = try Syscall.openVetted(name, in: directory, .readOnly, options: openOptions, path: path, operation: "open lock file") {
                status throws(StorageError) in try checkExisting(status, path: path, sharing: sharing)
            }
            if let existing { return existing.descriptor }
            do {
                return try opening(path) { () throws(Errno) in
                    try Syscall.open(name, in: directory, .readOnly, options: openOptions.union([.create, .exclusiveCreate]), permissions: permissions)
                }
            } catch let error where error.kind == .system(.fileExists) {
                continue  // created by another process since the lookup: vet that one
            }
        }
        throw StorageError(.system(.fileExists), operation: "open lock file", path: path,
                           hint: "the lock file kept vanishing and reappearing while it was opened, which GroupVault never does: another process is removing it")
    }

    /// Runs `open` and names its failure as a lock file's.
    private static func opening(_ path: FilePath, _ open: () throws(Errno) -> FileDescriptor) throws(StorageError) -> FileDescriptor {
        do {
            return try open()
        } catch .tooManySymbolicLinkLevels {
            throw StorageError(.symbolicLink, operation: "open lock file", path: path)
        } catch {
            throw StorageError(.system(error), operation: "open lock file", path: path)
        }
    }

    /// What an existing lock file in a shared directory must be before it is opened, besides a
    /// regular file with one link: owned by this user or a member of its group, and empty.
    private static func checkExisting(_ status: Stat, path: FilePath, sharing: FileSharing) throws(StorageError) {
        try checkOwner(status, path: path, sharing: sharing)
        guard status.size == 0 else {
            throw StorageError(.wrongFileType, operation: "open lock file", path: path,
                               hint: "it holds \(status.size) bytes, and a lock file is always empty, so it may be another file (a database) renamed here; it was not opened: remove it and GroupVault recreates it")
        }
    }

    /// Refuses what is not a lock file this process may use, then gives one it owns the exact mode.
    private static func checkAndSetMode(_ descriptor: FileDescriptor, path: FilePath, sharing: FileSharing) throws(StorageError) {
        let status: Stat
        do {
            status = try Syscall.status(descriptor)
        } catch {
            throw StorageError(.system(error), operation: "check lock file", path: path)
        }
        guard status.type == .regular else {
            throw StorageError(.wrongFileType, operation: "open lock file", path: path,
                               hint: "a lock file must be a regular file (this one is a \(status.type)); remove it and GroupVault recreates it")
        }
        guard status.linkCount == 1 else {
            throw StorageError(.wrongFileType, operation: "open lock file", path: path,
                               hint: "it has \(status.linkCount) hard links, so it may be another file's other name, whose mode must not be changed; remove it and GroupVault recreates it")
        }
        try checkOwner(status, path: path, sharing: sharing)
        guard UInt32(status.userID.rawValue) == Syscall.effectiveUserID, UInt16(status.permissions.rawValue) & 0o7777 != sharing.fileMode else { return }
        do {
            try Syscall.changeMode(descriptor, to: sharing.fileMode)
        } catch {
            throw StorageError(.system(error), operation: "set mode of lock file", path: path)
        }
    }

    /// Refuses a lock file owned outside what `sharing` allows: the owner and group rules of
    /// every shared file (``SafeDirectory/checkOwnerAndMode(_:path:sharing:operation:forbiddenBits:)``,
    /// the home's group when it is known), no mode bits forbidden (its owner sets its mode, and
    /// a lock file is never written or read).
    private static func checkOwner(_ status: Stat, path: FilePath, sharing: FileSharing) throws(StorageError) {
        try SafeDirectory.checkOwnerAndMode(status, path: path, sharing: sharing, operation: "open lock file", forbiddenBits: 0)
    }

    /// Takes the lock without blocking, retrying with a growing pause until `waitLimit` has passed.
    fileprivate static func acquire(_ descriptor: FileDescriptor, path: FilePath, exclusive: Bool, waitLimit: Duration) throws(StorageError) {
        let clock = ContinuousClock()
        let start = clock.now
        var pause = firstPause
        while true {
            do {
                if try Syscall.tryLock(descriptor, exclusive: exclusive) { return }
            } catch {
                throw StorageError(.system(error), operation: "lock", path: path)
            }
            let waited = clock.now - start
            guard waited < waitLimit else {
                let seconds = Double(waited.components.seconds) + Double(waited.components.attoseconds) / 1e18
                throw StorageError(.system(.wouldBlock), operation: "lock", path: path,
                                   hint: "locked by another process for \(Self.rounded(seconds)) s; a writer holds it for milliseconds, so its holder is stuck or the file was planted: find the holder with `fuser` or `lsof`, or remove the file")
            }
            Syscall.pause(min(pause, waitLimit - waited))
            pause = self.pause(after: pause)
        }
    }

    /// The first pause between two tries of a held lock: a writer holds it for milliseconds.
    fileprivate static let firstPause = Duration.milliseconds(1)

    /// The pause after `pause`: doubled, up to 50 ms, so a long wait costs few tries and a short
    /// one little latency.
    fileprivate static func pause(after pause: Duration) -> Duration {
        min(pause * 2, .milliseconds(50))
    }

    private static func rounded(_ seconds: Double) -> String {
        let tenths = (seconds * 10).rounded()
        return tenths.truncatingRemainder(dividingBy: 10) == 0 ? "\(Int(tenths / 10))" : "\(tenths / 10)"
    }

    deinit {
        // Closing the only descriptor of this open file description releases the flock.
        try? descriptor.close()
    }
}

/// A lock file held open by a long-lived owner, locked and unlocked for each of its operations:
/// where ``FileLock`` opens and vets the file for every lock (five system calls besides the
/// `flock`), this does it once, and a lock costs two `flock`s.
///
/// The file is opened and vetted as ``FileLock`` does it. The lock belongs to this object's open
/// file description: two objects exclude each other, in one process or several; two threads
/// sharing one object do not, so its owner serialises its own callers (as ``FileLock`` users
/// do not need to). A lock file removed while it is held open would leave this object locking
/// a file nobody else opens; GroupVault never removes one, and whoever can remove it can
/// equally write the files it guards.
package final class HeldLockFile: Sendable {
    private let descriptor: FileDescriptor
    /// The lock file.
    package let path: FilePath

    /// Opens (creating it if needed) and vets the lock file `name` in `directory`, relative to
    /// the directory's descriptor. Takes no lock.
    package init(in directory: DirectoryHandle, name: String) throws(StorageError) {
        let path = try FileLock.path(of: name, in: directory)
        descriptor = try FileLock.openChecked(name, in: directory.descriptor, path: path, sharing: directory.sharing)
        self.path = path
    }

    deinit {
        try? descriptor.close()
    }

    /// Waits (at most `waitLimit`) until this object holds the lock, exclusive or shared.
    package func lock(exclusive: Bool, waitLimit: Duration = FileLock.defaultWaitLimit) throws(StorageError) {
        try FileLock.acquire(descriptor, path: path, exclusive: exclusive, waitLimit: waitLimit)
    }

    /// Waits, without a limit and without holding a thread, until this object holds the lock,
    /// trying again after the pauses ``lock(exclusive:waitLimit:)`` makes: for a lock held across
    /// a long piece of async work (a network round), which a waiter must be able to give up on.
    /// - Returns: `true` once the lock is held; `false` when the task was cancelled first.
    package func lockUnlessCancelled(exclusive: Bool) async throws(StorageError) -> Bool {
        var pause = FileLock.firstPause
        while try !tryLock(exclusive: exclusive) {
            do {
                try await Task.sleep(for: pause)
            } catch {
                return false
            }
            pause = FileLock.pause(after: pause)
        }
        return true
    }

    /// Takes the lock if nobody else holds it: `true` when taken.
    package func tryLock(exclusive: Bool) throws(StorageError) -> Bool {
        do {
            return try Syscall.tryLock(descriptor, exclusive: exclusive)
        } catch {
            throw StorageError(.system(error), operation: "lock", path: path)
        }
    }

    /// Releases the lock this object holds.
    package func unlock() {
        Syscall.unlock(descriptor)
    }
}

/// Runs `body` while holding the exclusive lock at `lockPath`.
package func withExclusiveLock<Result>(
    at lockPath: FilePath,
    sharing: FileSharing,
    waitLimit: Duration = FileLock.defaultWaitLimit,
    _ body: () throws -> Result
) throws -> Result {
    try withLock(try FileLock(exclusiveAt: lockPath, sharing: sharing, waitLimit: waitLimit), body)
}

/// Runs `body` while holding a shared lock at `lockPath` (any number of shared holders at once,
/// none while an exclusive holder has it).
package func withSharedLock<Result>(
    at lockPath: FilePath,
    sharing: FileSharing,
    waitLimit: Duration = FileLock.defaultWaitLimit,
    _ body: () throws -> Result
) throws -> Result {
    try withLock(try FileLock(sharedAt: lockPath, sharing: sharing, waitLimit: waitLimit), body)
}

/// Runs `body` while holding the exclusive lock file `name` in `directory`.
package func withExclusiveLock<Result>(
    in directory: DirectoryHandle,
    name: String,
    waitLimit: Duration = FileLock.defaultWaitLimit,
    _ body: () throws -> Result
) throws -> Result {
    try withLock(try FileLock(exclusiveIn: directory, name: name, waitLimit: waitLimit), body)
}

/// Runs `body` while holding a shared lock on the lock file `name` in `directory`.
package func withSharedLock<Result>(
    in directory: DirectoryHandle,
    name: String,
    waitLimit: Duration = FileLock.defaultWaitLimit,
    _ body: () throws -> Result
) throws -> Result {
    try withLock(try FileLock(sharedIn: directory, name: name, waitLimit: waitLimit), body)
}

private func withLock<Result>(_ lock: consuming FileLock, _ body: () throws -> Result) throws -> Result {
    let result = try body()
    _ = consume lock  // released here, after the body, whatever the optimiser would prefer
    return result
}
