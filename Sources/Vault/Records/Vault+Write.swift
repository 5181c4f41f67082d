#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Keyring
import SealedStorage

extension Vault {
    /// Seals `value` under the group's primary key and atomically replaces the record `name`.
    ///
    /// ```swift
    /// let header = try vault.write(AuthState(isAuthenticated: true, displayName: "Ada"),
    ///                              as: "auth-state", expiresAt: token.expiry)
    /// ```
    ///
    /// Under the record's writer lock: stale temporary files of a killed writer are removed
    /// (when its announcement is still in the ledger),
    /// the sequence becomes one more than both the trusted one and the current file's, the
    /// trust ledger durably records that sequence as announced (intent first), the blob is
    /// written to a temporary file, fsynced and renamed over the record (then the directory is
    /// fsynced for ``WriteDurability/full``), and the ledger confirms the sequence.
    /// Any failure up to the rename, a failed ledger announcement or file fsync included,
    /// leaves the previous record in place and no temporary file behind, and is
    /// ``VaultError/Code/storage``. A failure after the rename (the directory fsync, the
    /// confirmation) is ``VaultError/Code/notDurable``: the new version is already what
    /// readers see, and the ledger already refuses the versions before it.
    ///
    /// - Parameters:
    ///   - value: the record to seal.
    ///   - name: the record's name; an invalid one is ``VaultError/Code/invalidName``.
    ///   - expiresAt: after this time (plus the clock-skew allowance) readers refuse
    ///     the record as ``VaultError/Code/expired``; `nil` for no expiry.
    /// - Returns: the header that was sealed.
    /// - Throws: ``VaultError/Code/invalidName``, ``VaultError/Code/invalidRecord`` (the value's
    ///   own `validate()` refused it, or it does not encode), ``VaultError/Code/tooLarge``,
    ///   ``VaultError/Code/invalidArgument`` (an unrepresentable expiry),
    ///   ``VaultError/Code/keyring``, ``VaultError/Code/storage`` (nothing was published),
    ///   ``VaultError/Code/notDurable`` (published, not yet durable).
    @discardableResult
    public func write<Value: VaultRecord>(_ value: Value, to name: String, expiresAt: Date? = nil) throws(VaultError) -> RecordHeader {
        let name = try RecordName(validating: name)
        // Refuse to publish what every reader would refuse.
        do {
            try value.validate()
        } catch {
            throw VaultError(.invalidRecord, "refusing to write \(subject(name)): \(Value.self).validate() refused the value (\(type(of: error)))")
        }
        let payload: [UInt8]
        do {
            let encoder = JSONEncoder()
            // Sorted keys make the payload (and so the worked example) deterministic.
            encoder.outputFormatting = [.sortedKeys]
            payload = Array(try encoder.encode(value))
        } catch {
            throw VaultError(.invalidRecord, "refusing to write \(subject(name)): \(Value.self) does not encode as JSON (\(type(of: error)))")
        }
        guard payload.count <= BlobFormat.maximumPayloadSize else {
            throw VaultError(.tooLarge, "refusing to write \(subject(name)): its payload is \(payload.count) bytes, over the \(BlobFormat.maximumPayloadSize)-byte limit; store large data in a file and seal its digest instead")
        }
        var expiresMilliseconds: Int64?
        if let expiresAt {
            expiresMilliseconds = try RecordTime.milliseconds(expiresAt, role: "expiry", of: subject(name))
        }
        return try publish(name, operation: "write") { sequence, key, _ in
            let header = BlobHeader(
                flags: expiresMilliseconds == nil ? [] : [.hasExpiry],
                keyID: key.id,
                sequence: sequence,
                issuedAtMilliseconds: nowMilliseconds(),
                expiresAtMilliseconds: expiresMilliseconds ?? 0,
                schemaVersion: Value.schemaVersion,
                nonce: makeNonce())
            return (header, payload)
        }
    }

    /// Deletes the record `name` by sealing a tombstone over it with a higher sequence.
    ///
    /// ```swift
    /// try vault.delete("auth-state")   // on sign-out
    /// ```
    ///
    /// Readers then get ``VaultError/Code/deleted``, and the old blob, if put back, is refused
    /// as ``VaultError/Code/rollback``: removing the file instead would let it be restored.
    /// Deleting a name that has no file still writes the tombstone, because the file may have
    /// been removed by someone who means to put an old copy back. A later write replaces the
    /// tombstone.
    public func delete(_ name: String) throws(VaultError) {
        let name = try RecordName(validating: name)
        try publish(name, operation: "delete") { sequence, key, _ in
            let header = BlobHeader(
                flags: [.tombstone],
                keyID: key.id,
                sequence: sequence,
                issuedAtMilliseconds: nowMilliseconds(),
                expiresAtMilliseconds: 0,
                schemaVersion: 0,
                nonce: makeNonce())
            return (header, [])
        }
    }

    /// The write path shared by write, delete and reseal.
    ///
    /// `make` receives the next sequence, the primary key and a way to get the current record
    /// (authentic, or throwing why not; opened only if `make` asks), and returns the header and
    /// plaintext to seal; it runs under the writer lock.
    ///
    /// Lock order: the group lock (shared; `holdingGroupLock` when ``resealAll()`` already holds
    /// it exclusively), then the keyring's keyset lock if the key must be created, then the
    /// record's writer lock, then the keyring database's write transaction (never held while
    /// waiting for a lock file).
    @discardableResult
    package func publish(
        _ name: RecordName,
        operation: String,
        holdingGroupLock: Bool = false,
        _ make: (_ sequence: UInt64, _ key: GroupKey, _ current: () throws(VaultError) -> OpenedRecord) throws(VaultError) -> (BlobHeader, [UInt8])
    ) throws(VaultError) -> RecordHeader {
        let started = ContinuousClock.now
        do {
            // The records and locks directories are the ones opened (and vetted) with the
            // vault: a directory swapped for a symbolic link since then is not followed.
            // The primary key is fetched under the group lock and used before releasing it, so a
            // resealAll() that returned has resealed everything any writer could still seal with
            // an older key: retiring that key cannot strand a record.
            let header: RecordHeader
            if holdingGroupLock {
                header = try publishHoldingGroupLock(name, operation: operation, make)
            } else {
                header = try withSharedLock(in: try locks, name: Self.groupLockName) {
                    report(waited: .now - started, for: Self.groupLockName, writing: name)
                    return try publishHoldingGroupLock(name, operation: operation, make)
                }
            }
            report(written: name, operation: operation, after: .now - started)
            return header
        } catch {
            throw VaultError(any: error, while: "\(operation) \(subject(name))")
        }
    }

    private func publishHoldingGroupLock(
        _ name: RecordName,
        operation: String,
        _ make: (_ sequence: UInt64, _ key: GroupKey, _ current: () throws(VaultError) -> OpenedRecord) throws(VaultError) -> (BlobHeader, [UInt8])
    ) throws -> RecordHeader {
        let key: GroupKey
        do {
            // Outside the writer lock: creating the keyset takes the keyring's own lock.
            key = try keyring.groupKey(for: group)
        } catch {
            throw VaultError(keyring: error, while: "\(operation) \(subject(name))")
        }
        let fileName = recordFileName(name)
        // One handle for the whole write: the temporary, the rename and the sweep are in one directory.
        let records = try self.records
        // One resolution of the keyring database for the row, the announcement and the confirmation.
        let ledger = try self.ledger.pinned()
        let waitingSince = ContinuousClock.now
        return try withExclusiveLock(in: try locks, name: lockName(name)) { () throws -> RecordHeader in
                report(waited: .now - waitingSince, for: lockName(name), writing: name)
                let row = try ledger.row(for: name)
                let file = Result { () throws(VaultError) in try readBlob(name) }
                // A writer that died between its announcement and its confirmation left the
                // announcement behind, and maybe a temporary file; nobody else can own one while
                // we hold the lock. Only then, or for a file without a row (a ledger lost, or a
                // record of an earlier version), is the directory listed, so a write does not
                // cost more the more records the group holds. A name with neither row nor file
                // was never announced, and a writer announces before it makes a temporary, so
                // there is nothing to sweep: listing the group for every new record made filling
                // a group quadratic (docs/FORMAT.md, section 4, step 1).
                let fileIsAbsent: Bool = if case .success(nil) = file { true } else { false }
                if row?.pending != nil || (row == nil && !fileIsAbsent) {
                    records.removeStaleTemporaries(for: fileName)
                }
                var opened: Result<OpenedRecord, VaultError>?
                func current() throws(VaultError) -> OpenedRecord {
                    if opened == nil {
                        // No file, or an unreadable one: openRecord says why, as a reader would.
                        opened = Result { () throws(VaultError) in
                            if case .success(let bytes?) = file { return try open(bytes, as: name) }
                            return try openRecord(name)
                        }
                    }
                    return try opened!.get()
                }
                // Only an authentic file counts, and only within the ledger's window: a forged
                // header must not push sequences up, nor a key holder's forged 2^64-1. The file
                // matters only when it is ahead of the ledger: when it is byte for byte the blob
                // the ledger confirmed (its digest is in the authenticated row), its sequence is
                // the confirmed one, which `lastSequence` already covers, so the common write
                // neither looks its key up nor opens it.
                let onDisk: UInt64
                if let row, row.confirmed > 0, case .success(let bytes?) = file, TrustLedger.digest(of: bytes) == row.confirmedDigest {
                    onDisk = row.confirmed
                } else {
                    onDisk = (try? current().header.sequence) ?? 0
                }
                let sequence = try TrustLedger.nextSequence(row: row, onDisk: onDisk, subject: subject(name))
                let (header, plaintext) = try make(sequence, key, current)
                let blob = BlobFormat.seal(header: header, plaintext: plaintext, key: key.key, group: group, name: name)
                let digest = TrustLedger.digest(of: blob)
                // Intent first (docs/FORMAT.md, "Crash between the two"): the sequence is durable
                // in the ledger before the record can be observed. If this fails, nothing is published.
                try ledger.announce(name, sequence: header.sequence, digest: digest)
                var lateFailure: StorageError?
                do throws(StorageError) {
                    try records.replace(fileName, with: blob, durability: durability.storageDurability)
                } catch {
                    guard case .notDurable = error.kind else {
                        // Not published: withdraw the announcement so the ledger stays as it was.
                        ledger.withdraw(name, sequence: header.sequence)
                        throw error
                    }
                    lateFailure = error  // published: it must still be confirmed
                }
                let published = "\(operation) \(subject(name)) published sequence \(header.sequence), which readers see"
                do {
                    try ledger.confirm(name, sequence: header.sequence, digest: digest)
                } catch {
                    throw VaultError(.notDurable, "\(published), but the trust ledger could not confirm it (it was announced first, so readers accept it and confirm it when they read it; writing again also does): \(error)", underlyingError: error, remedy: .retry)
                }
                if let lateFailure {
                    throw VaultError(.notDurable, "\(published), but \(lateFailure)")
                }
                return header.recordHeader
            }
    }
}
