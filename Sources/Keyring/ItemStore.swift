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

    /// The items of each of `groups`, read as one consistent picture.
    ///
    /// Reading several groups one after another could miss an item that a concurrent move takes
    /// from a later group to an earlier one. Moves and every other multi-group write hold the
    /// home-wide items lock exclusively, so a multi-group read holds it shared.
    func items(in groups: [GroupIdentifier]) throws(KeyringError) -> [(group: GroupIdentifier, items: [KeychainItem])] {
        let readAll = { () throws(KeyringError) in try groups.map { group throws(KeyringError) in (group, try items(in: group)) } }
        guard groups.count > 1 else { return try readAll() }
        return try withMultiGroupLock(exclusive: false, readAll)
    }

    /// Runs `body` holding `Keychains/.items-multigroup.lock`: exclusively for writers that
    /// lock several groups, shared for readers of several groups.
    private func withMultiGroupLock<Result>(exclusive: Bool, _ body: () throws(KeyringError) -> Result) throws(KeyringError) -> Result {
        try home.prepareKeychains()
        let path = home.keychainsDirectory.appending(".items-multigroup.lock")
        let sharing = home.sharing.fileSharing
        do {
            return exclusive
                ? try withExclusiveLock(at: path, sharing: sharing) { try body() }
                : try withSharedLock(at: path, sharing: sharing) { try body() }
        } catch let error as KeyringError {
            throw error
        } catch let error as StorageError {
            throw KeyringError(storage: error, while: "lock items of several access groups")
        } catch {
            throw KeyringError(.ioError, "lock items of several access groups failed: \(error)")
        }
    }

    /// Runs `body` with the items of every group in `groups` while holding all their locks,
    /// then writes back each group whose items changed, still holding every lock. If `body`
    /// throws, nothing is written; if a write fails, the groups already written are restored,
    /// so a reported failure means nothing changed.
    ///
    /// Locks are taken in the order of `groups` and the files are written in the *reverse*
    /// order. A caller that moves items puts the target group last, so the target is written
    /// before the source: a crash between the two writes leaves the items in both groups (a
    /// duplicate, visible and repairable), never in neither (a loss).
    ///
    /// Because that order is chosen for crash safety, not by name, two multi-group writers
    /// could take the same two locks in opposite orders and deadlock. So whenever more than
    /// one group is involved, a home-wide lock is taken first (exclusively; multi-group reads
    /// take it shared): multi-group writers run one at a time, and a single-group writer never
    /// waits for a second lock while holding one.
    func withLockedGroups<Result>(
        _ groups: [GroupIdentifier],
        _ body: (inout [GroupIdentifier: [KeychainItem]]) throws(KeyringError) -> Result
    ) throws(KeyringError) -> Result {
        var seen = Set<GroupIdentifier>()
        let ordered = groups.filter { seen.insert($0).inserted }
        guard ordered.count > 1 else {
            return try lockAll(ordered[...], holding: []) { handles throws(KeyringError) in try change(handles, body) }
        }
        // Held until every document has been written.
        return try withMultiGroupLock(exclusive: true) { () throws(KeyringError) in
            try lockAll(ordered[...], holding: []) { handles throws(KeyringError) in try change(handles, body) }
        }
    }

    /// Takes the lock of each group in order, then runs `body` with every handle.
    private func lockAll<Result>(
        _ groups: ArraySlice<GroupIdentifier>,
        holding handles: [SealedDocument<StoredItems>.Locked],
        _ body: ([SealedDocument<StoredItems>.Locked]) throws(KeyringError) -> Result
    ) throws(KeyringError) -> Result {
        guard let group = groups.first else { return try body(handles) }
        return try document(group).withLock { handle throws(KeyringError) in
            try lockAll(groups.dropFirst(), holding: handles + [handle], body)
        }
    }

    /// Reads every locked group, runs `body`, and writes the changes innermost-first, undoing
    /// the writes already made if a later one fails.
    private func change<Result>(
        _ handles: [SealedDocument<StoredItems>.Locked],
        _ body: (inout [GroupIdentifier: [KeychainItem]]) throws(KeyringError) -> Result
    ) throws(KeyringError) -> Result {
        var before: [GroupIdentifier: StoredItems] = [:]
        var contents: [GroupIdentifier: [KeychainItem]] = [:]
        for handle in handles {
            let stored = try handle.read().map { stored throws(KeyringError) in try Self.validated(stored, in: handle.document) }
            before[handle.group] = stored
            contents[handle.group] = stored?.items ?? []
        }
        let result = try body(&contents)

        var written: [SealedDocument<StoredItems>.Locked] = []
        for handle in handles.reversed() {
            let previous = before[handle.group]
            let after = contents[handle.group] ?? []
            // A group that never had a file keeps having none until it holds an item.
            guard previous != nil || !after.isEmpty else { continue }
            let replacement = StoredItems(items: after)
            guard replacement != previous else { continue }
            do {
                try handle.write(replacement)
                written.append(handle)
            } catch {
                let notRestored = written.reversed().filter { (try? $0.write(before[$0.group])) == nil }
                guard notRestored.isEmpty else {
                    throw KeyringError(error.status, "\(error.reason); the change was already written to \(notRestored.map(\.group.rawValue)) and could not be undone there")
                }
                throw error
            }
        }
        return result
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
