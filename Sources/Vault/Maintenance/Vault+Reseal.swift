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
            let record = try current()
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
    /// uses the current one. Then the records are resealed in batches of up to
    /// `resealBatchSize` (docs/FORMAT.md, "Resealing in batches"): each record is read,
    /// checked and sealed in memory holding its writer lock for that record only; the batch's
    /// new sequences are announced in one ledger commit; under each record's writer lock again,
    /// and only if nobody wrote or announced it in between, its temporary file is written; one
    /// `syncfs` makes the batch's temporary files durable (one `fsync` each if that fails);
    /// under each writer lock again each is renamed over its record, under the same condition;
    /// then one directory fsync and one ledger commit confirm the batch. A record that a
    /// concurrent writer got to first is left to that writer (or resealed on its own if the
    /// writer failed), so no write is lost and no record sealed with an older key remains once
    /// this returns.
    ///
    /// Interrupted (killed, or failing), it loses nothing: each record is replaced atomically
    /// after its announcement is committed, and running it again reseals what is left. Every
    /// record is attempted; if any cannot be resealed, the error names each of them (with the
    /// code of the first) and says how many were done. Do not retire a key then. Files in the
    /// records directory whose names are not record names are skipped: no reader can ask for
    /// them, so no key is needed to read them.
    @discardableResult
    public func resealAll(progress: ((VaultProgress) -> Void)?) throws(VaultError) -> Int {
        let primary: GroupKey
        do {
            // The barrier: held only while fetching the primary key.
            primary = try withExclusiveLock(in: try locks, name: Self.groupLockName) { try keyring.groupKey(for: group) }
        } catch {
            throw VaultError(any: error, while: "reseal the records of \(group)")
        }
        // One listing for the whole pass: the records to reseal, and the leftovers of killed
        // writers that a record without a ledger row may have (see prepareReseal).
        let entries = try directoryEntries(while: "reseal the records of \(group)")
        let leftovers = DirectoryHandle.temporaries(among: entries)
        let stale = try list(entries: entries).compactMap { record -> RecordName? in
            if case .success(let header) = record.header, header.keyID == primary.id { return nil }
            return try? RecordName(validating: record.name)
        }
        var resealed = 0
        var failures: [(name: String, error: VaultError)] = []
        var completed = 0
        var start = 0
        while start < stale.count {
            let outcomes = resealBatch(Array(stale[start..<min(start + Self.resealBatchSize, stale.count)]), leftovers: leftovers)
            let batch = stale[start..<(start + outcomes.count)]
            start += outcomes.count
            for (name, outcome) in zip(batch, outcomes) {
                switch outcome {
                case .resealed: resealed += 1
                case .current: break
                case .failed(let error): failures.append((name.rawValue, error))
                }
                completed += 1
                progress?(VaultProgress(completed: completed, total: stale.count, name: name.rawValue))
            }
        }
        if let first = failures.first {
            let details = failures.map { "\($0.name) (\($0.error))" }.joined(separator: "; ")
            throw VaultError(first.error.code, "resealed \(resealed) record(s) of \(group), but \(failures.count) could not be resealed, so do not retire old keys yet: \(details)", underlyingError: first.error, remedy: first.error.remedy)
        }
        return resealed
    }

    /// How many records ``resealAll(progress:)`` announces, renames and confirms together: the
    /// ledger commits, the `syncfs` of its temporary files and the directory fsync are paid once
    /// per batch. Small enough that a batch's memory, and the temporary files' descriptors it
    /// holds open until they are durable, stay modest; large enough that those costs vanish
    /// beside each record's own read, seal and rename.
    package static let resealBatchSize = 256

    /// The sealed bytes a batch holds in memory at most (it stops taking records once past
    /// this): records can be up to the payload limit, and 256 of those would not be modest.
    package static let resealBatchBytes = 8 << 20

    #if DEBUG
    /// Test seam (debug builds only): runs in ``resealAll(progress:)`` after a batch's
    /// announcement and before its renames, where a concurrent writer is most in the way.
    package static let resealBatchAnnounced = Locked<(@Sendable () -> Void)?>(nil)

    /// Test seam (debug builds only): runs in ``resealAll(progress:)`` once a batch's temporary
    /// files are written and durable, before any is renamed, with no writer lock held.
    package static let resealBatchWritten = Locked<(@Sendable () -> Void)?>(nil)
    #endif

    /// What became of one record of a reseal batch.
    private enum ResealOutcome {
        /// Resealed under the primary key (by this batch or, after a conflict, on its own).
        case resealed
        /// Already sealed with the primary key when its writer lock was taken: nothing to do.
        case current
        /// Could not be resealed.
        case failed(VaultError)
    }

    /// A record of a batch, sealed in memory and not yet published.
    private struct PreparedReseal {
        var index: Int
        var announcement: TrustLedger.Announcement
        var blob: [UInt8]
    }

    /// Reseals a prefix of `names` as one batch (all of them unless their blobs pass
    /// ``resealBatchBytes``); returns one outcome per name of that prefix, in order. Holds the group lock shared
    /// throughout, as a writer does, so a later resealAll's barrier waits for the batch and its
    /// records are never sealed with a key older than the one that barrier fetched.
    private func resealBatch(_ names: [RecordName], leftovers: [String: [String]]) -> [ResealOutcome] {
        var outcomes: [ResealOutcome] = []
        do {
            try withSharedLock(in: try locks, name: Self.groupLockName) { () throws in
                let key: GroupKey
                do {
                    key = try keyring.groupKey(for: group)
                } catch {
                    throw VaultError(any: error, while: "reseal the records of \(group)")
                }
                let records: DirectoryHandle
                do {
                    records = try self.records
                } catch {
                    throw VaultError(any: error, while: "reseal the records of \(group)")
                }
                // The keyring database resolved once for the batch, not at every ledger step.
                let ledger = try self.ledger.pinned()
                // 1. Each record under its own writer lock, for that record only: read, check,
                //    seal in memory. Nothing is written.
                var prepared: [PreparedReseal] = []
                var bytes = 0
                for (index, name) in names.enumerated() where bytes < Self.resealBatchBytes {
                    outcomes.append(.current)
                    do {
                        if let item = try prepareReseal(name, key: key, records: records, ledger: ledger, leftovers: leftovers[recordFileName(name)] ?? []) {
                            prepared.append(PreparedReseal(index: index, announcement: item.announcement, blob: item.blob))
                            bytes += item.blob.count
                        }
                    } catch {
                        outcomes[index] = .failed(VaultError(any: error, while: "reseal the records of \(group)"))
                    }
                }
                guard !prepared.isEmpty else { return }
                // 2. One durable ledger commit announces the batch (intent first).
                let announced: [Bool]
                do {
                    announced = try ledger.announceAll(prepared.map(\.announcement))
                } catch {
                    for item in prepared {
                        outcomes[item.index] = .failed(VaultError(any: error, while: "reseal the records of \(group)"))
                    }
                    return
                }
                #if DEBUG
                Self.resealBatchAnnounced.withLock { $0 }?()
                #endif
                // 3. Under each record's writer lock, only if its row is still the announced one
                //    (a writer, or another resealer, that announced or published since owns the
                //    record now, and its version must not be overwritten): write the temporary
                //    file, not yet fsynced. Temporary files exist only once announced, so a killed
                //    resealer's leftovers are swept as a killed writer's.
                var written: [(item: PreparedReseal, temporary: DirectoryHandle.UnsyncedTemporary)] = []
                var conflicted: [Int] = []
                for (item, wasAnnounced) in zip(prepared, announced) {
                    guard wasAnnounced else {
                        conflicted.append(item.index)
                        continue
                    }
                    do {
                        if let temporary = try writePrepared(item, records: records, ledger: ledger) {
                            written.append((item, temporary))
                        } else {
                            conflicted.append(item.index)
                        }
                    } catch {
                        // Not published: withdraw the announcement so the ledger stays as it was.
                        ledger.withdraw(item.announcement.name, sequence: item.announcement.sequence)
                        outcomes[item.index] = .failed(VaultError(any: error, while: "reseal the records of \(group)"))
                    }
                }
                // 4. Every temporary file durable before any is renamed, as in a single write,
                //    but with one syncfs for the batch instead of one fsync (one device flush)
                //    per record. If syncfs fails, for whatever reason (ENOSYS: no syncfs, or a
                //    kernel before 5.8 whose syncfs does not report writeback errors; EIO: an
                //    error somewhere on the filesystem, maybe not in these files), nothing is
                //    proven: each temporary is fsynced through the descriptor that wrote it, as
                //    a single write does, and one whose fsync fails is removed, never renamed.
                var durable = written
                if !written.isEmpty {
                    do throws(StorageError) {
                        try records.syncFileSystem()
                    } catch {
                        durable = []
                        for (item, temporary) in written {
                            do throws(StorageError) {
                                try records.syncTemporary(temporary)
                                durable.append((item, temporary))
                            } catch {
                                ledger.withdraw(item.announcement.name, sequence: item.announcement.sequence)
                                outcomes[item.index] = .failed(VaultError(storage: error, while: "reseal \(subject(item.announcement.name))"))
                            }
                        }
                    }
                    for (_, temporary) in written { temporary.close() }
                }
                #if DEBUG
                Self.resealBatchWritten.withLock { $0 }?()
                #endif
                // 5. Under each record's writer lock again, only if its row is still the
                //    announced one: rename the durable temporary over the record (otherwise it is
                //    removed, and the record left to whoever moved its row).
                var published: [PreparedReseal] = []
                for (item, temporary) in durable {
                    do {
                        if try publishPrepared(item, temporary: temporary, records: records, ledger: ledger) {
                            published.append(item)
                        } else {
                            conflicted.append(item.index)
                        }
                    } catch {
                        ledger.withdraw(item.announcement.name, sequence: item.announcement.sequence)
                        outcomes[item.index] = .failed(VaultError(any: error, while: "reseal the records of \(group)"))
                    }
                }
                // 6. One directory fsync makes the batch's renames durable, and one ledger
                //    commit confirms them. A failure here is the same late failure as a single
                //    write's: published (readers see it, the announcement covers it), not durable.
                var lateFailure: VaultError?
                if !published.isEmpty {
                    if durability == .full {
                        do throws(StorageError) {
                            try records.sync()
                        } catch {
                            lateFailure = VaultError(.notDurable, "resealed records of \(group) were published, but \(error)", underlyingError: error, remedy: .retry)
                        }
                    }
                    do {
                        try ledger.confirmAll(published.map(\.announcement))
                    } catch {
                        lateFailure = lateFailure ?? VaultError(.notDurable, "resealed records of \(group) were published, but the trust ledger could not confirm them (they were announced first, so readers accept them and confirm them when they read them): \(error)", underlyingError: error, remedy: .retry)
                    }
                }
                for item in published {
                    outcomes[item.index] = lateFailure.map { .failed($0) } ?? .resealed
                }
                // 7. A record someone else got to first: done if they sealed it with the
                //    primary key; otherwise (their write failed, or it was an older writer's
                //    key) resealed on its own, as ``reseal(_:)`` does.
                for index in conflicted {
                    do {
                        if try openRecord(names[index]).header.keyID == key.id {
                            outcomes[index] = .current
                        } else {
                            try reseal(names[index], holdingGroupLock: true)
                            outcomes[index] = .resealed
                        }
                    } catch {
                        outcomes[index] = .failed(VaultError(any: error, while: "reseal the records of \(group)"))
                    }
                }
            }
        } catch {
            // Only the lock, the key or the directory can fail here, before anything was done.
            if outcomes.isEmpty { outcomes = names.map { _ in .current } }
            for index in outcomes.indices {
                if case .current = outcomes[index] { outcomes[index] = .failed(VaultError(any: error, while: "reseal the records of \(group)")) }
            }
        }
        return outcomes
    }

    /// Step 1 of a batch for one record, under its writer lock: returns its announcement and
    /// sealed blob, or `nil` when it is already sealed with `key`. `leftovers` are the
    /// record's temporary files in the pass's one listing of the directory.
    private func prepareReseal(_ name: RecordName, key: GroupKey, records: DirectoryHandle, ledger: TrustLedger, leftovers: [String]) throws(VaultError) -> (announcement: TrustLedger.Announcement, blob: [UInt8])? {
        do {
            return try withExclusiveLock(in: try locks, name: lockName(name)) { () throws -> (announcement: TrustLedger.Announcement, blob: [UInt8])? in
                let fileName = recordFileName(name)
                // As a single write does: a killed writer's leftovers go before anything else.
                // Without a row (a ledger lost, or an earlier version's writer) they are older
                // than the row's loss, since a writer announces before it creates a temporary
                // file: the pass's listing has them (unless the ledger was lost during the
                // pass; such a file is only never read), so a group whose ledger was lost is not
                // listed once per record. With an announcement, its writer may have died after
                // the listing: the directory is listed again, which only killed writers cost.
                let before = try ledger.row(for: name)
                switch before {
                case nil: records.removeTemporaries(leftovers)
                case let row? where row.pending != nil: records.removeStaleTemporaries(for: fileName)
                default: break
                }
                let record = try openRecord(name)
                guard record.header.keyID != key.id else { return nil }
                // Refused if rolled back or conflicting: never laundered into a new sequence.
                // The common case, the blob is the confirmed version of the row just read, is
                // settled on that row with no second lookup, and that row is the one the new
                // sequence goes above: the batch's announcement commits only if the row is still
                // exactly this one (TrustLedger.announceAll), so a row that moved meanwhile
                // sends the record down the single-record path. Any other verdict, a raise
                // included, is reached on the row as it is now, and read again after it.
                let row: LedgerTable.Row?
                let snapshot = TrustLedger.Snapshot(rows: before.map { [name.rawValue: $0] } ?? [:])
                if try ledger.admit(name, sequence: record.header.sequence, digest: record.digest, subject: subject(name), against: snapshot) {
                    row = before
                } else {
                    row = try ledger.row(for: name)
                }
                var header = record.header
                header.keyID = key.id
                header.sequence = try TrustLedger.nextSequence(row: row, onDisk: record.header.sequence, subject: subject(name))
                header.nonce = makeNonce()
                let blob = BlobFormat.seal(header: header, plaintext: record.plaintext, key: key.key, group: group, name: name)
                return (TrustLedger.Announcement(name: name, expected: row, sequence: header.sequence, digest: TrustLedger.digest(of: blob)), blob)
            }
        } catch {
            throw VaultError(any: error, while: "reseal \(subject(name))")
        }
    }

    /// Step 3 of a batch for one record, under its writer lock: if the ledger row is still the
    /// one this batch announced, writes its temporary file without fsyncing it and returns it;
    /// `nil` when the row moved.
    private func writePrepared(_ item: PreparedReseal, records: DirectoryHandle, ledger: TrustLedger) throws(VaultError) -> DirectoryHandle.UnsyncedTemporary? {
        let name = item.announcement.name
        do {
            return try withExclusiveLock(in: try locks, name: lockName(name)) { () throws -> DirectoryHandle.UnsyncedTemporary? in
                guard try ledger.row(for: name) == item.announcement.announcedRow else { return nil }
                return try records.writeUnsyncedTemporary(for: recordFileName(name), item.blob)
            }
        } catch {
            throw VaultError(any: error, while: "reseal \(subject(name))")
        }
    }

    /// Step 5 of a batch for one record, under its writer lock: if the ledger row is still the
    /// one this batch announced, renames its durable temporary file over the record and returns
    /// `true`; otherwise removes the temporary file and returns `false`. Between steps 3 and 5 a
    /// writer of the record may have swept the temporary file as a killed writer's leftover:
    /// that writer then announced (the row moved, so `false`), or failed to, and the rename
    /// fails with "no such file"; the record then fails and its announcement is withdrawn.
    private func publishPrepared(_ item: PreparedReseal, temporary: DirectoryHandle.UnsyncedTemporary, records: DirectoryHandle, ledger: TrustLedger) throws(VaultError) -> Bool {
        let name = item.announcement.name
        do {
            return try withExclusiveLock(in: try locks, name: lockName(name)) { () throws -> Bool in
                guard try ledger.row(for: name) == item.announcement.announcedRow else {
                    records.discardTemporary(temporary)
                    return false
                }
                try records.publishTemporary(temporary.name, as: temporary.target)
                return true
            }
        } catch {
            records.discardTemporary(temporary)
            throw VaultError(any: error, while: "reseal \(subject(name))")
        }
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
    /// record, or an announced one, raises the ledger). The cost is one read and one open per
    /// record, and two queries of the group's whole ledger for the pass: a snapshot read before
    /// any file, which settles every record that is its confirmed version, and one read after
    /// the last file, so that a record whose row moved meanwhile is checked again as a reader
    /// would check it now. Any other verdict (a refusal, a raise) is reached against the row
    /// as it is when the file is judged, never against the snapshot. Expiry and schema are not
    /// findings: they are the reader's business.
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
        // Read after the listing and before any file: every file read is then newer than it.
        let snapshot = try ledger.snapshot()
        let onDisk = Set(files)
        // A row whose file was not listed: gone, unless the file appeared since the listing
        // (the first write of a record, announced meanwhile), which this pass did not see; a
        // finding with its cause when whether it is there cannot be told (recordFileState).
        let unlisted = snapshot.rows.keys.sorted().compactMap { (name: String) -> VerificationReport.Record? in
            guard !onDisk.contains(name) else { return nil }
            switch recordFileState(name) {
            case .present: return nil
            case .missing: return VerificationReport.Record(name: name, outcome: .missing, error: goneFinding(name, row: snapshot.rows[name]))
            case .uninspectable(let error): return VerificationReport.Record(name: name, outcome: .refused, error: error)
            }
        }
        let total = files.count + unlisted.count
        var results: [String: VerificationReport.Record] = [:]
        var bySnapshot: [String] = []
        for (index, stem) in files.enumerated() {
            verify(stem, against: snapshot, results: &results, bySnapshot: &bySnapshot)
            progress?(VaultProgress(completed: index + 1, total: total, name: stem))
        }
        if !bySnapshot.isEmpty {
            // The snapshot's acceptances hold only if their rows did not move while the pass
            // read the files; those that moved are judged again, against the rows as they are.
            for stem in try ledger.snapshot().changed(since: snapshot, among: bySnapshot) {
                verify(stem, against: nil, results: &results, bySnapshot: &bySnapshot)
            }
        }
        for (index, record) in unlisted.enumerated() {
            results[record.name] = record
            progress?(VaultProgress(completed: files.count + index + 1, total: total, name: record.name))
        }
        return VerificationReport(records: results.values.sorted { $0.name < $1.name })
    }

    /// Verifies the record file `stem` for ``verifyAll(progress:)``: its result, or none when
    /// the file was removed since the listing (a delete writes a tombstone, so that is someone
    /// removing files; the ledger shows it to the next verification).
    private func verify(_ stem: String, against snapshot: TrustLedger.Snapshot?, results: inout [String: VerificationReport.Record], bySnapshot: inout [String]) {
        results[stem] = nil
        do {
            let opened = try openTrustedRecord(try RecordName(validating: stem), snapshot: snapshot)
            results[stem] = opened.record.header.isTombstone
                ? VerificationReport.Record(name: stem, outcome: .deleted)
                : VerificationReport.Record(name: stem, outcome: .authentic, payloadBytes: opened.record.plaintext.count)
            if opened.bySnapshot { bySnapshot.append(stem) }
        } catch where error.code == .notFound {
            // Removed since the listing: no longer a record.
        } catch {
            // Counted and logged as a reader's refusal is: verification is a reader's judgement.
            report(refusal: error, of: stem)
            results[stem] = VerificationReport.Record(name: stem, outcome: .refused, error: error)
        }
    }

    /// The finding for the ledger row `name` whose record file is gone.
    private func goneFinding(_ name: String, row: LedgerTable.Row?) -> VaultError {
        let sequence = row.flatMap { $0.confirmed > 0 ? $0.confirmed : nil }
        return VaultError(
            .notFound,
            "the trust ledger of \(group) knows record \"\(name)\"\(sequence.map { " (sequence \($0))" } ?? "") but its file is gone: it was removed outside GroupVault (a delete writes a tombstone); write it again, or restore the file")
    }
}
