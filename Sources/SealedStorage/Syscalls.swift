import SystemPackage
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The system calls swift-system does not wrap (fsync, flock, rename, mkdir, fchmod, unlink),
/// each retried on EINTR and reported as a typed `Errno`. Kept in one file so the platform
/// imports and the raw C calls stay out of the logic that uses them.
package enum Syscall {
    /// The effective user id of this process.
    package static var effectiveUserID: UInt32 { UInt32(geteuid()) }

    /// Whether this process has `group` as its effective or a supplementary group.
    package static func isMember(ofGroup group: UInt32) -> Bool {
        if UInt32(getegid()) == group { return true }
        let count = getgroups(0, nil)
        guard count > 0 else { return false }
        var groups = [gid_t](repeating: 0, count: Int(count))
        let filled = getgroups(count, &groups)
        return filled > 0 && groups.prefix(Int(filled)).contains(gid_t(group))
    }

    private static func retrying(_ call: () -> Int32) throws(Errno) {
        while true {
            if call() == 0 { return }
            let code = errno
            if code == EINTR { continue }
            throw Errno(rawValue: code)
        }
    }

    /// Runs a swift-system call (declared `throws`, though it only throws `Errno`) with a typed error.
    package static func typed<Result>(_ body: () throws -> Result) throws(Errno) -> Result {
        do {
            return try body()
        } catch let error as Errno {
            throw error
        } catch {
            throw .ioError
        }
    }

    /// `fsync(2)`: the file's data and metadata reach stable storage.
    package static func sync(_ descriptor: FileDescriptor) throws(Errno) {
        try retrying { fsync(descriptor.rawValue) }
    }

    /// `open(2)` (through swift-system), with the error typed.
    package static func open(
        _ path: FilePath, _ mode: FileDescriptor.AccessMode, options: FileDescriptor.OpenOptions,
        permissions: FilePermissions? = nil
    ) throws(Errno) -> FileDescriptor {
        try typed { try FileDescriptor.open(path, mode, options: options, permissions: permissions, retryOnInterrupt: true) }
    }

    /// `fstat(2)` of an open descriptor.
    package static func status(_ descriptor: FileDescriptor) throws(Errno) -> Stat {
        try typed { try descriptor.stat(retryOnInterrupt: true) }
    }

    /// `flock(fd, LOCK_EX | LOCK_NB)` or `LOCK_SH | LOCK_NB`: `true` when this open file
    /// description now holds the lock, `false` when another holder has it (EWOULDBLOCK).
    package static func tryLock(_ descriptor: FileDescriptor, exclusive: Bool) throws(Errno) -> Bool {
        do {
            try retrying { flock(descriptor.rawValue, (exclusive ? LOCK_EX : LOCK_SH) | LOCK_NB) }
            return true
        } catch .wouldBlock {
            return false
        }
    }

    /// Sleeps for `duration` (`nanosleep`, resumed after a signal).
    package static func pause(_ duration: Duration) {
        guard duration > .zero else { return }
        let (seconds, attoseconds) = duration.components
        var request = timespec(tv_sec: Int(seconds), tv_nsec: Int(attoseconds / 1_000_000_000))
        var remaining = timespec()
        while nanosleep(&request, &remaining) != 0, errno == EINTR {
            request = remaining
        }
    }

    /// `flock(fd, LOCK_EX)`: blocks until this open file description holds the exclusive lock.
    package static func lockExclusively(_ descriptor: FileDescriptor) throws(Errno) {
        try retrying { flock(descriptor.rawValue, LOCK_EX) }
    }

    /// `flock(fd, LOCK_SH)`: blocks until this open file description holds a shared lock.
    package static func lockShared(_ descriptor: FileDescriptor) throws(Errno) {
        try retrying { flock(descriptor.rawValue, LOCK_SH) }
    }

    /// `rename(2)`: atomically replaces `destination` with `source` (same file system).
    package static func rename(_ source: FilePath, to destination: FilePath) throws(Errno) {
        try retrying {
            source.withPlatformString { from in
                destination.withPlatformString { to in Glibc_or_Darwin_rename(from, to) }
            }
        }
    }

    /// `mkdir(2)` with an exact mode; EEXIST is reported, not hidden.
    package static func makeDirectory(_ path: FilePath, mode: UInt16) throws(Errno) {
        try retrying { path.withPlatformString { mkdir($0, mode_t(mode)) } }
    }

    /// `fchmod(2)`: sets the mode regardless of the process umask.
    package static func changeMode(_ descriptor: FileDescriptor, to mode: UInt16) throws(Errno) {
        try retrying { fchmod(descriptor.rawValue, mode_t(mode)) }
    }

    /// `unlink(2)`.
    package static func unlink(_ path: FilePath) throws(Errno) {
        try retrying { path.withPlatformString { Glibc_or_Darwin_unlink($0) } }
    }

    /// ``statusIfPresent(_:)`` with the failure as a ``StorageError`` naming the path.
    package static func typedStatus(_ path: FilePath) throws(StorageError) -> Stat? {
        do {
            return try statusIfPresent(path)
        } catch {
            throw StorageError(.system(error), operation: "stat", path: path)
        }
    }

    /// `lstat(2)` that reports a missing path as `nil` instead of an error.
    package static func statusIfPresent(_ path: FilePath) throws(Errno) -> Stat? {
        do {
            return try path.stat(followTargetSymlink: false)
        } catch .noSuchFileOrDirectory {
            return nil
        }
    }
}

// The C functions share names with the Swift wrappers above; these aliases say which is meant.
@inline(__always) private func Glibc_or_Darwin_rename(_ from: UnsafePointer<CChar>, _ to: UnsafePointer<CChar>) -> Int32 {
    rename(from, to)
}

@inline(__always) private func Glibc_or_Darwin_unlink(_ path: UnsafePointer<CChar>) -> Int32 {
    unlink(path)
}
