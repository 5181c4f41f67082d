import Foundation
import Keyring
import SealedStorage
import SystemPackage

/// A POSIX shared-memory object of an application group, opened as a file descriptor.
///
/// Created with the group's sharing mode (0600, or 0660 for ``StorageSharing/unixGroup``),
/// set with `fchmod` because `shm_open` applies the umask. One created by another member of a
/// `unixGroup` home is used as it is (only its owner may change its mode); one that belongs to
/// nobody of the group is refused. Map it with `mmap`, size it with
/// `ftruncate`; the caller owns the descriptor.
public enum GroupSharedMemory {
    /// Opens (creating if needed) the shared-memory object `name` for reading and writing.
    /// - Throws: ``GroupMessagingError`` when the name is not a shared-memory name, or
    ///   `shm_open`/`fchmod` fail.
    public static func open(_ name: GroupIPCName, keyring: Keyring) throws(GroupMessagingError) -> FileDescriptor {
        guard name.kind == .sharedMemory else {
            throw GroupMessagingError(.invalidName, "\(name) is a \(name.kind.rawValue) name; build a GroupIPCName(.sharedMemory, ...) for shared memory")
        }
        let sharing = keyring.home.sharing.fileSharing
        let descriptor = try openOrCreate(name, mode: mode_t(sharing.fileMode))
        do throws(GroupMessagingError) {
            var status = stat()
            guard fstat(descriptor, &status) == 0 else { throw GroupSemaphore.failure("fstat", name: name) }
            try SharedObjectOwnership.adopt(status, sharing: sharing, name: name, call: "fchmod") { fchmod(descriptor, $0) }
        } catch {
            close(descriptor)
            throw error
        }
        return FileDescriptor(rawValue: descriptor)
    }

    /// Opens the object without `O_CREAT` first, and creates it (`O_EXCL`) only if it is not
    /// there: `O_CREAT` on another user's file in the sticky `/dev/shm` fails with `EACCES` where
    /// `fs.protected_regular` is set, so a second member of the group could not open it.
    private static func openOrCreate(_ name: GroupIPCName, mode: mode_t) throws(GroupMessagingError) -> CInt {
        // Two rounds: the object may be removed, or created, between the two calls.
        for _ in 0..<2 {
            let existing = shm_open(name.posixName, O_RDWR | O_CLOEXEC, 0)
            if existing >= 0 { return existing }
            guard errno == ENOENT else { break }
            let created = shm_open(name.posixName, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, mode)
            if created >= 0 { return created }
            guard errno == EEXIST else { break }
        }
        throw GroupSemaphore.failure("shm_open", name: name)
    }

    /// Removes the object's name; existing mappings stay valid.
    public static func unlink(_ name: GroupIPCName) throws(GroupMessagingError) {
        guard shm_unlink(name.posixName) == 0 || errno == ENOENT else { throw GroupSemaphore.failure("shm_unlink", name: name) }
    }
}
