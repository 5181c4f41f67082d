import Foundation
import Keyring
import SealedStorage
import SystemPackage

/// A POSIX shared-memory object of an application group, opened as a file descriptor.
///
/// Created with the group's sharing mode (0600, or 0660 for ``StorageSharing/unixGroup``),
/// set with `fchmod` because `shm_open` applies the umask. Map it with `mmap`, size it with
/// `ftruncate`; the caller owns the descriptor.
public enum GroupSharedMemory {
    /// Opens (creating if needed) the shared-memory object `name` for reading and writing.
    /// - Throws: ``GroupMessagingError`` when the name is not a shared-memory name, or
    ///   `shm_open`/`fchmod` fail.
    public static func open(_ name: GroupIPCName, keyring: Keyring) throws(GroupMessagingError) -> FileDescriptor {
        guard name.kind == .sharedMemory else {
            throw GroupMessagingError(.invalidName, "\(name) is a \(name.kind.rawValue) name; build a GroupIPCName(.sharedMemory, ...) for shared memory")
        }
        let mode = mode_t(keyring.home.sharing.fileSharing.fileMode)
        let descriptor = shm_open(name.posixName, O_RDWR | O_CREAT | O_CLOEXEC, mode)
        guard descriptor >= 0 else { throw GroupSemaphore.failure("shm_open", name: name) }
        guard fchmod(descriptor, mode) == 0 else {
            let error = GroupSemaphore.failure("fchmod", name: name)
            close(descriptor)
            throw error
        }
        return FileDescriptor(rawValue: descriptor)
    }

    /// Removes the object's name; existing mappings stay valid.
    public static func unlink(_ name: GroupIPCName) throws(GroupMessagingError) {
        guard shm_unlink(name.posixName) == 0 || errno == ENOENT else { throw GroupSemaphore.failure("shm_unlink", name: name) }
    }
}
