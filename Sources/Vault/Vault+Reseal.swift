import Keyring
import SealedStorage

extension Vault {
    /// Rewrites the authentic record `name` under the current primary key with a higher
    /// sequence, keeping its issue time, expiry, schema version, tombstone flag and payload.
    ///
    /// ```swift
    /// try keyring.rotateKey(in: group)
    /// try vault.reseal("auth-state")
    /// ```
    ///
    /// The record must pass the trust ledger: a rolled-back or conflicting blob is refused, never
    /// laundered into a new sequence. Expiry is not checked, so an expired record stays
    /// expired under the new key.
    /// - Throws: what opening the record throws (``VaultError/Code/notFound``,
    ///   ``VaultError/Code/authenticationFailed``, ``VaultError/Code/retiredKey``, ...),
    ///   ``VaultError/Code/rollback``, ``VaultError/Code/conflictingContent``, and the write
    ///   path's errors.
    public func reseal(_ name: String) throws(VaultError) {
        try reseal(try RecordName(validating: name), holdingGroupLock: false)
    }

    private func reseal(_ name: RecordName, holdingGroupLock: Bool) throws(VaultError) {
        try publish(name, operation: "reseal", holdingGroupLock: holdingGroupLock) { sequence, key, current throws(VaultError) in
            let record = try current.get()
            try ledger.admit(name, sequence: record.header.sequence, digest: record.digest, subject: subject(name))
            var header = record.header
            header.keyID = key.id
            header.sequence = sequence
            header.nonce = makeNonce()
            return (header, record.plaintext)
        }
    }

    /// Reseals every record not sealed with the current primary key, and returns how many
    /// were resealed. Afterwards the older keys can be retired.
    ///
    /// ```swift
    /// try keyring.rotateKey(in: group)
    /// let count = try vault.resealAll()
    /// try keyring.retireKey(id: oldKeyID, in: group)
    /// ```
    ///
    /// Every record is attempted; if any cannot be resealed, the error names each of them
    /// (with the code of the first) and says how many were done. Do not retire a key then.
    /// Files in the records directory whose names are not record names are skipped: no reader
    /// can ask for them, so no key is needed to read them.
    ///
    /// It holds the group lock exclusively while it lists and reseals: writers that fetched an
    /// older primary key before a rotation finish first, and later writers wait and then use
    /// the new one, so no record sealed with an older key can appear once this returns.
    @discardableResult
    public func resealAll() throws(VaultError) -> Int {
        let sharing = keyring.home.sharing.fileSharing
        do {
            try SafeDirectory.ensure(recordsDirectory, sharing: sharing)
            try SafeDirectory.ensure(locksDirectory, sharing: sharing)
            return try withExclusiveLock(at: groupLockPath, sharing: sharing) { () throws(VaultError) -> Int in try resealAllHoldingGroupLock() }
        } catch {
            throw VaultError(any: error, while: "reseal the records of \(group)")
        }
    }

    private func resealAllHoldingGroupLock() throws(VaultError) -> Int {
        let primary: GroupKey
        do {
            primary = try keyring.groupKey(for: group)
        } catch {
            throw VaultError(keyring: error, while: "reseal the records of \(group)")
        }
        var resealed = 0
        var failures: [(name: String, error: VaultError)] = []
        for record in try list() {
            if case .success(let header) = record.header, header.keyID == primary.id { continue }
            guard let name = try? RecordName(validating: record.name) else { continue }
            do {
                try reseal(name, holdingGroupLock: true)
                resealed += 1
            } catch {
                failures.append((record.name, error))
            }
        }
        if let first = failures.first {
            let details = failures.map { "\($0.name) (\($0.error))" }.joined(separator: "; ")
            throw VaultError(first.error.code, "resealed \(resealed) record(s) of \(group), but \(failures.count) could not be resealed, so do not retire old keys yet: \(details)")
        }
        return resealed
    }
}
