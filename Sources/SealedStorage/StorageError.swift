import SystemPackage

/// Why a file operation in shared storage failed, with the path and what a person can do about it.
///
/// Never carries file contents: a message that quotes bytes could quote a secret.
package struct StorageError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What went wrong, in a form callers can switch over.
    package enum Kind: Sendable, Equatable {
        /// A system call failed with this errno.
        case system(Errno)
        /// The new content was published (renamed into place, readers see it), but the directory
        /// fsync after the rename failed with this errno: it may not survive a power loss.
        case notDurable(Errno)
        /// The path is a symbolic link where a real file or directory is required.
        case symbolicLink
        /// The path exists but is not the kind of file expected (a directory, a FIFO, ...).
        case wrongFileType
        /// The file is larger than the limit for its kind.
        case tooLarge(limit: Int)
        /// The file or directory belongs to another user.
        case wrongOwner(owner: UInt32, expected: UInt32)
        /// Group sharing: the entry belongs to another user and to a group this process is not in.
        case outsideSharedGroup(owner: UInt32, group: UInt32)
        /// The permissions let other users write (or read) where they must not.
        case insecurePermissions(mode: UInt16)
    }

    /// What went wrong.
    package var kind: Kind
    /// What was being done, e.g. "sync temporary file".
    package var operation: String
    /// The file or directory involved.
    package var path: String
    /// What to do about it, when the generic advice for the errno would mislead (ENOSPC from
    /// inotify is a watch limit, not a full disk).
    package var hint: String?

    package init(_ kind: Kind, operation: String, path: String, hint: String? = nil) {
        self.kind = kind
        self.operation = operation
        self.path = path
        self.hint = hint
    }

    package init(_ kind: Kind, operation: String, path: FilePath, hint: String? = nil) {
        self.init(kind, operation: operation, path: path.string, hint: hint)
    }

    /// True when the failure is the disk being full (ENOSPC or EDQUOT).
    package var isOutOfSpace: Bool {
        if case .system(let errno) = kind { return errno == .noSpace || errno == .diskQuotaExceeded }
        return false
    }

    package var description: String {
        switch kind {
        case .system(let errno):
            return "\(operation) failed for \(path): \(errno)" + (hint.map { "; \($0)" } ?? Self.advice(for: errno))
        case .notDurable(let errno):
            return "\(operation) failed for \(path): \(errno); the new content is already in place and readers see it, but it may not survive a power loss (writing again retries the sync)"
        case .symbolicLink:
            return "\(operation) refused \(path): it is a symbolic link; replace it with a real file or directory"
        case .wrongFileType:
            return "\(operation) refused \(path): " + (hint ?? "it is not the expected kind of file")
        case .tooLarge(let limit):
            return "\(operation) refused \(path): larger than the \(limit)-byte limit"
        case .wrongOwner(let owner, let expected):
            return "\(operation) refused \(path): owned by uid \(owner), not by this user (uid \(expected)); chown it or use another home"
        case .outsideSharedGroup(let owner, let group):
            return "\(operation) refused \(path): " + (hint ?? "owned by uid \(owner) and gid \(group), and this process is neither that user nor in that group; add this user to group \(group), or chgrp the path to a group the members share")
        case .insecurePermissions(let mode):
            return "\(operation) refused \(path): " + (hint ?? "mode \(String(mode, radix: 8)) lets other users in; remove the bits it must not have (chmod go-rwx when owner-only, chmod o-rwx when shared with a Unix group)")
        }
    }

    /// The generic advice for an errno, when the caller gave no better ``hint``.
    private static func advice(for errno: Errno) -> String {
        switch errno {
        case .noSpace, .diskQuotaExceeded: "; free disk space and retry (nothing was replaced)"
        case .permissionDenied, .notPermitted, .readOnlyFileSystem: "; check the ownership and mode of the directory"
        default: ""
        }
    }
}
