#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import SealedStorage

extension Keyring {
    /// Puts exported key bytes back into `group`'s keyset under their original id: the
    /// counterpart of ``exportKey(id:in:)``, for recovery (a lost or damaged keyring, a retired
    /// key whose records are still needed) and for keys made outside GroupVault.
    ///
    /// - A key id the keyset does not have is added: as primary when the keyset is empty (so
    ///   new records are sealed with it), otherwise as active.
    /// - A retired id gets its bytes back and becomes active again.
    /// - An id that already holds exactly these bytes is left as it is (importing twice is safe).
    ///
    /// Runs in one write transaction; the result passes the same invariant checks as any
    /// keyset read from the database.
    ///
    /// - Returns: The imported key's descriptor.
    /// - Throws: ``KeyringError`` with ``KeyringStatus/invalidParameter`` when `bytes` is not 32
    ///   bytes or `id` is 0, ``KeyringStatus/duplicateItem`` when the id holds different bytes,
    ///   and otherwise as ``groupKey(for:)``.
    @discardableResult
    public func importKey(_ bytes: Data, id: UInt32, in group: GroupIdentifier) throws(KeyringError) -> KeyDescriptor {
        guard bytes.count == 32 else {
            throw KeyringError(.invalidParameter, "a group key is 32 bytes; this one has \(bytes.count)")
        }
        guard id != 0 else { throw KeyringError(.invalidParameter, "key ids start at 1") }
        let key: SymmetricKey
        do {
            key = try SymmetricKey(bytes: bytes)
        } catch {
            throw KeyringError(.allocationFailed, "no guarded memory for the key (\(error))", underlyingError: error)
        }
        let table = try keysetTable(for: group, operation: "import key #\(id)")
        return try table.update(group) { (keyset: inout Keyset?) throws(KeyringError) -> KeyDescriptor in
            let current = keyset ?? Keyset()
            if let existing = current.entry(id: id), let existingKey = existing.key {
                guard existingKey.constantTimeEquals(key) else {
                    // Replacing it would make what it sealed unreadable. The likely cause, on a
                    // machine joining a group, is that something of the group ran here first
                    // and made a key of its own (docs/SYNC.md, section 2).
                    throw KeyringError(.duplicateItem, "key #\(id) of \(group) exists with different bytes; an imported key never replaces one, since what this home's key sealed would become unreadable. This home made or imported another key #\(id) before (for example, a synced store opened before the import); to join the group the imported key belongs to, import it into a home that has no key #\(id) of \(group)")
                }
                return existing.descriptor
            }
            let status: KeyDescriptor.Status = current.entries.isEmpty ? .primary : .active
            let imported = Keyset.Entry(
                descriptor: KeyDescriptor(id: id, createdAt: Date(timeIntervalSince1970: Date().timeIntervalSince1970.rounded(.down)), status: status),
                key: key)
            let updated = try Self.keyset(current, replacingOrAdding: imported, group: group)
            keyset = updated
            return imported.descriptor
        }
    }

    /// `keyset` with `entry` in place of the entry of the same id, or added.
    ///
    /// The result runs the keyset's invariant checks (unique ids, one primary, bytes exactly
    /// for unretired keys).
    private static func keyset(_ keyset: Keyset, replacingOrAdding entry: Keyset.Entry, group: GroupIdentifier) throws(KeyringError) -> Keyset {
        let entries = keyset.entries.filter { $0.descriptor.id != entry.descriptor.id } + [entry]
        let (result, problem) = Keyset.validated(entries)
        guard let result else {
            throw KeyringError(.decode, "the keyset of \(group) with the imported key is not valid: \(problem ?? "")")
        }
        return result
    }
}
