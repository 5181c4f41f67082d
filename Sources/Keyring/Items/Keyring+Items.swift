#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import SealedStorage

/// Password items with Apple's semantics (docs/SECITEM.md): primary keys, default and
/// searched access groups, matching, lock state, user presence, limits.
///
/// The lock-state rule is uniform: an operation fails with
/// ``KeyringStatus/interactionNotAllowed`` if *any* item it matches (reads, returns, changes or
/// deletes), or any item it would create or give a new accessibility class, has a class that
/// ``Accessibility/permitsAccess(in:)`` refuses in the current ``DeviceLockState``. The check
/// covers every match, not only those a match limit returns, so the outcome never depends on
/// which item happens to come first; and a failed check changes nothing.
extension Keyring {
    /// Adds `item` and returns it as stored: its access group filled in (the identity's
    /// default when `nil`), both dates set to now, and a new persistent reference.
    ///
    /// ```swift
    /// try keyring.add(KeychainItem(service: "api", account: "me", secret: Data(token.utf8)))
    /// ```
    ///
    /// - Throws: ``KeyringStatus/duplicateItem`` if an item with the same primary key exists;
    ///   ``KeyringStatus/missingEntitlement`` for a group the identity does not have (or when it
    ///   has none); ``KeyringStatus/dataTooLarge`` / ``KeyringStatus/invalidParameter`` beyond
    ///   the limits; ``KeyringStatus/interactionNotAllowed`` if the item's accessibility class
    ///   is not usable in the current lock state; ``KeyringStatus/decode`` if the group's items
    ///   of the earlier sealed-JSON layout cannot be imported (the file is left as it is).
    @discardableResult
    public func add(_ item: KeychainItem) throws(KeyringError) -> KeychainItem {
        let operation = "add \(item.itemClass.noun)"
        try ItemLimits.check(item, operation: operation)
        let group = try accessGroupForAdding(item.accessGroup, operation: operation)
        try requireAccess(to: [item.accessibility], in: try home.lockState(), operation: operation)

        var stored = item
        stored.accessGroup = group
        let now = Self.currentTime()
        stored.creationDate = now
        stored.modificationDate = now
        stored.persistentReference = Data(SecureRandom.bytes(count: 16))
        let table = try ItemTable(home: home)
        if let key = stored.key, key.isSecureEnclavePrivateKey {
            // The key's bytes are sealed once more before the row is: no API returns them.
            stored.secret = SecureEnclaveSealing.seal(stored.secret, label: key.applicationLabel, key: table.database.secureEnclaveKey)
        }
        try table.add(stored, to: group, operation: operation)
        return stored
    }

    /// Every item matching `query`, at most `limit`, in the identity's access-group order and
    /// then in the order they were added; `[]` when none.
    ///
    /// Without an access group in the query every group of the identity is searched. With
    /// `includingSecrets: false` the returned items have an empty ``KeychainItem/secret`` and
    /// no user-presence prompt is shown; otherwise returning an item protected by
    /// ``AccessControlFlags/requiresUserPresence`` asks ``UserPresence`` once per call.
    ///
    /// - Throws: ``KeyringStatus/missingEntitlement`` for a group the identity does not have;
    ///   ``KeyringStatus/interactionNotAllowed`` if a match is not usable in the current lock
    ///   state; ``KeyringStatus/userCanceled`` / ``KeyringStatus/authenticationFailed`` when
    ///   the prompt is refused; ``KeyringStatus/invalidParameter`` for a count limit below 1;
    ///   ``KeyringStatus/decode`` if an item row it opens is corrupted (docs/STORAGE.md, "Items").
    public func items(matching query: ItemQuery, limit: MatchLimit = .all, includingSecrets: Bool = true) throws(KeyringError) -> [KeychainItem] {
        let operation = query.itemClass.searchOperation
        let (_, selected) = try selectedItems(matching: query, limit: limit, operation: operation)
        guard !selected.isEmpty else { return [] }
        guard includingSecrets else {
            return selected.map { item in
                var attributesOnly = item
                attributesOnly.secret = Data()
                return attributesOnly
            }
        }
        if let protected = selected.first(where: \.accessControl.requiresUserPresence) {
            try UserPresence.demand(for: "read the secret of \(protected.primaryKey)")
        }
        return selected
    }

    /// The key or certificate items matching `query`, with their bytes (Secure Enclave keys' in
    /// the clear) and without a user-presence prompt: for the `Security` module, which turns
    /// them into objects whose *use* (signing, decrypting) asks for presence, as a device does.
    /// Never exposed outside the package; a password query is refused.
    package func itemsForKeyUse(matching query: ItemQuery, limit: MatchLimit = .all) throws(KeyringError) -> [KeychainItem] {
        guard !query.itemClass.isPassword else {
            throw KeyringError(.invalidParameter, "itemsForKeyUse reads keys and certificates; read passwords with items(matching:)")
        }
        let (table, selected) = try selectedItems(matching: query, limit: limit, operation: "use \(query.itemClass.noun)s")
        var items: [KeychainItem] = []
        for var item in selected {
            if let key = item.key, key.isSecureEnclavePrivateKey {
                item.secret = try SecureEnclaveSealing.open(item.secret, label: key.applicationLabel, key: table.database.secureEnclaveKey, item: "\(item.primaryKey)")
            }
            items.append(item)
        }
        return items
    }

    /// The matches of `query` up to `limit`, after the searched groups and the lock state are
    /// checked; the table they were read through, for callers that open Secure Enclave keys.
    private func selectedItems(matching query: ItemQuery, limit: MatchLimit, operation: String) throws(KeyringError) -> (ItemTable, [KeychainItem]) {
        let maximum = try Self.maximumCount(limit, operation: operation)
        let scope = try searchScope(for: query, operation: operation)
        let table = try ItemTable(home: home)
        let matches = try foundItems(matching: query, in: scope, table: table, operation: operation)
        guard !matches.isEmpty else { return (table, []) }
        try requireAccess(to: matches.map(\.accessibility), in: try table.lockState(), operation: operation)
        return (table, Array(matches.prefix(maximum)))
    }

    /// The items of `groups` matching `query`: those this process found before, while the
    /// database's content stamp is the one they were found at (``keepsFoundItems``), or else
    /// read from the rows. The stamp is taken before the rows are read, so what is kept is
    /// never newer than its stamp: a commit during the read leaves them apart.
    private func foundItems(matching query: ItemQuery, in groups: [GroupIdentifier], table: ItemTable, operation: String) throws(KeyringError) -> [KeychainItem] {
        guard keepsFoundItems else { return try table.items(matching: query, in: groups, operation: operation) }
        let search = KeptLookups.Search(query: query, groups: groups)
        let stamp = try table.database.contentStamp()
        if let kept = table.database.keptLookups.withLock({ $0.items(for: search, at: stamp) }) { return kept }
        let found = try table.items(matching: query, in: groups, operation: operation)
        table.database.keptLookups.withLock { $0.keep(found, for: search, at: stamp) }
        return found
    }

    /// The first item matching `query`, with its secret.
    ///
    /// ```swift
    /// let token = try keyring.item(matching: ItemQuery(service: "api", account: "me")).secret
    /// ```
    ///
    /// - Throws: ``KeyringStatus/itemNotFound`` when nothing matches (the reason says what was
    ///   searched for, and where), and everything ``items(matching:limit:includingSecrets:)`` throws.
    public func item(matching query: ItemQuery) throws(KeyringError) -> KeychainItem {
        guard let first = try items(matching: query, limit: .one).first else {
            let scope = try searchScope(for: query, operation: query.itemClass.searchOperation)
            throw KeyringError(.itemNotFound, "nothing matched: searched for \(query.summary(searching: scope))")
        }
        return first
    }

    /// Applies `changes` to every item matching `query` and returns how many changed.
    ///
    /// All matches change together or none does: the whole change, across every group involved,
    /// is one database transaction. ``KeychainItem/modificationDate`` moves forward (strictly, even if the clock
    /// did not); ``KeychainItem/creationDate`` and the persistent reference never change.
    /// Setting ``ItemChanges/accessGroup`` moves the items, in that same transaction: a failure
    /// or a crash at any step leaves every item where it was, once.
    /// Changing an item protected by user presence does not prompt: only returning its secret does.
    ///
    /// - Throws: ``KeyringStatus/itemNotFound`` when nothing matches;
    ///   ``KeyringStatus/duplicateItem`` if the changes would make two items share a primary
    ///   key (nothing is written); ``KeyringStatus/invalidParameter`` if `changes` sets
    ///   nothing; ``KeyringStatus/missingEntitlement`` for a group (searched or target) the
    ///   identity does not have; the limits and lock-state errors of ``add(_:)``.
    @discardableResult
    public func update(matching query: ItemQuery, with changes: ItemChanges) throws(KeyringError) -> Int {
        let operation = "update \(query.itemClass.noun)s"
        guard changes != ItemChanges() else {
            throw KeyringError(.invalidParameter, "\(operation): the changes set nothing; set at least one property of ItemChanges")
        }
        try ItemLimits.check(changes, operation: operation)
        let scope = try searchScope(for: query, operation: operation)
        let target = changes.accessGroup
        if let target, !identity.isEntitled(toAccessGroup: target) {
            throw identity.missingEntitlement(for: target, operation: "move \(query.itemClass.noun)s")
        }
        let targets = target.map { [$0] } ?? []
        return try ItemTable(home: home).change(matching: query, in: scope, movingTo: targets, operation: operation) { (matches: [ItemTable.Row]) throws(KeyringError) -> (result: Int, changes: [ItemTable.Change]) in
            guard !matches.isEmpty else {
                throw KeyringError(.itemNotFound, "\(operation): nothing matched: searched for \(query.summary(searching: scope))")
            }
            if changes.secret != nil, let keyOrCertificate = matches.first(where: { !$0.item.itemClass.isPassword }) {
                // A key's bytes are the key (a Secure Enclave key's are sealed); a certificate's
                // attributes are read from its DER: new bytes would contradict the attributes.
                throw KeyringError(.invalidParameter, "\(operation): \(keyOrCertificate.item.primaryKey) cannot take new bytes; delete it and add the new \(keyOrCertificate.item.itemClass.noun)")
            }
            let state = try home.lockState()
            try requireAccess(to: matches.map(\.item.accessibility), in: state, operation: operation)
            if let newClass = changes.accessibility { try requireAccess(to: [newClass], in: state, operation: operation) }

            let now = Self.currentTime()
            return (matches.count, matches.map { row in .replace(row, with: row.item.applying(changes, at: now)) })
        }
    }

    /// Deletes every item matching `query` and returns how many were deleted.
    ///
    /// All matches go in one step or none does (every searched group is locked throughout).
    ///
    /// - Throws: ``KeyringStatus/itemNotFound`` when nothing matches;
    ///   ``KeyringStatus/interactionNotAllowed`` if a match is not usable in the current lock
    ///   state (nothing is deleted); ``KeyringStatus/missingEntitlement`` for a group the
    ///   identity does not have; ``KeyringStatus/decode`` for a corrupted item row.
    @discardableResult
    public func delete(matching query: ItemQuery) throws(KeyringError) -> Int {
        let operation = "delete \(query.itemClass.noun)s"
        let scope = try searchScope(for: query, operation: operation)
        return try ItemTable(home: home).change(matching: query, in: scope, operation: operation) { (matches: [ItemTable.Row]) throws(KeyringError) -> (result: Int, changes: [ItemTable.Change]) in
            guard !matches.isEmpty else {
                throw KeyringError(.itemNotFound, "\(operation): nothing matched: searched for \(query.summary(searching: scope))")
            }
            try requireAccess(to: matches.map(\.item.accessibility), in: try home.lockState(), operation: operation)
            return (matches.count, matches.map { .delete($0) })
        }
    }

    // MARK: Rules shared by the operations

    /// The group a new item goes to: the one it names (if entitled) or the default group.
    func accessGroupForAdding(_ requested: GroupIdentifier?, operation: String) throws(KeyringError) -> GroupIdentifier {
        if let requested {
            guard identity.isEntitled(toAccessGroup: requested) else {
                throw identity.missingEntitlement(for: requested, operation: operation)
            }
            return requested
        }
        guard let group = identity.defaultAccessGroup else { throw noAccessGroups(operation: operation) }
        return group
    }

    /// The groups a query searches: the one it names (if entitled), else all of the identity's.
    func searchScope(for query: ItemQuery, operation: String) throws(KeyringError) -> [GroupIdentifier] {
        if let group = query.accessGroup {
            guard identity.isEntitled(toAccessGroup: group) else {
                throw identity.missingEntitlement(for: group, operation: operation)
            }
            return [group]
        }
        let groups = identity.accessGroups
        guard !groups.isEmpty else { throw noAccessGroups(operation: operation) }
        return groups
    }

    private func noAccessGroups(operation: String) -> KeyringError {
        KeyringError(.missingEntitlement, "\(operation): \(identity.subject) has no keychain access group; declare keychain-access-groups, a team and bundle id (the application identifier), or application groups", underlyingError: nil, remedy: ErrorRemedy(.grantEntitlement))
    }

    /// The uniform lock-state rule (see the top of this file).
    private func requireAccess(to classes: [Accessibility], in state: DeviceLockState, operation: String) throws(KeyringError) {
        guard let refused = classes.first(where: { !$0.permitsAccess(in: state) }) else { return }
        let usable = DeviceLockState.allCases.filter(refused.permitsAccess(in:)).map(\.rawValue)
        // How to unlock (the passphrase, or the emulated state) is the remedy's to say, per front end.
        throw KeyringError(.interactionNotAllowed, "\(operation): the device lock state is \(state), and an item's accessibility \(refused) (\(refused.rawValue)) allows access only when \(usable.joined(separator: " or ")); use afterFirstUnlock (ck) for items needed while locked, or unlock the home", underlyingError: nil, remedy: .unlock(home: home.root.path))
    }

    private static func maximumCount(_ limit: MatchLimit, operation: String) throws(KeyringError) -> Int {
        switch limit {
        case .one: return 1
        case .all: return .max
        case .count(let count):
            guard count >= 1 else { throw KeyringError(.invalidParameter, "\(operation): match limit \(count) is below 1") }
            return count
        }
    }

    /// Now, as a value that survives the storage round trip exactly.
    ///
    /// Files store dates as seconds since 1970 while `Date` holds seconds since 2001; converting
    /// an arbitrary `Date` there and back can change its last bit, and then an item read back
    /// would not equal the item `add` returned. A date built from seconds since 1970 converts
    /// back exactly (for present-day dates the subtraction is exact).
    static func currentTime() -> Date {
        Date(timeIntervalSince1970: Date().timeIntervalSince1970)
    }
}

extension ItemClass {
    /// "generic password" or "internet password", for messages.
    var noun: String {
        switch self {
        case .genericPassword: "generic password"
        case .internetPassword: "internet password"
        case .key: "key"
        case .certificate: "certificate"
        }
    }

    /// "search generic passwords": how a search's errors name it. Literals, not built from
    /// ``noun``: every lookup names its operation, and the interpolation cost 800 instructions.
    var searchOperation: String {
        switch self {
        case .genericPassword: "search generic passwords"
        case .internetPassword: "search internet passwords"
        case .key: "search keys"
        case .certificate: "search certificates"
        }
    }
}

extension KeychainItem {
    /// This item with `changes` applied and its modification date moved to `now`, or just
    /// past the previous one if the clock has not advanced, so a change is always visible.
    func applying(_ changes: ItemChanges, at now: Date) -> KeychainItem {
        var item = self
        for attribute in TextAttribute.all {
            if let value = attribute.readChange(changes) { attribute.writeItem(&item, value) }
        }
        if let value = changes.accessGroup { item.accessGroup = value }
        if let value = changes.accountEncoding { item.accountEncoding = value }
        if let value = changes.generic { item.generic = value }
        if let value = changes.isSynchronizable { item.isSynchronizable = value }
        if let value = changes.accessibility { item.accessibility = value }
        if let value = changes.accessControl { item.accessControl = value }
        if let value = changes.port { item.port = value }
        if let value = changes.secret { item.secret = value }
        if let value = changes.creator { item.creator = value }
        if let value = changes.type { item.type = value }
        if let value = changes.isInvisible { item.isInvisible = value }
        if let value = changes.isNegative { item.isNegative = value }
        if var key = item.key {
            if let value = changes.applicationTag { key.applicationTag = value }
            key.usage.formUnion(changes.grantedKeyUsage)
            key.usage.subtract(changes.revokedKeyUsage)
            item.key = key
        }
        if let previous = modificationDate, now <= previous {
            item.modificationDate = Date(timeIntervalSince1970: previous.timeIntervalSince1970 + 0.001)
        } else {
            item.modificationDate = now
        }
        return item
    }
}
