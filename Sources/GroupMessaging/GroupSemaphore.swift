import CGroupIPC
import Foundation
import Keyring
import SealedStorage
import SystemPackage

/// A POSIX named semaphore shared by the processes of an application group.
///
/// Created with the group's sharing mode (0600, or 0660 for ``StorageSharing/unixGroup``),
/// set explicitly after creation because `sem_open` applies the umask. One created by another
/// member of a `unixGroup` home is used as it is (only its owner may change its mode); one that
/// belongs to nobody of the group is refused. The semaphore outlives every process until
/// ``unlink(_:)``.
public final class GroupSemaphore: @unchecked Sendable {
    // @unchecked: the handle is a sem_t*, which POSIX makes safe to use from any thread.
    private let handle: UnsafeMutableRawPointer
    /// The semaphore's name.
    public let name: GroupIPCName

    /// Opens the semaphore `name`, creating it with `initialValue` if it does not exist.
    /// - Throws: ``GroupMessagingError`` (``GroupMessagingError/Code/system``) when `sem_open`
    ///   or setting the mode fails, with the errno as the underlying cause.
    public init(_ name: GroupIPCName, initialValue: UInt32 = 0, keyring: Keyring) throws(GroupMessagingError) {
        guard name.kind == .semaphore else {
            throw GroupMessagingError(.invalidName, "\(name) is a \(name.kind.rawValue) name; build a GroupIPCName(.semaphore, ...) for a semaphore")
        }
        let sharing = keyring.home.sharing.fileSharing
        guard let handle = cgroupipc_semaphore_create(name.posixName, 0, mode_t(sharing.fileMode), initialValue) else {
            throw Self.failure("sem_open", name: name)
        }
        self.handle = handle
        self.name = name
        #if os(Linux)
        // glibc keeps a named semaphore as /dev/shm/sem.<name without the slash> (and opens it
        // with O_NOFOLLOW); its mode is the one place the group's sharing can be set after the
        // umask had its say, and only its owner may set it.
        let path = "/dev/shm/sem." + name.posixName.dropFirst()
        do throws(GroupMessagingError) {
            var status = stat()
            guard lstat(path, &status) == 0 else { throw Self.failure("lstat \(path)", name: name) }
            try SharedObjectOwnership.adopt(status, sharing: sharing, name: name, call: "chmod \(path)") { chmod(path, $0) }
        } catch {
            _ = cgroupipc_semaphore_close(handle)
            throw error
        }
        #endif
    }

    deinit {
        _ = cgroupipc_semaphore_close(handle)
    }

    /// Increments the semaphore, waking one waiter.
    public func signal() throws(GroupMessagingError) {
        guard cgroupipc_semaphore_post(handle) == 0 else { throw Self.failure("sem_post", name: name) }
    }

    /// Decrements the semaphore, blocking the calling thread while it is zero.
    public func wait() throws(GroupMessagingError) {
        while cgroupipc_semaphore_wait(handle) != 0 {
            guard errno == EINTR else { throw Self.failure("sem_wait", name: name) }
        }
    }

    /// Decrements the semaphore if it is above zero; returns whether it did.
    public func tryWait() throws(GroupMessagingError) -> Bool {
        if cgroupipc_semaphore_try_wait(handle) == 0 { return true }
        if errno == EAGAIN { return false }
        throw Self.failure("sem_trywait", name: name)
    }

    /// Removes the semaphore's name; processes that have it open keep using it.
    public static func unlink(_ name: GroupIPCName) throws(GroupMessagingError) {
        guard sem_unlink(name.posixName) == 0 || errno == ENOENT else { throw failure("sem_unlink", name: name) }
    }

    static func failure(_ call: String, name: GroupIPCName) -> GroupMessagingError {
        let error = Errno(rawValue: errno)
        return GroupMessagingError(.system, "\(call) for \(name) (\(name.posixName)) failed: \(error)", underlying: error)
    }
}
