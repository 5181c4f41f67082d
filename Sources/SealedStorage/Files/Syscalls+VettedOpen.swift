import SystemPackage

/// Opening an existing file in a shared directory so that refusing it never costs this process
/// its POSIX record locks.
///
/// Why: a POSIX record lock (`fcntl(F_SETLK)`, which SQLite uses for its database and its WAL
/// index) belongs to the process and the inode, and closing *any* descriptor of that inode
/// drops *all* of the process's record locks on it. In a directory another member of the group
/// can write, that member may hard-link a file this process has locked (`keyring.db`, which is
/// group read-write, so `fs.protected_hardlinks` allows the link) under a name this process
/// opens next: a lock file, a record, `master.key`. Opening that name, seeing two links,
/// refusing and closing it would silently release the process's SQLite locks: another process
/// could then checkpoint and reset the WAL under a reader, or two processes could both believe
/// they hold the write lock.
///
/// So the name is first looked up without being opened: `openat(O_PATH | O_NOFOLLOW)` on Linux,
/// whose descriptor can be `fstat`ed and whose close drops no record locks (`filp_close` skips
/// `locks_remove_posix` for an `O_PATH` file, `fs/open.c`). Only a regular file with exactly one
/// link that passes the caller's own checks is then opened for real, through
/// `/proc/self/fd/<descriptor>`: that magic link reopens exactly the inode vetted, however the
/// name has changed since, so there is no window between the check and the open.
///
/// One link is what proves the file is not another name of a locked file, except for a locked
/// file *renamed* to the name (its only name then): such a file is refused when its store
/// registered it in ``RecordLockedFiles``, and callers that can tell their files apart by
/// content check that too (a lock file is always empty).
extension Syscall {
    /// Opens the existing file `name` in `directory` with `mode` and `options` (`O_NOFOLLOW`
    /// and `O_CLOEXEC` are added; `O_CREAT`, `O_EXCL` and `O_TRUNC` are not honoured: this opens
    /// only what exists) after vetting it through a descriptor that opens nothing: a regular
    /// file (not a symbolic link, FIFO, device, socket or directory) with exactly one link,
    /// that is not one of the ``RecordLockedFiles``, and for which `vet` (the caller's owner,
    /// mode and size checks) does not throw.
    ///
    /// Returns the open descriptor and the status that was vetted (of the same inode), or
    /// `nil` when there is no entry `name`.
    /// - Throws: ``StorageError`` naming `path` for `operation`: ``StorageError/Kind/symbolicLink``
    ///   for a link, ``StorageError/Kind/wrongFileType`` for another kind of file or a file with
    ///   more than one link, what `vet` throws, or the system error of a call.
    ///
    /// Without `/proc` (or on a system without `O_PATH`) the name is looked up with
    /// `fstatat(AT_SYMLINK_NOFOLLOW)`, vetted, opened with `openat(O_NOFOLLOW)` and the opened
    /// descriptor checked to be the inode vetted. That leaves a window: a file linked in
    /// between the lookup and the open is opened, found not to be the one vetted, refused, and
    /// its descriptor closed, with the record locks this process held on it.
    package static func openVetted(
        _ name: String, in directory: FileDescriptor, _ mode: FileDescriptor.AccessMode, options: FileDescriptor.OpenOptions,
        path: @autoclosure () -> FilePath, operation: String,
        vet: (Stat) throws(StorageError) -> Void
    ) throws(StorageError) -> (descriptor: FileDescriptor, status: Stat)? {
        var options = options
        options.remove([.create, .exclusiveCreate, .truncate])
        #if os(Linux)
        let located: FileDescriptor
        do {
            located = try locate(name, in: directory)
        } catch .noSuchFileOrDirectory {
            return nil
        } catch {
            throw StorageError(.system(error), operation: "open", path: path())
        }
        // An O_PATH descriptor: closing it releases no record lock of this process.
        defer { close(located) }
        let status: Stat
        do {
            status = try Syscall.status(located)
        } catch {
            throw StorageError(.system(error), operation: "stat", path: path())
        }
        try checkSingleRegularFile(status, path: path(), operation: operation)
        try vet(status)
        do {
            return (try reopen(located, mode, options: options), status)
        } catch .noSuchFileOrDirectory {
            // The descriptor exists, so its magic link is missing only when /proc is not
            // mounted (a minimal container or chroot): the narrower fallback below.
        } catch {
            throw StorageError(.system(error), operation: "open", path: path())
        }
        return try openMatching(name, in: directory, mode, options: options, vetted: status, path: path(), operation: operation)
        #else
        let found: Stat?
        do {
            found = try statusIfPresent(name, in: directory)
        } catch {
            throw StorageError(.system(error), operation: "stat", path: path())
        }
        guard let status = found else { return nil }
        try checkSingleRegularFile(status, path: path(), operation: operation)
        try vet(status)
        return try openMatching(name, in: directory, mode, options: options, vetted: status, path: path(), operation: operation)
        #endif
    }

    /// The type and link count every file opened by ``openVetted(_:in:_:options:path:operation:vet:)``
    /// must have, and its not being one of the ``RecordLockedFiles``.
    private static func checkSingleRegularFile(_ status: Stat, path: @autoclosure () -> FilePath, operation: String) throws(StorageError) {
        switch status.type {
        case .regular: break
        case .symbolicLink: throw StorageError(.symbolicLink, operation: operation, path: path())
        default:
            throw StorageError(.wrongFileType, operation: operation, path: path(),
                               hint: "it must be a regular file (this one is a \(status.type)); it was not opened")
        }
        guard status.linkCount == 1 else {
            throw StorageError(.wrongFileType, operation: operation, path: path(),
                               hint: "it has \(status.linkCount) hard links, so it may be another name of a file this process uses (a SQLite database, whose locks would be dropped by closing any descriptor of it); it was not opened: remove this name")
        }
        guard !RecordLockedFiles.contains(status) else {
            throw StorageError(.wrongFileType, operation: operation, path: path(),
                               hint: "it is a file this process holds record locks on (a SQLite database or its index) under another name, so it was moved here; it was not opened, which would drop those locks: move it back")
        }
    }

    /// Opens `name` by name after it was vetted as `vetted` (looked up with `fstatat` or
    /// through a descriptor that cannot be reopened), and refuses it unless the descriptor is
    /// that same inode, still a regular file with one link: the fallback of
    /// ``openVetted(_:in:_:options:path:operation:vet:)``, with its window (see there).
    private static func openMatching(
        _ name: String, in directory: FileDescriptor, _ mode: FileDescriptor.AccessMode, options: FileDescriptor.OpenOptions,
        vetted: Stat, path: @autoclosure () -> FilePath, operation: String
    ) throws(StorageError) -> (descriptor: FileDescriptor, status: Stat)? {
        let descriptor: FileDescriptor
        do {
            descriptor = try open(name, in: directory, mode, options: options.union([.noFollow, .closeOnExec]))
        } catch .noSuchFileOrDirectory {
            return nil
        } catch .tooManySymbolicLinkLevels {
            throw StorageError(.symbolicLink, operation: operation, path: path())
        } catch {
            throw StorageError(.system(error), operation: "open", path: path())
        }
        let status: Stat
        do {
            status = try Syscall.status(descriptor)
        } catch {
            close(descriptor)
            throw StorageError(.system(error), operation: "stat", path: path())
        }
        guard status.deviceID.rawValue == vetted.deviceID.rawValue, status.inode.rawValue == vetted.inode.rawValue, status.type == .regular, status.linkCount == 1 else {
            close(descriptor)
            throw StorageError(.wrongFileType, operation: operation, path: path(),
                               hint: "the file was replaced or linked between its check and its opening; it was not used: retry")
        }
        return (descriptor, status)
    }

    #if os(Linux)
    /// `O_PATH`, which Swift's Glibc module does not export (it is behind `_GNU_SOURCE`); its
    /// value on every Linux architecture Swift supports (x86_64, arm64, riscv64).
    private static let pathOnly = FileDescriptor.OpenOptions(rawValue: 0o10000000)

    /// `openat(directory, name, O_PATH | O_NOFOLLOW | O_CLOEXEC)`: a descriptor that names the
    /// file `name` (or the symbolic link itself) without opening it. It can be `fstat`ed, not
    /// read; it needs no permission on the file; opening it runs no driver code (a FIFO does not
    /// block); and closing it drops no record lock.
    private static func locate(_ name: String, in directory: FileDescriptor) throws(Errno) -> FileDescriptor {
        try open(name, in: directory, .readOnly, options: [pathOnly, .noFollow, .closeOnExec])
    }

    /// Opens for real the inode that `located` (from ``locate(_:in:)``) names, through
    /// `/proc/self/fd/<located>`, with the permission checks of an ordinary open. `O_NOFOLLOW`
    /// is left out: it would refuse the magic link itself. ENOENT means `/proc` is not mounted.
    private static func reopen(_ located: FileDescriptor, _ mode: FileDescriptor.AccessMode, options: FileDescriptor.OpenOptions) throws(Errno) -> FileDescriptor {
        var options = options
        options.remove(.noFollow)
        options.insert(.closeOnExec)
        return try open(FilePath("/proc/self/fd/\(located.rawValue)"), mode, options: options)
    }
    #endif
}
