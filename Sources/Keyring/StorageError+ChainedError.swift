import SealedStorage
import SystemPackage

/// A storage failure is a link of the chain too: its cause is the `Errno` of the system call
/// (for `.system` and `.notDurable`), and its remedy follows from its kind, so an error built
/// from it (``KeyringError/init(storage:while:)``, `VaultError`'s) carries both as values.
extension StorageError: ChainedError {
    /// The `Errno` the system call failed with, for `.system` and `.notDurable`.
    package var underlyingError: (any Error)? {
        switch kind {
        case .system(let errno), .notDurable(let errno): errno
        default: nil
        }
    }

    /// Free space for a full disk; fix the owner or mode for a refused permission, a foreign
    /// owner, a mode open to others, a link or a file of the wrong kind; retry a publish that
    /// did not become durable.
    package var remedy: ErrorRemedy? {
        switch kind {
        case .system(let errno) where errno == .noSpace || errno == .diskQuotaExceeded:
            .freeSpace
        case .system(let errno) where errno == .permissionDenied || errno == .notPermitted || errno == .readOnlyFileSystem:
            .fixPermissions(path: path)
        case .wrongOwner, .outsideSharedGroup, .insecurePermissions, .symbolicLink, .wrongFileType:
            .fixPermissions(path: path)
        case .notDurable:
            .retry
        case .system, .tooLarge:
            nil
        }
    }
}
