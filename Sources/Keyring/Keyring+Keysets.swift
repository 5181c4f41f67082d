import Foundation

// STUB: owned by the keysets helper, who replaces this file.
extension Keyring {
    /// The primary key of `group`'s keyset, created on first use (one key wins a race between processes).
    public func groupKey(for group: GroupIdentifier) throws(KeyringError) -> GroupKey {
        throw KeyringError(.unimplemented, "groupKey is not implemented yet")
    }

    /// The key with `id` in `group`'s keyset, for opening; unknown or retired ids are refused.
    public func key(id: UInt32, in group: GroupIdentifier) throws(KeyringError) -> GroupKey {
        throw KeyringError(.unimplemented, "key(id:in:) is not implemented yet")
    }

    /// Adds a new primary key; the previous primary stays for opening.
    @discardableResult
    public func rotateKey(in group: GroupIdentifier) throws(KeyringError) -> KeyDescriptor {
        throw KeyringError(.unimplemented, "rotateKey is not implemented yet")
    }

    /// Retires a non-primary key: its bytes are erased and it is refused from then on.
    public func retireKey(id: UInt32, in group: GroupIdentifier) throws(KeyringError) {
        throw KeyringError(.unimplemented, "retireKey is not implemented yet")
    }

    /// The keys of `group`'s keyset, without their bytes; `[]` if the keyset does not exist yet.
    public func keys(in group: GroupIdentifier) throws(KeyringError) -> [KeyDescriptor] {
        throw KeyringError(.unimplemented, "keys(in:) is not implemented yet")
    }
}
