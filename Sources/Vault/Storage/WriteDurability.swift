import SealedStorage

/// How far a write must have reached when ``Vault/write(_:to:expiresAt:)`` returns.
///
/// ```swift
/// // A cache the app can rebuild: skip the directory fsync.
/// let cache = try Vault(keyring: keyring, group: group, durability: .atomic)
/// ```
public enum WriteDurability: String, Sendable, Hashable {
    /// fsync the file, rename, fsync the directory: survives power loss once `write` returns.
    case full
    /// No directory fsync: never torn, but may roll back to the previous version after a crash.
    /// Because the trust ledger may then remember the newer sequence, a reader can see
    /// ``VaultError/Code/rollback`` for that record until the writer writes it again.
    case atomic

    /// The storage layer's equivalent.
    package var storageDurability: Durability { self == .full ? .full : .atomic }
}
