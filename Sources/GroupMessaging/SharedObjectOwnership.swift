import Foundation
import Keyring
import SealedStorage
import SystemPackage

/// Whether this process may use a group's POSIX semaphore or shared-memory object that is
/// already there, and the group and mode it gets.
///
/// Only an object's owner may change its group and mode. Under `StorageSharing.unixGroup` the
/// object is often another member's (the app and its widget run as different users), so its
/// group and mode are set only by its owner; anyone else accepts it only if it belongs to the
/// home's group (the gid of the home's root) and grants nothing to other users. Membership in
/// *some* group of the object is not enough: `/dev/shm` is shared by every user of the machine,
/// and a user outside the app group who shares another group with this one (`users`) could
/// otherwise plant the object first in that group. Refused too, never used: an object carrying
/// a POSIX ACL (its mode bits would not show whom it admits), and anything but a regular file
/// with one link (a hard link planted at the name would otherwise have its target's mode
/// changed).
enum SharedObjectOwnership {
    /// How `keyring`'s objects are shared: in the `unixGroup` mode with the home's group, read
    /// from the home's root (opened, and created when missing, for that).
    static func sharing(of keyring: Keyring, name: GroupIPCName) throws(GroupMessagingError) -> FileSharing {
        do {
            return try keyring.home.directories.fileSharing()
        } catch {
            throw GroupMessagingError(.system, "\(name) (\(name.posixName)) belongs to the home's Unix group, and the home's root could not be opened to learn it: \(error)", underlyingError: error)
        }
    }

    /// Checks the object open as `descriptor` (its `fstat`) against `sharing`; if this user owns
    /// it, gives it the home's group (`fchown`) and then the group's mode (`fchmod`), on that
    /// descriptor.
    static func adopt(_ descriptor: FileDescriptor, sharing: FileSharing, name: GroupIPCName) throws(GroupMessagingError) {
        let status: Stat
        do {
            status = try Syscall.status(descriptor)
        } catch {
            throw GroupSemaphore.failure("fstat", name: name, error)
        }
        let owner = UInt32(status.userID.rawValue)
        let group = UInt32(status.groupID.rawValue)
        let mode = UInt16(status.permissions.rawValue) & 0o7777
        func refusal(_ what: String, _ error: (any Error & Sendable)? = nil) -> GroupMessagingError {
            GroupMessagingError(.system, "\(name) (\(name.posixName)) \(what); it was left alone: unlink it if it is stale or was planted", underlyingError: error)
        }
        guard status.type == .regular else { throw refusal("is not a regular file (a \(status.type))") }
        guard status.linkCount == 1 else {
            throw refusal("has \(status.linkCount) hard links, so it may be another file's other name, whose mode must not be changed")
        }
        if sharing.isGroupShared {
            do {
                try SafeDirectory.checkNoAccessControlList(descriptor, status: status, path: FilePath(name.posixName), operation: "use")
            } catch {
                throw refusal("carries a POSIX ACL, which may admit users outside the group whatever its mode says (`setfacl -b` removes it)", error)
            }
        }
        if owner == Syscall.effectiveUserID {
            // /dev/shm is not setgid: what this user creates there gets its own primary group,
            // which is not necessarily the home's. The group is set before the mode opens it.
            if let expected = sharing.expectedGroup, group != expected {
                do {
                    try Syscall.changeOwner(descriptor, user: nil, group: expected)
                } catch {
                    throw GroupMessagingError(
                        .system, "fchown of \(name) (\(name.posixName)) to the home's group \(expected) failed: \(error); this user must be in that group to share with it",
                        underlyingError: error)
                }
            }
            // open(2), sem_open and shm_open applied the umask: the creator sets the mode right.
            guard mode != sharing.fileMode else { return }
            do {
                try Syscall.changeMode(descriptor, to: sharing.fileMode)
            } catch {
                throw GroupMessagingError(.system, "fchmod of \(name) (\(name.posixName)) failed: \(error)", underlyingError: error)
            }
            return
        }
        // Someone else's: the rule every shared file of a home is held to.
        do {
            try SafeDirectory.checkOwnerAndMode(status, path: FilePath(name.posixName), sharing: sharing, operation: "use")
        } catch {
            let expected = sharing.expectedGroup.map { "the home's group \($0)" } ?? "a group of this process"
            throw refusal(
                "belongs to uid \(owner), group \(group), mode \(String(mode & 0o777, radix: 8)): "
                    + "not this user's (uid \(Syscall.effectiveUserID)) nor shared through \(expected) with the group's mode",
                error)
        }
    }
}
