import SystemPackage

/// An exclusive cross-process lock held with `flock(2)` on a dedicated lock file.
///
/// Why `flock` and a separate file: classic POSIX `fcntl` locks belong to the process and
/// vanish when *any* descriptor of the file is closed, so a library that opened the data file
/// elsewhere would silently drop its lock; and a data file is replaced by rename, so a lock on
/// it would guard an inode that is no longer the file. A lock file is never renamed, and an
/// `flock` belongs to its open file description, so two threads of one process exclude each
/// other too. The kernel drops the lock when its holder dies, so a killed writer never wedges
/// the others.
package struct FileLock: ~Copyable {
    private let descriptor: FileDescriptor
    /// The lock file.
    package let path: FilePath

    /// Blocks until this process holds the lock at `path`, creating the lock file if needed.
    package init(exclusiveAt path: FilePath, sharing: FileSharing) throws(StorageError) {
        try self.init(at: path, sharing: sharing, exclusive: true)
    }

    /// Blocks until this process holds a shared lock at `path`: any number of shared holders
    /// together, none while someone holds it exclusively.
    package init(sharedAt path: FilePath, sharing: FileSharing) throws(StorageError) {
        try self.init(at: path, sharing: sharing, exclusive: false)
    }

    private init(at path: FilePath, sharing: FileSharing, exclusive: Bool) throws(StorageError) {
        let descriptor: FileDescriptor
        do {
            // Read-only is enough for flock, and lets a group member lock a file another member
            // created. The creator sets the exact mode, whatever its umask, or that other member
            // could not open the file at all.
            descriptor = try Syscall.typed {
                try FileDescriptor.open(
                    path, .readOnly,
                    options: [.create, .noFollow, .closeOnExec],
                    permissions: FilePermissions(rawValue: CModeT(sharing.fileMode)))
            }
        } catch {
            throw StorageError(.system(error), operation: "open lock file", path: path)
        }
        if let status = try? descriptor.stat(), UInt32(status.userID.rawValue) == Syscall.effectiveUserID,
           UInt16(status.permissions.rawValue) & 0o7777 != sharing.fileMode {
            do {
                try Syscall.changeMode(descriptor, to: sharing.fileMode)
            } catch {
                try? descriptor.close()
                throw StorageError(.system(error), operation: "set mode of lock file", path: path)
            }
        }
        do {
            if exclusive {
                try Syscall.lockExclusively(descriptor)
            } else {
                try Syscall.lockShared(descriptor)
            }
        } catch {
            try? descriptor.close()
            throw StorageError(.system(error), operation: "lock", path: path)
        }
        self.descriptor = descriptor
        self.path = path
    }

    deinit {
        // Closing the only descriptor of this open file description releases the flock.
        try? descriptor.close()
    }
}

/// Runs `body` while holding the exclusive lock at `lockPath`.
package func withExclusiveLock<Result>(
    at lockPath: FilePath,
    sharing: FileSharing,
    _ body: () throws -> Result
) throws -> Result {
    try withLock(try FileLock(exclusiveAt: lockPath, sharing: sharing), body)
}

/// Runs `body` while holding a shared lock at `lockPath` (any number of shared holders at once,
/// none while an exclusive holder has it).
package func withSharedLock<Result>(
    at lockPath: FilePath,
    sharing: FileSharing,
    _ body: () throws -> Result
) throws -> Result {
    try withLock(try FileLock(sharedAt: lockPath, sharing: sharing), body)
}

private func withLock<Result>(_ lock: consuming FileLock, _ body: () throws -> Result) throws -> Result {
    let result = try body()
    _ = consume lock  // released here, after the body, whatever the optimiser would prefer
    return result
}
