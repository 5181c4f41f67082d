import Foundation
import SealedStorage
import SystemPackage

/// Whether this process may use a group's POSIX semaphore or shared-memory object that is
/// already there, and the mode it gets.
///
/// Only an object's owner may change its mode. Under ``StorageSharing/unixGroup`` the object
/// is often another member's (the app and its widget run as different users), so its mode is
/// set only by its owner; anyone else accepts it if it belongs to a group this process is in
/// and grants nothing to other users, as files of a shared container are accepted. `/dev/shm`
/// is shared by every user of the machine: an object someone outside the group planted under
/// the name is refused, never used.
enum SharedObjectOwnership {
    /// Checks `status` (the object's) against `sharing`; if this user owns it, gives it the
    /// group's mode with `setMode` (`chmod` or `fchmod`, which return 0 or -1 with errno).
    static func adopt(
        _ status: stat, sharing: FileSharing, name: GroupIPCName, call: String, setMode: (mode_t) -> Int32
    ) throws(GroupMessagingError) {
        if status.st_uid == geteuid() {
            // open(2), sem_open and shm_open applied the umask: the creator sets the mode right.
            let wanted = mode_t(sharing.fileMode)
            guard status.st_mode & 0o777 != wanted else { return }
            guard setMode(wanted) == 0 else { throw GroupSemaphore.failure(call, name: name) }
            return
        }
        // Someone else's: the rule every shared file of a home is held to.
        do {
            try SafeDirectory.checkOwnerAndMode(Stat(rawValue: status), path: FilePath(name.posixName), sharing: sharing, operation: "use")
        } catch {
            let mode = UInt16(status.st_mode & 0o777)
            throw GroupMessagingError(
                .system,
                "\(name) (\(name.posixName)) belongs to uid \(status.st_uid), group \(status.st_gid), mode \(String(mode, radix: 8)): "
                    + "not this user's (uid \(geteuid())) nor shared through a group of this process with the group's mode; "
                    + "it was left alone: unlink it if it is stale or was planted",
                underlying: error)
        }
    }
}
