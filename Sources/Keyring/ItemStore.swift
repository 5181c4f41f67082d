import Foundation
import SealedStorage
import SystemPackage

/// What one access group's sealed items file holds: its items, in insertion order.
struct StoredItems: Codable, Sendable, Equatable {
    /// The layout of this value; a file with another number is refused, never guessed at.
    static let currentVersion = 1

    var version: Int
    var items: [KeychainItem]

    init(items: [KeychainItem]) {
        version = Self.currentVersion
        self.items = items
    }
}

/// The items of every access group of a home: one ``SealedDocument`` of kind `items` per group
/// (`Keychains/<group>/items.sealed`).
///
/// Reads take no lock (a sealed document is replaced atomically, so a reader sees a whole
/// version). Writes run under the documents' cross-process locks, and each document is
/// replaced in one atomic rename: an item is never deleted and re-added, so no reader and no
/// crash can observe it missing.
struct ItemStore: Sendable {
    let home: KeyringHome

    private func document(_ group: GroupIdentifier) -> SealedDocument<StoredItems> {
        SealedDocument(home: home, group: group, kind: "items")
    }

    /// The items of `group` in insertion order; `[]` if the group has none yet.
    /// - Throws: ``KeyringStatus/decode`` for a corrupted, tampered or misplaced file.
    func items(in group: GroupIdentifier) throws(KeyringError) -> [KeychainItem] {
        let document = document(group)
        guard let stored = try document.read() else { return [] }
        return try Self.validated(stored, in: document).items
    }

    /// Runs `body` with the items of every group in `groups` while holding all their locks,
    /// then writes back each group whose items changed. If `body` throws, nothing is written.
    ///
    /// Locks are taken in the order of `groups` and the files are written in the *reverse*
    /// order (innermost lock first), because each document is written when its own locked
    /// section ends. A caller that moves items puts the target group last, so the target is
    /// written before the source: a crash between the two writes leaves the items in both
    /// groups (a duplicate, visible and repairable), never in neither (a loss).
    ///
    /// Because that order is chosen for crash safety, not by name, two multi-group writers
    /// could take the same two locks in opposite orders and deadlock. So whenever more than
    /// one group is involved, a home-wide lock is taken first: multi-group writers run one at
    /// a time, and a single-group writer never waits for a second lock while holding one.
    func withLockedGroups<Result>(
        _ groups: [GroupIdentifier],
        _ body: (inout [GroupIdentifier: [KeychainItem]]) throws(KeyringError) -> Result
    ) throws(KeyringError) -> Result {
        var seen = Set<GroupIdentifier>()
        let ordered = groups.filter { seen.insert($0).inserted }
        var contents: [GroupIdentifier: [KeychainItem]] = [:]
        guard ordered.count > 1 else {
            return try nest(ordered[...], &contents, body)
        }
        try home.prepareKeychains()
        let lockPath = home.keychainsDirectory.appending(".items-multigroup.lock")
        let lock: FileLock
        do {
            lock = try FileLock(exclusiveAt: lockPath, sharing: home.sharing.fileSharing)
        } catch {
            throw KeyringError(storage: error, while: "lock items of several access groups")
        }
        let result = try nest(ordered[...], &contents, body)
        _ = consume lock  // released only after every document has been written
        return result
    }

    private func nest<Result>(
        _ groups: ArraySlice<GroupIdentifier>,
        _ contents: inout [GroupIdentifier: [KeychainItem]],
        _ body: (inout [GroupIdentifier: [KeychainItem]]) throws(KeyringError) -> Result
    ) throws(KeyringError) -> Result {
        guard let group = groups.first else { return try body(&contents) }
        let document = document(group)
        return try document.update { (stored: inout StoredItems?) throws(KeyringError) -> Result in
            let before = try stored.map { stored throws(KeyringError) in try Self.validated(stored, in: document) }
            contents[group] = before?.items ?? []
            let result = try nest(groups.dropFirst(), &contents, body)
            let after = contents[group] ?? []
            // A group that never had a file keeps having none until it holds an item.
            if before != nil || !after.isEmpty {
                stored = StoredItems(items: after)
            }
            return result
        }
    }

    /// Authenticated content is still checked for consistency, so a bug in an older writer (or
    /// a file sealed for the same group by hand) cannot make two items share a key or an item
    /// claim another group.
    private static func validated(_ stored: StoredItems, in document: SealedDocument<StoredItems>) throws(KeyringError) -> StoredItems {
        let group = document.group
        func refuse(_ detail: String) -> KeyringError {
            // The path only when refusing: building it costs more than the checks themselves.
            KeyringError(.decode, "items file \(document.path) \(detail); it was not used and will not be overwritten: restore it from a backup or delete it to start over")
        }
        guard stored.version == StoredItems.currentVersion else {
            throw refuse("has item layout version \(stored.version); this GroupVault reads version \(StoredItems.currentVersion)")
        }
        var keys = Set<ItemPrimaryKey>()
        var references = Set<Data>()
        for item in stored.items {
            guard item.accessGroup == group else { throw refuse("holds an item of access group \(item.accessGroup?.rawValue ?? "none")") }
            guard let reference = item.persistentReference, references.insert(reference).inserted else {
                throw refuse("holds an item without a unique persistent reference")
            }
            guard keys.insert(item.primaryKey).inserted else { throw refuse("holds two items with one primary key (\(item.primaryKey))") }
        }
        return stored
    }
}
