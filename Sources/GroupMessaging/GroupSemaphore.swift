import CGroupIPC
import Foundation
import Keyring
import SealedStorage
import SystemPackage

/// A POSIX named semaphore shared by the processes of an application group.
///
/// Created with the group's sharing mode (0600, or 0660 for `StorageSharing.unixGroup`),
/// set explicitly after creation because `sem_open` applies the umask. One created by another
/// member of a `unixGroup` home is used as it is (only its owner may change its mode); one that
/// is not in the home's group is refused, and so is anything under the name but a regular
/// file with one link. The semaphore outlives every process until
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
        let sharing = try SharedObjectOwnership.sharing(of: keyring, name: name)
        let handle: UnsafeMutableRawPointer
        do {
            // Created closed to everyone else: the group and then the mode are set below.
            handle = try Syscall.openSemaphore(name.posixName, mode: 0o600, initialValue: initialValue)
        } catch {
            throw Self.failure("sem_open", name: name, error)
        }
        #if os(Linux)
        // glibc keeps a named semaphore as /dev/shm/sem.<name without the slash> (and opens it
        // with O_NOFOLLOW); its mode is the one place the group's sharing can be set after the
        // umask had its say, and only its owner may set it (and its group, the home's: /dev/shm
        // is not setgid). The file is opened O_NOFOLLOW and vetted on its descriptor (a regular
        // file, one link, owned as the sharing mode expects, no ACL) before fchown and fchmod: /dev/shm is every user's, a path there is nobody's promise.
        do throws(GroupMessagingError) {
            let file: FileDescriptor?
            do {
                file = try Syscall.openSemaphoreFile(name.posixName)
            } catch {
                throw Self.failure("open /dev/shm/sem.\(name.posixName.dropFirst())", name: name, error)
            }
            guard let file else {
                throw GroupMessagingError(.system, "\(name) (\(name.posixName)) was unlinked while it was being opened; try again")
            }
            defer { Syscall.close(file) }
            try SharedObjectOwnership.adopt(file, sharing: sharing, name: name)
        } catch {
            if cgroupipc_semaphore_close(handle) != 0 {
                // The handle is unusable either way; the refusal is what the caller must see.
                assertionFailure("sem_close failed: errno \(errno)")
            }
            throw error
        }
        #endif
        // Only now: a class whose stored properties are all set runs its deinit (sem_close)
        // when its init throws, which would close the handle a second time.
        self.handle = handle
        self.name = name
    }

    deinit {
        // sem_close only unmaps; it fails only for a handle that is not a semaphore.
        let closed = cgroupipc_semaphore_close(handle)
        assert(closed == 0, "sem_close failed: errno \(errno)")
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
        do {
            try Syscall.unlinkSemaphore(name.posixName)
        } catch {
            throw failure("sem_unlink", name: name, error)
        }
    }

    static func failure(_ call: String, name: GroupIPCName) -> GroupMessagingError {
        failure(call, name: name, Errno(rawValue: errno))
    }

    static func failure(_ call: String, name: GroupIPCName, _ error: Errno) -> GroupMessagingError {
        GroupMessagingError(.system, "\(call) for \(name) (\(name.posixName)) failed: \(error)", underlyingError: error)
    }
}
