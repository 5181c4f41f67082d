import Foundation

// STUB: owned by the items helper, who replaces this file.
extension Keyring {
    /// Adds `item`; fills in its access group (the default when `nil`), dates and persistent reference.
    @discardableResult
    public func add(_ item: KeychainItem) throws(KeyringError) -> KeychainItem {
        throw KeyringError(.unimplemented, "add is not implemented yet")
    }

    /// Every item matching `query` (up to `limit`), `[]` when none.
    public func items(matching query: ItemQuery, limit: MatchLimit = .all, includingSecrets: Bool = true) throws(KeyringError) -> [KeychainItem] {
        throw KeyringError(.unimplemented, "items(matching:) is not implemented yet")
    }

    /// The first item matching `query`; ``KeyringStatus/itemNotFound`` when none.
    public func item(matching query: ItemQuery) throws(KeyringError) -> KeychainItem {
        throw KeyringError(.unimplemented, "item(matching:) is not implemented yet")
    }

    /// Applies `changes` to every match; returns how many; ``KeyringStatus/itemNotFound`` when none.
    @discardableResult
    public func update(matching query: ItemQuery, with changes: ItemChanges) throws(KeyringError) -> Int {
        throw KeyringError(.unimplemented, "update is not implemented yet")
    }

    /// Deletes every match; returns how many; ``KeyringStatus/itemNotFound`` when none.
    @discardableResult
    public func delete(matching query: ItemQuery) throws(KeyringError) -> Int {
        throw KeyringError(.unimplemented, "delete is not implemented yet")
    }
}
