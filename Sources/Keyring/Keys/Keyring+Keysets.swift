#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import SealedStorage
import SystemPackage

/// Per-group keysets: the symmetric keys that seal an access group's shared data.
///
/// Each access group has one keyset, stored one row per key in the keyring database
/// (``KeysetTable``, docs/STORAGE.md). Exactly one key is primary and seals new data; keys rotated out stay
/// active for opening until they are retired, which erases their bytes. Ids count up from 1 and
/// are never reused.
///
/// Group keys are treated like items with ``Accessibility/afterFirstUnlock``: usable while the
/// emulated device is locked (so a widget or background task can open shared state) but not
/// before its first unlock. Every operation requires the identity to be entitled to the group.
///
/// ```swift
/// let key = try keyring.groupKey(for: group)        // created on first use
/// // ... seal with key, record key.id beside the blob ...
/// let opener = try keyring.key(id: storedID, in: group)
/// ```
extension Keyring {
    /// The primary key of `group`'s keyset, created on first use.
    ///
    /// The keyset is read without a transaction first; only if it has no key does this start a
    /// write transaction, and it creates key 1 only if the keyset is still empty then. So any
    /// number of processes starting at once end up with one key, and all of them return it.
    ///
    /// - Throws: ``KeyringError`` with ``KeyringStatus/missingEntitlement`` when the identity is not
    ///   entitled to `group`, ``KeyringStatus/interactionNotAllowed`` before the first unlock,
    ///   ``KeyringStatus/decode`` when the keyset file is corrupted or tampered with.
    public func groupKey(for group: GroupIdentifier) throws(KeyringError) -> GroupKey {
        let table = try keysetTable(for: group, operation: "get the group key")
        if let primary = try table.keyset(of: group)?.primary {
            return try groupKey(primary, in: group)
        }
        let primary = try table.update(group) { (keyset: inout Keyset?) throws(KeyringError) -> Keyset.Entry in
            // Another process may have created the key between the read and the lock.
            if let existing = keyset?.primary { return existing }
            var created = keyset ?? Keyset()
            guard let entry = created.rotate(now: Self.keysetTimestamp()) else { throw Self.idsExhausted(in: group) }
            keyset = created
            return entry
        }
        return try groupKey(primary, in: group)
    }

    /// The key with `id` in `group`'s keyset, for opening data sealed with it.
    ///
    /// - Throws: ``KeyringError`` with ``KeyringStatus/itemNotFound`` when the keyset has no key
    ///   with that id, or when the key was retired (the reasons differ and say which);
    ///   ``KeyringStatus/missingEntitlement``, ``KeyringStatus/interactionNotAllowed`` and
    ///   ``KeyringStatus/decode`` as for ``groupKey(for:)``.
    public func key(id: UInt32, in group: GroupIdentifier) throws(KeyringError) -> GroupKey {
        try keyAndDatabase(id: id, in: group).key
    }

    /// ``key(id:in:)``, with the keyring database the key was read from, for a caller that
    /// goes on to use that database in the same operation (a Vault read: its trust ledger row)
    /// without looking at the home again: one look per operation, and the next operation
    /// looks again, so a change by any process is seen by the next one.
    package func keyAndDatabase(id: UInt32, in group: GroupIdentifier) throws(KeyringError) -> (key: GroupKey, database: KeyringDatabase) {
        let table = try keysetTable(for: group, operation: "get key #\(id)")
        return (try groupKey(try openableEntry(id: id, in: table.keyset(of: group), group: group), in: group), table.database)
    }

    /// The keyring database holding `group`'s keys, after the checks every use of a group key
    /// makes (the entitlement, the home, a lock state that lets group keys be used), without
    /// reading the keyset: for a caller that decided with a key before and knows, from the
    /// database's ``KeyringDatabase/ContentStamp``, that no row changed since (a Vault read of an
    /// unchanged record).
    package func checkedDatabase(forKeysOf group: GroupIdentifier) throws(KeyringError) -> KeyringDatabase {
        try keysetTable(for: group, operation: "use the keys").database
    }

    /// The bytes of key `id` of `group`, copied out of guarded memory.
    ///
    /// This is the only way key bytes leave the keyring, so that doing it is always explicit
    /// (for a backup, or to hand the key to code outside GroupVault). The caller owns the copy:
    /// keep it out of logs and zero it when done. Retired keys have no bytes left to export.
    ///
    /// - Throws: The same errors as ``key(id:in:)``.
    public func exportKey(id: UInt32, in group: GroupIdentifier) throws(KeyringError) -> Data {
        let table = try keysetTable(for: group, operation: "export key #\(id)")
        let entry = try openableEntry(id: id, in: table.keyset(of: group), group: group)
        guard let key = entry.key else { throw Self.retired(entry.descriptor, in: group) }
        return key.withUnsafeBytes { Data($0) }
    }

    /// Adds a new primary key to `group`'s keyset; the previous primary becomes active, so data
    /// sealed with it can still be opened. On a keyset that does not exist yet, creates key 1.
    ///
    /// Runs in one write transaction: concurrent rotations from any processes each add exactly
    /// one key.
    /// - Returns: The new primary key's descriptor.
    /// - Throws: As ``groupKey(for:)``.
    @discardableResult
    public func rotateKey(in group: GroupIdentifier) throws(KeyringError) -> KeyDescriptor {
        let table = try keysetTable(for: group, operation: "rotate the key")
        return try table.update(group) { (keyset: inout Keyset?) throws(KeyringError) -> KeyDescriptor in
            var rotated = keyset ?? Keyset()
            guard let entry = rotated.rotate(now: Self.keysetTimestamp()) else { throw Self.idsExhausted(in: group) }
            keyset = rotated
            return entry.descriptor
        }
    }

    /// Retires key `id` of `group`: its bytes are erased from the keyset and it is refused for
    /// everything from then on; its descriptor stays, so the id is never reused.
    ///
    /// Retire a key only once nothing sealed with it is still needed (reseal such data first).
    /// Retiring an already retired key does nothing.
    ///
    /// - Throws: ``KeyringError`` with ``KeyringStatus/invalidParameter`` for the primary key
    ///   (rotate first, so another key seals new data), ``KeyringStatus/itemNotFound`` for an
    ///   unknown id, and otherwise as ``groupKey(for:)``.
    public func retireKey(id: UInt32, in group: GroupIdentifier) throws(KeyringError) {
        let table = try keysetTable(for: group, operation: "retire key #\(id)")
        try table.update(group) { (keyset: inout Keyset?) throws(KeyringError) in
            guard var changed = keyset, let entry = changed.entry(id: id) else {
                throw Self.unknownKey(id, in: group, keyset: keyset)
            }
            if entry.descriptor.status == .primary {
                throw KeyringError(
                    .invalidParameter,
                    "key #\(id) is the primary key of \(group) and still seals new data: rotate first, then retire it",
                underlyingError: nil, remedy: .rotateKey(group: group.rawValue))
            }
            changed.retire(id: id, now: Self.keysetTimestamp())
            keyset = changed
        }
    }

    /// The keys of `group`'s keyset in ascending id order, without their bytes; `[]` when the
    /// keyset does not exist yet.
    ///
    /// - Throws: As ``groupKey(for:)``.
    public func keys(in group: GroupIdentifier) throws(KeyringError) -> [KeyDescriptor] {
        let table = try keysetTable(for: group, operation: "list the keys")
        return try table.keyset(of: group)?.descriptors ?? []
    }

    // MARK: Checks shared by every keyset operation

    /// The keyset table, after checking the entitlement to `group` and the lock state.
    func keysetTable(for group: GroupIdentifier, operation: String) throws(KeyringError) -> KeysetTable {
        guard identity.isEntitled(toAccessGroup: group) else {
            throw identity.missingEntitlement(for: group, operation: operation)
        }
        // One look at whether the home is in passphrase mode serves the lock state and the
        // master secret, and `Keychains/` is checked once for the steps below, not once by
        // each; while the look finds nothing new since an earlier operation, what that one
        // concluded stands (HomeDirectories.Conclusions).
        let keychains = try home.checkedKeychains()
        let remembered = home.directories.rememberedConclusions(as: keychains.look).database
        let passphraseMode = remembered == nil ? try home.isPassphraseProtected(keychains) : false
        let state = try home.lockState(inPassphraseMode: passphraseMode, keychains)
        // Group keys behave as AfterFirstUnlock items: that is what lets widgets use them.
        guard Accessibility.afterFirstUnlock.permitsAccess(in: state) else {
            throw KeyringError(
                .interactionNotAllowed,
                "\(operation): group keys of \(group) are usable only after the first unlock, and the device of the home \(home.rootPath) is in state \(state); unlock it once",
                underlyingError: nil, remedy: .unlock(home: home.root.path))
        }
        let database = if let remembered { remembered } else { try home.database(inPassphraseMode: passphraseMode, keychains).database }
        return KeysetTable(database: database, home: home)
    }

    /// The entry `id` if it exists and is not retired.
    private func openableEntry(id: UInt32, in keyset: Keyset?, group: GroupIdentifier) throws(KeyringError) -> Keyset.Entry {
        guard let entry = keyset?.entry(id: id) else { throw Self.unknownKey(id, in: group, keyset: keyset) }
        guard entry.descriptor.status != .retired, entry.key != nil else { throw Self.retired(entry.descriptor, in: group) }
        return entry
    }

    private func groupKey(_ entry: Keyset.Entry, in group: GroupIdentifier) throws(KeyringError) -> GroupKey {
        guard let key = entry.key else { throw Self.retired(entry.descriptor, in: group) }
        return GroupKey(id: entry.descriptor.id, group: group, key: key)
    }

    // MARK: Errors and time

    private static func unknownKey(_ id: UInt32, in group: GroupIdentifier, keyset: Keyset?) -> KeyringError {
        guard let keyset, !keyset.entries.isEmpty else {
            return KeyringError(.itemNotFound, "no key #\(id) in \(group): the group has no keyset yet", underlyingError: nil, remedy: .createKey(group: group.rawValue))
        }
        let range = "#\(keyset.entries.first!.descriptor.id)...#\(keyset.entries.last!.descriptor.id)"
        return KeyringError(
            .itemNotFound,
            "no key #\(id) in the keyset of \(group) (it holds keys \(range)): the data names a key this keyset never had; was it sealed for another group or home?")
    }

    private static func retired(_ descriptor: KeyDescriptor, in group: GroupIdentifier) -> KeyringError {
        let when = descriptor.retiredAt.map { " on \($0)" } ?? ""
        return KeyringError(
            .itemNotFound,
            "key #\(descriptor.id) of \(group) was retired\(when) and its bytes erased: data sealed with it cannot be opened; reseal data under the primary key before retiring its key",
            underlyingError: nil, remedy: .resealRecords(group: group.rawValue))
    }

    private static func idsExhausted(in group: GroupIdentifier) -> KeyringError {
        KeyringError(.dataTooLarge, "the keyset of \(group) has used every key id up to \(UInt32.max); start a new keyset for the group")
    }

    /// Now, truncated to whole seconds: a descriptor that is returned equals the one read back
    /// later, from a row or from the sealed JSON of the earlier layout.
    private static func keysetTimestamp() -> Date {
        Date(timeIntervalSince1970: Date().timeIntervalSince1970.rounded(.down))
    }
}
