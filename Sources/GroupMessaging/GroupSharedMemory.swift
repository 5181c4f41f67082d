import Foundation
import Keyring
import SealedStorage
import SystemPackage

/// A POSIX shared-memory object of an application group, opened as a file descriptor.
///
/// Created with the group's sharing mode (0600, or 0660 for `StorageSharing.unixGroup`),
/// set with `fchmod` because `shm_open` applies the umask. One created by another member of a
/// `unixGroup` home is used as it is (only its owner may change its mode); one that is not in
/// the home's group is refused, and so is anything under the name but a regular file with one
/// link (checked with `fstat` of the opened descriptor before any `fchmod`). Map it with `mmap`,
/// size it with `ftruncate`; the caller owns the descriptor.
public enum GroupSharedMemory {
    /// Opens (creating if needed) the shared-memory object `name` for reading and writing.
    /// - Throws: ``GroupMessagingError`` when the name is not a shared-memory name, the object is
    ///   refused (see above), or `shm_open`/`fstat`/`fchmod` fail.
    public static func open(_ name: GroupIPCName, keyring: Keyring) throws(GroupMessagingError) -> FileDescriptor {
        guard name.kind == .sharedMemory else {
            throw GroupMessagingError(.invalidName, "\(name) is a \(name.kind.rawValue) name; build a GroupIPCName(.sharedMemory, ...) for shared memory")
        }
        let sharing = try SharedObjectOwnership.sharing(of: keyring, name: name)
        // Created closed to everyone else: adopt sets the home's group, then the mode.
        let descriptor = try openOrCreate(name, mode: 0o600)
        do throws(GroupMessagingError) {
            try SharedObjectOwnership.adopt(descriptor, sharing: sharing, name: name)
        } catch {
            Syscall.close(descriptor)
            throw error
        }
        return descriptor
    }

    /// Opens the object without `O_CREAT` first, and creates it (`O_EXCL`) only if it is not
    /// there: `O_CREAT` on another user's file in the sticky `/dev/shm` fails with `EACCES` where
    /// `fs.protected_regular` is set, so a second member of the group could not open it.
    private static func openOrCreate(_ name: GroupIPCName, mode: UInt16) throws(GroupMessagingError) -> FileDescriptor {
        // Two rounds: the object may be removed, or created, between the two calls.
        var last = Errno.noSuchFileOrDirectory
        for _ in 0..<2 {
            do {
                return try Syscall.openSharedMemory(name.posixName, create: false, mode: 0)
            } catch .noSuchFileOrDirectory {
                // Not there: create it below.
            } catch {
                throw GroupSemaphore.failure("shm_open", name: name, error)
            }
            do {
                return try Syscall.openSharedMemory(name.posixName, create: true, mode: mode)
            } catch .fileExists {
                last = .fileExists  // created meanwhile: open it in the next round
            } catch {
                throw GroupSemaphore.failure("shm_open", name: name, error)
            }
        }
        throw GroupSemaphore.failure("shm_open", name: name, last)
    }

    /// Removes the object's name; existing mappings stay valid.
    public static func unlink(_ name: GroupIPCName) throws(GroupMessagingError) {
        do {
            try Syscall.unlinkSharedMemory(name.posixName)
        } catch {
            throw GroupSemaphore.failure("shm_unlink", name: name, error)
        }
    }
}
