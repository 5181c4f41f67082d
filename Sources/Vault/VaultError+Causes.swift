import Keyring
import SealedStorage

extension VaultError {
    /// A storage failure while doing `operation`. The storage description names the path and
    /// the errno with a hint, never file contents; the `StorageError` (with its `Errno`) is kept
    /// as the cause, and its remedy as this error's.
    package init(storage error: StorageError, while operation: String) {
        self.init(.storage, "\(operation): \(error)", underlyingError: error, remedy: error.remedy)
    }

    /// A keyring failure while doing `operation`; a missing entitlement keeps its own code. The
    /// `KeyringError` is kept as the cause, and its remedy as this error's.
    package init(keyring error: KeyringError, while operation: String) {
        self.init(error.status == .missingEntitlement ? .missingEntitlement : .keyring, "\(operation): \(error)", underlyingError: error, remedy: error.remedy)
    }

    /// Maps whatever a `withExclusiveLock` body threw (it is untyped) back to a `VaultError`;
    /// an error of no known type is kept as the cause, not reduced to its type's name.
    package init(any error: any Error, while operation: String) {
        switch error {
        case let error as VaultError: self = error
        case let error as StorageError: self.init(storage: error, while: operation)
        case let error as KeyringError: self.init(keyring: error, while: operation)
        default: self.init(.storage, "\(operation) failed: \(type(of: error))", underlyingError: error)
        }
    }
}
