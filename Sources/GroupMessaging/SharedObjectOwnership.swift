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
/// the name is refused, never used; so is anything but a regular file with one link (a hard
/// link planted at the name would otherwise have its target's mode changed).
enum SharedObjectOwnership {
    /// Checks `status` (the object's, from `fstat` of the descriptor `setMode` acts on) against
    /// `sharing`; if this user owns it, gives it the group's mode with `setMode` (`fchmod`).
    static func adopt(
        _ status: Stat, sharing: FileSharing, name: GroupIPCName, setMode: (UInt16) throws(Errno) -> Void
    ) throws(GroupMessagingError) {
        let owner = UInt32(status.userID.rawValue)
        let mode = UInt16(status.permissions.rawValue) & 0o7777
        func refusal(_ what: String, _ error: (any Error & Sendable)? = nil) -> GroupMessagingError {
            GroupMessagingError(.system, "\(name) (\(name.posixName)) \(what); it was left alone: unlink it if it is stale or was planted", underlying: error)
        }
        guard status.type == .regular else { throw refusal("is not a regular file (a \(status.type))") }
        guard status.linkCount == 1 else {
            throw refusal("has \(status.linkCount) hard links, so it may be another file's other name, whose mode must not be changed")
        }
        if owner == Syscall.effectiveUserID {
            // open(2), sem_open and shm_open applied the umask: the creator sets the mode right.
            guard mode != sharing.fileMode else { return }
            do {
                try setMode(sharing.fileMode)
            } catch {
                throw GroupMessagingError(.system, "fchmod of \(name) (\(name.posixName)) failed: \(error)", underlying: error)
            }
            return
        }
        // Someone else's: the rule every shared file of a home is held to.
        do {
            try SafeDirectory.checkOwnerAndMode(status, path: FilePath(name.posixName), sharing: sharing, operation: "use")
        } catch {
            throw refusal(
                "belongs to uid \(owner), group \(status.groupID.rawValue), mode \(String(mode & 0o777, radix: 8)): "
                    + "not this user's (uid \(Syscall.effectiveUserID)) nor shared through a group of this process with the group's mode",
                error)
        }
    }
}
