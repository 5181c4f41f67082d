import CFileLayer
import SystemPackage
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

// POSIX named semaphores and shared-memory objects. On Linux both are files in /dev/shm (a
// semaphore is `sem.<name>`), a sticky directory every user of the machine can write: what is
// found under a name is vetted on an open descriptor before it is used or its mode changed.

extension Syscall {
    /// The C shim that calls the variadic `sem_open(name, O_CREAT | (exclusive ? O_EXCL : 0), mode,
    /// value)` (Swift cannot call a variadic C function); returns NULL with errno set.
    /// `sem_open(name, O_CREAT, mode, value)` (through CFileLayer's shim: sem_open is variadic):
    /// the semaphore's handle. The mode is reduced by the
    /// umask; set the exact one with ``openSemaphoreFile(_:in:)`` and ``changeMode(_:to:)``.
    package static func openSemaphore(
        _ name: String, mode: UInt16, initialValue: UInt32
    ) throws(Errno) -> UnsafeMutableRawPointer {
        try FaultInjection.check(call: .open)
        while true {
            if let handle = name.withCString({ filelayer_semaphore_create($0, 0, mode_t(mode), initialValue) }) { return handle }
            if errno == EINTR { continue }
            throw Errno(rawValue: errno)
        }
    }

    /// `sem_unlink(3)`; a name that is already gone is not an error.
    package static func unlinkSemaphore(_ name: String) throws(Errno) {
        try FaultInjection.check(call: .unlink)
        guard sem_unlink(name) != 0 else { return }
        guard errno == ENOENT else { throw Errno(rawValue: errno) }
    }

    /// `shm_open(3)` of `name` with `O_RDWR | O_CLOEXEC` and, when `create` is set,
    /// `O_CREAT | O_EXCL` and `mode` (reduced by the umask).
    package static func openSharedMemory(_ name: String, create: Bool, mode: UInt16) throws(Errno) -> FileDescriptor {
        try FaultInjection.check(call: .open)
        let flags = O_RDWR | O_CLOEXEC | (create ? O_CREAT | O_EXCL : 0)
        while true {
            let descriptor = shm_open(name, flags, mode_t(mode))
            if descriptor >= 0 { return FileDescriptor(rawValue: descriptor) }
            if errno == EINTR { continue }
            throw Errno(rawValue: errno)
        }
    }

    /// `shm_unlink(3)`; a name that is already gone is not an error.
    package static func unlinkSharedMemory(_ name: String) throws(Errno) {
        try FaultInjection.check(call: .unlink)
        guard shm_unlink(name) != 0 else { return }
        guard errno == ENOENT else { throw Errno(rawValue: errno) }
    }

    #if os(Linux)
    /// The file glibc keeps the named semaphore `name` (`/<name>`) in: `sem.<name>` in
    /// `/dev/shm`, opened read-only with `O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC` relative to the
    /// opened `/dev/shm`, so that its owner, type and link count can be checked and its mode set
    /// on the descriptor. `nil` when there is no such file.
    package static func openSemaphoreFile(_ name: String) throws(Errno) -> FileDescriptor? {
        // One component after the leading slash, as sem_open itself requires.
        guard name.hasPrefix("/"), name.utf8.count > 1, !name.dropFirst().contains("/") else { throw .invalidArgument }
        let directory = try open(FilePath("/dev/shm"), .readOnly, options: [.directory, .noFollow, .closeOnExec])
        defer { close(directory) }
        do {
            return try open("sem." + name.dropFirst(), in: directory, .readOnly, options: [.noFollow, .nonBlocking, .closeOnExec])
        } catch .noSuchFileOrDirectory {
            return nil
        }
    }
    #endif
}
