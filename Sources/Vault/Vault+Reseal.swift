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
    /// The same as ``resealAll(progress:)`` without a progress callback.
    @discardableResult
    public func resealAll() throws(VaultError) -> Int {
        try resealAll(progress: nil)
    }

    /// Reseals every record not sealed with the current primary key, reporting each record
    /// processed to `progress`, and returns how many were resealed.
    ///
    /// ```swift
    /// let count = try vault.resealAll { print("\r\($0)", terminator: "") }
    /// ```
    ///
    /// It takes the group lock exclusively only for a moment, as a barrier: writers that
    /// fetched an older primary key before a rotation finish first, and every later writer
    /// uses the current one. Then each record is resealed on its own, holding off writers of
    /// that record only, for that record only; so no record sealed with an older key can appear
    /// once this returns. The cost is one read, one open and one write per record that needs it.
    ///
    /// Interrupted (killed, or failing), it loses nothing: each record is replaced atomically,
    /// and running it again reseals what is left. Every record is attempted; if any cannot be
    /// resealed, the error names each of them (with the code of the first) and says how many
    /// were done. Do not retire a key then. Files in the records directory whose names are not
    /// record names are skipped: no reader can ask for them, so no key is needed to read them.
    @discardableResult
    public func resealAll(progress: ((VaultProgress) -> Void)?) throws(VaultError) -> Int {
        let primary: GroupKey
        do {
            // The barrier: held only while fetching the primary key.
            primary = try withExclusiveLock(in: try locks, name: Self.groupLockName) { try keyring.groupKey(for: group) }
        } catch {
            throw VaultError(any: error, while: "reseal the records of \(group)")
        }
        let stale = try list().filter { record in
            if case .success(let header) = record.header, header.keyID == primary.id { return false }
            return (try? RecordName(validating: record.name)) != nil
        }
        var resealed = 0
        var failures: [(name: String, error: VaultError)] = []
        for (index, record) in stale.enumerated() {
            do {
                try reseal(try RecordName(validating: record.name), holdingGroupLock: false)
                resealed += 1
            } catch {
                failures.append((record.name, error))
            }
            progress?(VaultProgress(completed: index + 1, total: stale.count, name: record.name))
        }
        if let first = failures.first {
            let details = failures.map { "\($0.name) (\($0.error))" }.joined(separator: "; ")
            throw VaultError(first.error.code, "resealed \(resealed) record(s) of \(group), but \(failures.count) could not be resealed, so do not retire old keys yet: \(details)")
        }
        return resealed
    }

    /// Checks every record of the group as a reader would (structure, key, authentication,
    /// trust ledger), without knowing its type, and every record the trust ledger knows whose
    /// file is gone; reports each record processed to `progress`.
    ///
    /// ```swift
    /// let report = try vault.verifyAll()
    /// for finding in report.findings { print(finding) }
    /// ```
    ///
    /// It takes no lock and changes nothing but what a reader changes (an authentic newer
    /// record raises the ledger). The cost is one read, one open and one indexed ledger lookup
    /// per record. Expiry and schema are not findings: they are the reader's business.
    ///
    /// - Throws: ``VaultError/Code/storage`` or ``VaultError/Code/keyring`` only when the
    ///   records directory or the ledger cannot be read at all; a bad record is a finding.
    public func verifyAll(progress: ((VaultProgress) -> Void)? = nil) throws(VaultError) -> VerificationReport {
        let names: [String]
        do {
            names = try records.names()
        } catch {
            throw VaultError(storage: error, while: "verify the records of \(group)")
        }
        let suffix = ".\(Self.recordFileExtension)"
        let files = names
            .filter { $0.hasSuffix(suffix) && !$0.hasPrefix(".") }
            .map { String($0.dropLast(suffix.count)) }
            .sorted()
        let onDisk = Set(files)
        let gone = try ledger.recordNames().filter { !onDisk.contains($0) }
        let total = files.count + gone.count
        var passed = 0
        var findings: [VerificationReport.Finding] = []
        for (index, stem) in files.enumerated() {
            do {
                _ = try openTrustedRecord(try RecordName(validating: stem))
                passed += 1
            } catch where error.code == .notFound {
                // Removed since the listing: no longer a record (a delete writes a tombstone,
                // so this is someone removing files; the ledger pass below reports it).
            } catch {
                findings.append(.init(name: stem, error: error))
            }
            progress?(VaultProgress(completed: index + 1, total: total, name: stem))
        }
        for (index, name) in gone.enumerated() {
            let sequence = (try? RecordName(validating: name)).flatMap { try? ledger.entry(for: $0)?.sequence }
            findings.append(.init(name: name, error: VaultError(
                .notFound,
                "the trust ledger of \(group) knows record \"\(name)\"\(sequence.map { " (sequence \($0))" } ?? "") but its file is gone: it was removed outside GroupVault (a delete writes a tombstone); write it again, or restore the file")))
            progress?(VaultProgress(completed: files.count + index + 1, total: total, name: name))
        }
        findings.sort { $0.name < $1.name }
        return VerificationReport(passed: passed, findings: findings)
    }
}
