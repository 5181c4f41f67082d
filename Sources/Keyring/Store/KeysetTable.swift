#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import SealedStorage

/// The keysets of every access group as rows of the keyring database: one row per key.
///
/// A row (docs/STORAGE.md, "Keysets"): `access_group`, `id`, `status`, `created_at` and
/// `retired_at` in the clear (descriptors are not secret), and `sealed` =
/// `0x01 ‖ nonce (24) ‖ XChaCha20-Poly1305 of the 32 key bytes` (of nothing for a retired key)
/// under the item sealing key, with `"GVKY" ‖ 0x01` and every other column, length-prefixed, in
/// the additional data: a row altered, moved to another group or id, or given another status
/// fails authentication and the whole keyset is refused as ``KeyringStatus/decode``.
///
/// Every change runs in one `BEGIN IMMEDIATE` transaction that reads the keyset, applies the
/// change and writes it back; so two processes creating key 1 at once end with one key (the
/// second sees the first's key), and concurrent rotations each add exactly one.
///
/// A process keeps each keyset it read, with its keys in guarded memory, for as long as the
/// database's ``KeyringDatabase/ChangeStamp`` stays the same: a warm read is one
/// `PRAGMA data_version`, no guarded allocation.
struct KeysetTable: Sendable {
    private static let format = SealedBox.Format(version: 1)

    let database: KeyringDatabase
    let home: KeyringHome

    init(home: KeyringHome) throws(KeyringError) {
        database = try KeyringDatabase.shared(for: home)
        self.home = home
    }

    /// The keysets in `database`, `home`'s database as the caller just opened it.
    init(database: KeyringDatabase, home: KeyringHome) {
        self.database = database
        self.home = home
    }

    /// The keyset of `group`, or `nil` when it has no key yet.
    func keyset(of group: GroupIdentifier) throws(KeyringError) -> Keyset? {
        try importLegacyKeyset(of: group)
        // Taken before the read: what is cached is never older than its stamp.
        let stamp = try database.changeStamp()
        if let cached = database.keysets.withLock({ $0[group] }), cached.stamp == stamp { return cached.keyset }
        let keyset = try database.read("read the keyset of \(group)") { (transaction: borrowing KeyringDatabase.Transaction) throws(KeyringError) -> Keyset? in
            try read(group, transaction)
        }
        database.keysets.withLock { $0[group] = (stamp, keyset) }
        return keyset
    }

    /// Reads `group`'s keyset inside a write transaction, lets `body` change it, and writes
    /// it back (one row per key) if it changed; all or nothing. If `body` throws, nothing is written.
    func update<Result>(_ group: GroupIdentifier, _ body: (inout Keyset?) throws(KeyringError) -> Result) throws(KeyringError) -> Result {
        try importLegacyKeyset(of: group)
        return try database.write("change the keyset of \(group)") { (transaction: borrowing KeyringDatabase.Transaction) throws(KeyringError) -> Result in
            let original = try read(group, transaction)
            var keyset = original
            let result = try body(&keyset)
            if keyset != original {
                try write(keyset, of: group, transaction)
            }
            return result
        }
    }

    // MARK: Import of the sealed-JSON layout

    /// Imports `keyset.sealed` of the sealed-JSON layout once (as ``ItemTable`` imports items):
    /// in one transaction that records it; the old file is kept.
    private func importLegacyKeyset(of group: GroupIdentifier) throws(KeyringError) {
        guard !database.keysetImportsChecked.withLock({ $0.contains(group) }) else { return }
        let marker: [SQLiteConnection.Value] = [.text(group.rawValue), .text(Keyset.documentKind)]
        let done = try database.read("check the keyset import of \(group)") { (transaction: borrowing KeyringDatabase.Transaction) throws(KeyringError) -> Bool in
            try !transaction.query("SELECT 1 FROM imports WHERE access_group = ? AND kind = ?", marker) { _ in () }.isEmpty
        }
        if !done, let legacy = try SealedDocument<Keyset>(home: home, group: group, kind: Keyset.documentKind).read() {
            try database.write("import the keyset of \(group)") { (transaction: borrowing KeyringDatabase.Transaction) throws(KeyringError) in
                guard try transaction.query("SELECT 1 FROM imports WHERE access_group = ? AND kind = ?", marker, { _ in () }).isEmpty else { return }
                // Keys made in the database before the import (none, unless an older process
                // raced) win: a keyset is never merged, so its invariants stay whole.
                if try read(group, transaction) == nil { try write(legacy, of: group, transaction) }
                try transaction.apply("INSERT INTO imports (access_group, kind) VALUES (?, ?)", marker, expecting: .exactly(1))
            }
        }
        database.keysetImportsChecked.withLock { _ = $0.insert(group) }
    }

    // MARK: Rows

    private func read(_ group: GroupIdentifier, _ transaction: borrowing KeyringDatabase.Transaction) throws(KeyringError) -> Keyset? {
        let rows = try transaction.query(
            "SELECT id, status, created_at, retired_at, sealed FROM keys WHERE access_group = ? ORDER BY id", [.text(group.rawValue)]
        ) { reader in
            (id: reader.integer(0), status: reader.text(1), created: reader.double(2),
             retired: reader.isNull(3) ? nil : reader.double(3), sealed: reader.blob(4))
        }
        guard !rows.isEmpty else { return nil }
        var entries: [Keyset.Entry] = []
        for row in rows {
            let refuse = { (detail: String) in
                KeyringError(.decode, "key row #\(row.id) of \(group) in keyring database \(database.path) \(detail); the keyset was not used and will not be overwritten: restore the database from a backup")
            }
            guard let id = UInt32(exactly: row.id), let status = KeyDescriptor.Status(rawValue: row.status) else {
                throw refuse("has an id or status this GroupVault does not know")
            }
            let box: SealedBox
            do {
                box = try SealedBox(combined: row.sealed, format: Self.format)
            } catch {
                throw refuse("is truncated or has an unknown format")
            }
            let additionalData = additionalData(group, id: id, status: row.status, created: row.created, retired: row.retired)
            let key: SymmetricKey?
            do {
                if box.plaintextByteCount == 0 {
                    // A retired key's row seals nothing, and is authenticated all the same.
                    _ = try box.open(using: database.itemSealingKey, authenticating: additionalData)
                    key = nil
                } else {
                    // Opened into guarded memory: the key is never in an ordinary array.
                    key = try box.openKey(using: database.itemSealingKey, authenticating: additionalData)
                }
            } catch .authenticationFailed {
                throw refuse("fails authentication (altered, or moved from another key or group)")
            } catch {
                throw refuse("holds no valid key (\(error))")
            }
            let descriptor = KeyDescriptor(
                id: id, createdAt: Date(timeIntervalSince1970: row.created), status: status,
                retiredAt: row.retired.map { Date(timeIntervalSince1970: $0) })
            entries.append(Keyset.Entry(descriptor: descriptor, key: key))
        }
        let (keyset, problem) = Keyset.validated(entries)
        guard let keyset else {
            throw KeyringError(.decode, "the keyset of \(group) in keyring database \(database.path) is inconsistent (\(problem ?? "")); it was not used and will not be overwritten: restore the database from a backup")
        }
        return keyset
    }

    private func write(_ keyset: Keyset?, of group: GroupIdentifier, _ transaction: borrowing KeyringDatabase.Transaction) throws(KeyringError) {
        // A keyset holds a handful of keys: rewriting its rows keeps the change one simple step.
        try transaction.apply("DELETE FROM keys WHERE access_group = ?", [.text(group.rawValue)], expecting: .anyNumber)
        for entry in keyset?.entries ?? [] {
            let descriptor = entry.descriptor
            let created = descriptor.createdAt.timeIntervalSince1970
            let retired = descriptor.retiredAt?.timeIntervalSince1970
            let additionalData = additionalData(group, id: descriptor.id, status: descriptor.status.rawValue, created: created, retired: retired)
            let sealed = entry.key.map { SealedBox.seal($0, format: Self.format, using: database.itemSealingKey, authenticating: additionalData) }
                ?? SealedBox.seal([], format: Self.format, using: database.itemSealingKey, authenticating: additionalData)
            try transaction.apply(
                "INSERT INTO keys (access_group, id, status, created_at, retired_at, sealed) VALUES (?, ?, ?, ?, ?, ?)",
                [.text(group.rawValue), .integer(Int64(descriptor.id)), .text(descriptor.status.rawValue), .real(created),
                 retired.map { .real($0) } ?? .null, .blob(sealed.combined)],
                expecting: .exactly(1))
        }
    }

    private func additionalData(_ group: GroupIdentifier, id: UInt32, status: String, created: Double, retired: Double?) -> [UInt8] {
        var data = Array("GVKY".utf8) + Self.format.bytes
        let fields: [[UInt8]] = [
            Array(group.rawValue.utf8), withUnsafeBytes(of: id.bigEndian, Array.init), Array(status.utf8),
            withUnsafeBytes(of: created.bitPattern.bigEndian, Array.init),
            retired.map { value in [1] + withUnsafeBytes(of: value.bitPattern.bigEndian, Array.init) } ?? [0],
        ]
        for field in fields { data.appendLengthPrefixed(field) }
        return data
    }
}
