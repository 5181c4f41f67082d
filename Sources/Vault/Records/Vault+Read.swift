#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Keyring
import SealedStorage

/// A blob that was read, parsed and authenticated, not yet checked for freshness.
package struct OpenedRecord: Sendable {
    /// The authenticated header.
    package var header: BlobHeader
    /// The decrypted payload (empty for a tombstone).
    package var plaintext: [UInt8]
    /// The ledger digest of the whole blob.
    package var digest: String
    /// The keyring database the key came from, as looked at for this open: the ledger check of
    /// the same read uses it instead of looking at the keyring home again.
    package var database: KeyringDatabase
}

extension Vault {
    /// Reads, authenticates and checks the record `name`, and returns its value.
    ///
    /// ```swift
    /// do {
    ///     let state = try vault.read(AuthState.self, from: "auth-state")
    ///     show(state)
    /// } catch where error.code == .expired || error.code == .deleted {
    ///     showSignIn()
    /// } catch {
    ///     showSignIn(); log.error("auth state refused: \(error)")  // tampering, rollback, ...
    /// }
    /// ```
    ///
    /// The checks, in order, each with its own code: name (``VaultError/Code/invalidName``),
    /// file present (``VaultError/Code/notFound`` when the record was never written,
    /// ``VaultError/Code/missing`` when the trust ledger has confirmed it and its file is
    /// gone), structure (``VaultError/Code/malformed``,
    /// ``VaultError/Code/unsupportedFormat``), key (``VaultError/Code/unknownKey``,
    /// ``VaultError/Code/retiredKey``), authentication bound to this group and name
    /// (``VaultError/Code/authenticationFailed``), trust (``VaultError/Code/rollback``,
    /// ``VaultError/Code/conflictingContent``), ``VaultError/Code/deleted``, schema
    /// (``VaultError/Code/unsupportedSchema``), time (``VaultError/Code/expired``,
    /// ``VaultError/Code/issuedInFuture``), then decoding and `validate()`
    /// (``VaultError/Code/invalidRecord``). An authentic record newer than the trusted one
    /// raises the trust ledger, even if a later check refuses it, so the older one can never
    /// be accepted again. Takes no lock on the record file.
    public func read<Value: VaultRecord>(_ type: Value.Type, from name: String) throws(VaultError) -> Value {
        try readWithHeader(type, from: name).value
    }

    /// ``read(_:from:)``, with the authenticated header of the very blob whose payload was
    /// decoded: for a tool that shows both (`vaultcli records show`), in one read rather than a
    /// read and a listing, which would parse another read of the file, unauthenticated.
    package func readWithHeader<Value: VaultRecord>(_ type: Value.Type, from name: String) throws(VaultError) -> (value: Value, header: RecordHeader) {
        do {
            return try readChecked(type, name: name)
        } catch where error.code == .notFound || error.code == .deleted {
            throw error
        } catch {
            report(refusal: error, of: name)
            throw error
        }
    }

    /// ``readWithHeader(_:from:)`` without the reporting of refusals.
    private func readChecked<Value: VaultRecord>(_ type: Value.Type, name: String) throws(VaultError) -> (value: Value, header: RecordHeader) {
        let name = try RecordName(validating: name)
        // Made only for a refusal: a read that succeeds builds no message.
        func subject() -> String { self.subject(name) }
        // Observed before the read, so that what is kept is never newer than what it is kept
        // with: a change during the read leaves them apart, and the next read is made in full.
        let kept = judgedValues.judged(Value.self, of: name)
        let observed = observe(name, checkingKeys: kept != nil)
        if let kept, let observed, kept.observed.isSame(as: observed), let value = kept.value as? Value {
            // What depends on the time, or on the caller's type, is decided again.
            try checkTimes(kept.header, subject: subject())
            try validate(value, subject: subject())
            return (value, kept.header.recordHeader)
        }
        if kept != nil { judgedValues.forget(Value.self, of: name) }

        let record = try openTrustedRecordRefusingMissing(name)
        let header = record.header
        judgedValues.noteDatabase(record.database)

        if header.isTombstone {
            throw VaultError(.deleted, "\(subject()) was deleted by its writer (sequence \(header.sequence))")
        }
        guard Value.supportedSchemaVersions.contains(header.schemaVersion) else {
            throw VaultError(.unsupportedSchema, "\(subject()) has schema version \(header.schemaVersion); \(Value.self) reads \(Value.supportedSchemaVersions.lowerBound)...\(Value.supportedSchemaVersions.upperBound): update the reader or have the writer write a supported version")
        }
        try checkTimes(header, subject: subject())

        let value: Value
        do {
            value = try Value.decode(schemaVersion: header.schemaVersion, from: Data(record.plaintext))
        } catch {
            throw VaultError(.invalidRecord, "\(subject()) is authentic but does not decode as \(Value.self) schema \(header.schemaVersion) (\(Self.describeDecodingFailure(error)))")
        }
        try validate(value, subject: subject())
        if let observed, observed.database === record.database {
            judgedValues.keep(JudgedValues.Judged(observed: observed, header: header, value: value), for: Value.self, of: name)
        }
        return (value, header.recordHeader)
    }

    /// What a value of `name` is judged from, observed now; `nil` when values are not kept, at
    /// the vault's first read (no database known yet: a process that reads once, a command or a
    /// widget's cold start, pays nothing for what it would never use), or when something cannot
    /// be observed. With a value kept (`checkingKeys`), the database is the one the keyring's
    /// checks before any use of a group key give, so that a locked keyring is refused as before
    /// (a retired key is a changed keyset, so a changed stamp); otherwise the latest read's.
    private func observe(_ name: RecordName, checkingKeys: Bool) -> JudgedValues.Observation? {
        guard judgedValues.isEnabled, checkingKeys || judgedValues.latestDatabase != nil else { return nil }
        // The keyring's checks look at the home's watch first; the records directory's watch
        // is then counted from the same read of the process's inotify queue.
        let mark = DirectoryChanges.shared?.looks ?? 0
        let database = checkingKeys ? try? keyring.checkedDatabase(forKeysOf: group) : judgedValues.latestDatabase
        guard let database,
              let directory = judgedValues.look(at: directories.heldRecords, lookedSince: mark),
              let stamp = try? database.contentStamp(),
              let file = try? recordFileVersion(name)
        else { return nil }
        return JudgedValues.Observation(directory: directory, file: file, database: database, stamp: stamp)
    }

    /// The version of the record file of `name`, by `fstatat` relative to the records
    /// directory, never following a link; `nil` when there is none.
    private func recordFileVersion(_ name: RecordName) throws(StorageError) -> FileVersion? {
        let file = recordFileName(name)
        return try directories.findInRecords { (records: DirectoryHandle) throws(StorageError) in
            try records.status(of: file).map(FileVersion.init)
        }
    }

    /// The type's own checks, run on every read.
    private func validate<Value: VaultRecord>(_ value: Value, subject: @autoclosure () -> String) throws(VaultError) {
        do {
            try value.validate()
        } catch {
            // The validation error's own text is not quoted: it may describe the plaintext.
            throw VaultError(.invalidRecord, "\(subject()) decodes but \(Value.self).validate() refused it (\(Swift.type(of: error)))")
        }
    }

    /// The value of record `name`, or `nil` when there is none or it is refused for any reason:
    /// the "treat as signed out" path.
    ///
    /// A record that was never written, or was deleted, is `nil` without a call to
    /// `onRefusal`: that is the normal first run, not something to log. Every other reason
    /// (tampered, rolled back, expired, missing, unreadable, ...) goes to `onRefusal`, so it
    /// can be logged.
    ///
    /// ```swift
    /// let state = vault.readIfValid(AuthState.self, from: "auth-state") { log.notice("\($0)") }
    ///     ?? AuthState.signedOut
    /// ```
    public func readIfValid<Value: VaultRecord>(_ type: Value.Type, from name: String, onRefusal: ((VaultError) -> Void)? = nil) -> Value? {
        do {
            return try read(type, from: name)
        } catch where error.code == .notFound || error.code == .deleted {
            // Never written, or deleted by its writer (a sign-out): states, not refusals.
            return nil
        } catch {
            report(swallowedRefusal: error, of: name)
            onRefusal?(error)
            return nil
        }
    }

    // MARK: Opening

    /// ``openTrustedRecord(_:)``, with a record the trust ledger has confirmed but whose file
    /// is gone refused as ``VaultError/Code/missing`` instead of reported as never written.
    ///
    /// Why: writers never remove a record file (a delete seals a tombstone over it), so a
    /// confirmed record without a file was removed outside GroupVault. Reporting it as
    /// ``VaultError/Code/notFound`` would let anyone who can write the container reset a record
    /// to "never written" (for SharedDefaults: a sealed setting to its default) by deleting
    /// one file. Only a confirmed entry counts: an announcement alone is a first write that
    /// may have failed before publishing. The ledger is consulted only when the file is
    /// absent, so a read that finds its file pays nothing for this.
    package func openTrustedRecordRefusingMissing(_ name: RecordName) throws(VaultError) -> OpenedRecord {
        var retries = 0
        while true {
            do throws(VaultError) {
                return try openTrustedRecord(name)
            } catch where error.code == .notFound {
                guard let trusted = try ledger.entry(for: name) else { throw error }
                // A first write may have published and confirmed between the look at the
                // directory and the look at the ledger: if the file is there now, read again.
                if retries < 3, (try? readBlob(name)) != nil {
                    retries += 1
                    continue
                }
                throw VaultError(.missing, "\(subject(name)) is missing: the trust ledger of \(group) has confirmed its sequence \(trusted.sequence), but its file is gone. A delete leaves a sealed tombstone, so the file was removed outside GroupVault; write or delete the record again to replace it, or restore the file")
            }
        }
    }

    /// How many times a read starts over because the record's file changed between its read and
    /// its ledger check. Each start-over means a writer published meanwhile; three were not
    /// enough for a reader slowed down beside three busy writers (ThreadSanitizer on two loaded
    /// cores), which then reported their progress as a rollback. Sixteen bound a reader kept
    /// busy by a file flipped on purpose to sixteen reads of one small file.
    static let rereadsOfAChangingRecord = 16

    /// Opens the record and admits it through the trust ledger.
    ///
    /// A writer may replace the file between this reader's read and its ledger check, and
    /// record a newer sequence: the blob just read then looks like a rollback though nobody
    /// tampered with anything. So a rollback or conflict verdict is re-checked against the file
    /// as it is now; if it changed, the read starts over. A planted old blob does not change,
    /// and is refused. The retries are bounded so that a file flipped back and forth cannot
    /// keep a reader busy (``rereadsOfAChangingRecord``).
    package func openTrustedRecord(_ name: RecordName) throws(VaultError) -> OpenedRecord {
        try openTrustedRecord(name, snapshot: nil).record
    }

    /// ``openTrustedRecord(_:)`` judged first against `snapshot`, a ledger snapshot read before
    /// the file (``TrustLedger/admit(_:sequence:digest:subject:against:)``); `bySnapshot` is
    /// whether the snapshot alone accepted it, which the caller must re-check
    /// (``TrustLedger/Snapshot/changed(since:among:)``). Without a snapshot, every verdict is
    /// against the current row.
    package func openTrustedRecord(_ name: RecordName, snapshot: TrustLedger.Snapshot?) throws(VaultError) -> (record: OpenedRecord, bySnapshot: Bool) {
        var retries = 0
        while true {
            let record = try openRecord(name)
            do throws(VaultError) {
                if let snapshot {
                    let bySnapshot = try ledger.admit(
                        name, sequence: record.header.sequence, digest: record.digest, subject: subject(name), against: snapshot, in: record.database)
                    return (record, bySnapshot)
                }
                try ledger.admit(name, sequence: record.header.sequence, digest: record.digest, subject: subject(name), in: record.database)
                return (record, false)
            } catch where (error.code == .rollback || error.code == .conflictingContent) && retries < Self.rereadsOfAChangingRecord {
                guard let current = try? readBlob(name), TrustLedger.digest(of: current) != record.digest else { throw error }
                retries += 1
            }
        }
    }

    /// Reads the file of `name` and authenticates it: no freshness checks, no ledger.
    package func openRecord(_ name: RecordName) throws(VaultError) -> OpenedRecord {
        guard let blob = try readBlob(name) else {
            throw VaultError(.notFound, "\(subject(name)) does not exist; it has not been written yet")
        }
        return try open(blob, as: name)
    }

    /// Parses and authenticates `blob` as the record `name` of this vault's group.
    package func open(_ blob: [UInt8], as name: RecordName) throws(VaultError) -> OpenedRecord {
        let header = try BlobHeader.parse(blob, subject: subject(name))
        let (key, database) = try openingKey(id: header.keyID, subject: subject(name))
        let plaintext = try BlobFormat.open(blob, header: header, key: key.key, group: group, name: name, subject: subject(name))
        return OpenedRecord(header: header, plaintext: plaintext, digest: TrustLedger.digest(of: blob, named: name), database: database)
    }

    /// The bytes of the record file, read relative to the records directory opened with the
    /// vault, bounded in size, never through a symbolic link, and only from a regular file
    /// owned and moded as the sharing mode requires; `nil` when there is no file.
    package func readBlob(_ name: RecordName) throws(VaultError) -> [UInt8]? {
        do {
            // Only write bits for others are refused: a record is authenticated, so reading it
            // tells nobody anything; changing it in place is what must be impossible.
            let forbidden = keyring.home.sharing.fileSharing.forbiddenBits & 0o222
            let file = recordFileName(name)
            return try directories.findInRecords { (records: DirectoryHandle) throws(StorageError) in
                try records.read(file, maximumSize: BlobFormat.maximumBlobSize, forbiddenModeBits: forbidden)
            }
        } catch {
            if case .tooLarge = error.kind {
                throw VaultError(.malformed, "\(subject(name)) is larger than any record blob (\(BlobFormat.maximumBlobSize) bytes); it was not read")
            }
            throw VaultError(storage: error, while: "read \(subject(name))")
        }
    }

    /// The key a blob names (and the database it came from), telling a retired key from one
    /// the keyset never had.
    private func openingKey(id: UInt32, subject: @autoclosure () -> String) throws(VaultError) -> (key: GroupKey, database: KeyringDatabase) {
        let failure: KeyringError
        do {
            return try keyring.keyAndDatabase(id: id, in: group)
        } catch {
            failure = error
        }
        let descriptors: [KeyDescriptor]
        do {
            descriptors = try keyring.keys(in: group)
        } catch {
            throw VaultError(keyring: failure, while: "get key #\(id) for \(subject())")
        }
        guard let descriptor = descriptors.first(where: { $0.id == id }) else {
            throw VaultError(.unknownKey, "\(subject()) is sealed with key #\(id), which the keyset of \(group) does not have (keys: \(descriptors.map(\.id))); it was sealed for another keyring, or is corrupted", underlyingError: nil, remedy: .importKey(group: group.rawValue, keyID: id))
        }
        if descriptor.status == .retired {
            throw VaultError(.retiredKey, "\(subject()) is sealed with key #\(id), retired\(descriptor.retiredAt.map { " on \($0)" } ?? ""); reseal records before retiring their key, or write this one again")
        }
        // The key exists and is not retired: the keyring itself refused (locked device, I/O).
        throw VaultError(keyring: failure, while: "get key #\(id) for \(subject())")
    }

    /// Expiry and issue time against the clock, each with the allowance.
    private func checkTimes(_ header: BlobHeader, subject: String) throws(VaultError) {
        let now = nowMilliseconds()
        let allowance = allowanceMilliseconds
        if let expires = header.expiresAt, now > expires, now <= Self.saturatingAdd(expires, allowance) {
            reportReadWithinExpiryAllowance(subject, expiredMillisecondsAgo: now - expires)
        }
        if let expires = header.expiresAt, now > Self.saturatingAdd(expires, allowance) {
            throw VaultError(.expired, "\(subject) expired at \(Self.timestamp(expires)); now is \(Self.timestamp(now)), beyond the \(clockSkewAllowance) s clock-skew allowance: the writer must write a fresh record")
        }
        if header.issuedAtMilliseconds > Self.saturatingAdd(now, allowance) {
            throw VaultError(.issuedInFuture, "\(subject) claims to be issued at \(Self.timestamp(header.issuedAtMilliseconds)); now is \(Self.timestamp(now)), beyond the \(clockSkewAllowance) s clock-skew allowance: check the system clocks")
        }
    }

    private static func saturatingAdd(_ value: Int64, _ allowance: Int64) -> Int64 {
        let (sum, overflow) = value.addingReportingOverflow(allowance)
        return overflow ? (allowance > 0 ? .max : .min) : sum
    }

    private static func timestamp(_ milliseconds: Int64) -> String {
        BlobFormat.date(milliseconds: milliseconds).formatted(.iso8601)
    }

    /// What kind of decoding failure, without quoting data: coding paths can contain
    /// dictionary keys, which are payload, so only a missing key (a field name of the type) is named.
    private static func describeDecodingFailure(_ error: any Error) -> String {
        guard let error = error as? DecodingError else { return "\(type(of: error))" }
        switch error {
        case .keyNotFound(let key, _): return "missing key \"\(key.stringValue)\""
        case .typeMismatch: return "a value has the wrong type"
        case .valueNotFound: return "a required value is null"
        case .dataCorrupted: return "the data is not valid for the type"
        @unknown default: return "decoding failed"
        }
    }
}

extension VaultError.Code {
    /// The trust ledger has confirmed the record, but its file is gone: it was removed outside
    /// GroupVault (a delete leaves a sealed tombstone). Not ``notFound``: the record was
    /// written, and treating it as never written would let a deleted file reset it.
    public static let missing = Self(rawValue: "missing")
}
