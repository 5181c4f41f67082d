import Keyring
import SealedStorage

/// What the keyring trusts about each record of one group: the confirmed sequence and blob
/// digest, and the sequence a writer announced before publishing it. Kept in the keyring's
/// database (one authenticated row per record, ``LedgerTable``), not in the container.
///
/// Why there: anyone who can write the group container can put an old, validly sealed blob
/// back. A ledger beside it could be put back just as easily. The keyring is outside the
/// container and its rows are tagged with a key derived from the master secret, so a
/// container-only attacker can neither forge an entry nor lower one (docs/FORMAT.md, "Trust
/// ledger").
///
/// Intent first: a writer commits the sequence (and digest) it is about to publish *before*
/// the record file changes, and confirms it after the rename. So a write whose ledger step
/// fails publishes nothing, and a published record is always covered by a durable entry.
/// Readers accept a sequence at or above the confirmed one; the announced one confirms itself
/// when a reader sees its blob; a newer authentic blob the ledger does not know (a ledger lost
/// or restored from a backup) raises it, but only within ``sequenceWindow`` of what is
/// trusted. Entries only ever go up, except that a writer withdraws its own announcement when
/// it failed before publishing.
package struct TrustLedger: Sendable {
    /// What is trusted about one record.
    package struct Entry: Codable, Sendable, Equatable {
        /// The highest sequence accepted for the record.
        package var sequence: UInt64
        /// Lowercase hex BLAKE2b-256 of the whole blob that carried ``sequence``.
        package var digest: String

        package init(sequence: UInt64, digest: String) {
            self.sequence = sequence
            self.digest = digest
        }
    }

    /// The content of the sealed-JSON ledger of earlier versions (`vault-ledger.sealed` in the
    /// group's keychain directory), read only to import it.
    package struct Content: Codable, Sendable, Equatable {
        package var records: [String: Entry]

        package init(records: [String: Entry] = [:]) {
            self.records = records
        }
    }

    /// The sealed document kind of the earlier ledger, also its file stem.
    package static let kind = "vault-ledger"

    /// How far past the trusted (confirmed or announced) sequence an authentic blob may be and
    /// still be accepted: 2^32.
    ///
    /// Honest writers announce every sequence before publishing it, so a record is never ahead
    /// of its ledger entry, except after the ledger was lost or restored from a backup; then by
    /// the number of writes since, far below 2^32. A blob beyond the window can only be forged
    /// by a holder of the group key (to push the sequence to 2^64-1 and make the record
    /// unwritable), and is refused as ``VaultError/Code/untrustedSequence``; writers do not
    /// count it either. So the top of the sequence space is out of reach: at 2^32 per step it
    /// takes 2^32 forged writes, each read by a reader, to get there (docs/FORMAT.md).
    package static let sequenceWindow: UInt64 = 1 << 32

    /// The home whose keyring database holds the ledger.
    package let home: KeyringHome
    /// The group whose records this ledger covers.
    package let group: GroupIdentifier
    /// The table every use goes through, when ``pinned()`` resolved it; otherwise each use
    /// resolves the home's database anew (which notices a replaced master secret).
    private let pinnedTable: LedgerTable?

    package init(home: KeyringHome, group: GroupIdentifier) {
        self.home = home
        self.group = group
        self.pinnedTable = nil
    }

    private init(home: KeyringHome, group: GroupIdentifier, pinnedTable: LedgerTable) {
        self.home = home
        self.group = group
        self.pinnedTable = pinnedTable
    }

    /// This ledger with its database resolved once, for one operation that uses it several
    /// times (a write: its row, announcement and confirmation; a reseal batch).
    ///
    /// Why: resolving the database checks that `master.key` is unchanged (a handful of
    /// `stat`s of the home), which a write would otherwise pay for every ledger step. One
    /// operation using one connection throughout is also what it would see had it run just
    /// before a concurrent replacement of the master secret; the next operation resolves again.
    package func pinned() throws(VaultError) -> TrustLedger {
        guard pinnedTable == nil else { return self }
        do {
            return TrustLedger(home: home, group: group, pinnedTable: try table())
        } catch {
            throw VaultError(keyring: error, while: "open the trust ledger of \(group)")
        }
    }

    /// The digest the ledger keeps for `blob`.
    package static func digest(of blob: [UInt8]) -> String {
        Hex.lowercase(Digest.blake2b256(blob))
    }

    /// ``digest(of:)`` of `blob`, the file of `name`, remembered with the blob's exact bytes: a
    /// warm read of an unchanged record compares 1 KB with `memcmp` instead of hashing it (7,100
    /// of a read's 103,400 instructions for a 1 KiB record). Sound with no invalidation: the
    /// digest is unkeyed, a function of the bytes alone, which are compared in full; the name
    /// only narrows the search. The blobs kept are sealed (docs/ARCHITECTURE.md, "A record
    /// blob's digest and a ledger row's tag, remembered by their bytes").
    package static func digest(of blob: [UInt8], named name: RecordName) -> String {
        if let digest = rememberedDigests.withLock({ $0.result(for: name.rawValue, blob) }) { return digest }
        let digest = digest(of: blob)
        rememberedDigests.withLock { $0.remember(digest, for: name.rawValue, blob) }
        return digest
    }

    /// The digests of the blobs this process read last, by record name: at most 64 blobs of at
    /// most 16 KiB each.
    private static let rememberedDigests = Locked(ExactBytesMemo<String, String>(capacity: 64, largestInput: 16 * 1_024))

    /// The confirmed entry for `name`, or `nil` if nothing was confirmed for it. One lookup.
    package func entry(for name: RecordName) throws(VaultError) -> Entry? {
        guard let row = try row(for: name), row.confirmed > 0 else { return nil }
        return Entry(sequence: row.confirmed, digest: row.confirmedDigest)
    }

    /// The whole row of `name` (confirmed and announced), or `nil`.
    package func row(for name: RecordName, in database: KeyringDatabase? = nil) throws(VaultError) -> LedgerTable.Row? {
        do {
            return try table(in: database).row(name.rawValue)
        } catch {
            throw VaultError(keyring: error, while: "read the trust ledger of \(group)")
        }
    }

    /// The highest sequence a writer must go above: the confirmed or announced one, or the
    /// authentic blob's when that is ahead within ``sequenceWindow``.
    package static func lastSequence(row: LedgerTable.Row?, onDisk: UInt64) -> UInt64 {
        let trusted = max(row?.confirmed ?? 0, row?.pending ?? 0)
        return Self.isWithinWindow(onDisk, of: trusted) ? max(trusted, onDisk) : trusted
    }

    /// The sequence a writer (a write or a reseal) seals next: one above ``lastSequence(row:onDisk:)``.
    /// - Throws: ``VaultError/Code/storage`` when the last sequence is 2^64-1: the record cannot
    ///   be written again, and the message names the way out.
    package static func nextSequence(row: LedgerTable.Row?, onDisk: UInt64, subject: @autoclosure () -> String) throws(VaultError) -> UInt64 {
        let last = lastSequence(row: row, onDisk: onDisk)
        guard last < UInt64.max else {
            throw VaultError(.storage, "\(subject()) has used every sequence number up to 2^64-1 (only blobs forged with the group key can get it there, 2^32 at a time); it cannot be written again: write the data under a new record name")
        }
        return last + 1
    }

    /// Every record name the ledger has a row for, sorted.
    package func recordNames() throws(VaultError) -> [String] {
        do {
            return try table().records()
        } catch {
            throw VaultError(keyring: error, while: "list the trust ledger of \(group)")
        }
    }

    /// The group's whole ledger as it is now, read in one query: what a pass over every record
    /// (``Vault/verifyAll(progress:)``) judges against instead of one lookup per record.
    package func snapshot() throws(VaultError) -> Snapshot {
        do {
            return Snapshot(rows: try table().allRows())
        } catch {
            throw VaultError(keyring: error, while: "read the trust ledger of \(group)")
        }
    }

    /// Every row as stored, with its tag, sorted by record name; rows whose tag fails are
    /// included and marked, not refused (``Vault/ledgerRows()``).
    package func storedRows() throws(VaultError) -> [LedgerTable.StoredRow] {
        do {
            return try table().storedRows()
        } catch {
            throw VaultError(keyring: error, while: "read the trust ledger of \(group)")
        }
    }

    /// Every row of one group's ledger at one moment. It goes stale as writers and readers
    /// move rows on, so it may only settle what it accepts unchanged
    /// (``TrustLedger/admit(_:sequence:digest:subject:against:)``), and a pass must check
    /// afterwards that the rows it relied on did not move (``changed(since:among:)``).
    package struct Snapshot: Sendable, Equatable {
        /// The rows by record name.
        package var rows: [String: LedgerTable.Row]

        package init(rows: [String: LedgerTable.Row]) {
            self.rows = rows
        }

        /// The names among `names` whose row is not the same in `self` as in `earlier`.
        package func changed(since earlier: Snapshot, among names: some Sequence<String>) -> [String] {
            names.filter { rows[$0] != earlier.rows[$0] }
        }
    }

    // MARK: Readers

    /// Checks an authentic blob's sequence against the ledger, and raises the ledger when the
    /// blob is newer (or is the announced one). One indexed lookup when nothing changes, the
    /// common case for a reader.
    ///
    /// - Throws: ``VaultError/Code/rollback`` when the sequence is below the confirmed one,
    ///   ``VaultError/Code/conflictingContent`` when it equals the confirmed or announced one
    ///   with another digest, ``VaultError/Code/untrustedSequence`` beyond the window.
    ///
    /// `database`, when given, is the keyring database this operation already opened (for the
    /// blob's key): the home is then not looked at again.
    package func admit(_ name: RecordName, sequence: UInt64, digest: String, subject: @autoclosure () -> String, in database: KeyringDatabase? = nil) throws(VaultError) {
        let current = try row(for: name, in: database)
        guard case .raise = try Self.judge(current, sequence: sequence, digest: digest, subject: subject()) else { return }
        let verdict: Verdict
        do {
            verdict = try table(in: database).update(name.rawValue) { (row: inout LedgerTable.Row?) -> Verdict in
                // Judged again on the row as it is now: another process may have moved it.
                let verdict = Self.verdict(row, sequence: sequence, digest: digest, subject: subject())
                if case .raise = verdict {
                    var raised = row ?? LedgerTable.Row(confirmed: 0, confirmedDigest: "")
                    raised.confirmed = sequence
                    raised.confirmedDigest = digest
                    if let pending = raised.pending, pending <= sequence {
                        raised.pending = nil
                        raised.pendingDigest = nil
                    }
                    row = raised
                }
                return verdict
            }
        } catch {
            throw VaultError(keyring: error, while: "raise the trust ledger of \(group)")
        }
        if case .refuse(let error) = verdict { throw error }
    }

    /// ``admit(_:sequence:digest:subject:)`` judged first against `snapshot`, read before the
    /// blob was: when the snapshot's row accepts the blob unchanged (the blob is its confirmed
    /// version), no lookup is made and this returns `true`. Any other verdict is settled
    /// against the row as it is now, exactly as ``admit(_:sequence:digest:subject:)`` does, and
    /// this returns `false`: so a stale snapshot never refuses a blob that the current row
    /// accepts, and never raises the ledger from stale data.
    ///
    /// An acceptance by the snapshot holds for the moment the snapshot was read. The caller
    /// must confirm that the row has not moved since (``Snapshot/changed(since:among:)`` on a
    /// snapshot read after the blob): an acceptance depends only on the confirmed sequence and
    /// digest, which only go up, so if they are the same before the blob was read and after,
    /// they were the same when it was read, and the verdict is the one a reader would have
    /// reached then.
    @discardableResult
    package func admit(
        _ name: RecordName, sequence: UInt64, digest: String, subject: @autoclosure () -> String, against snapshot: Snapshot, in database: KeyringDatabase? = nil
    ) throws(VaultError) -> Bool {
        if case .accept = Self.verdict(snapshot.rows[name.rawValue], sequence: sequence, digest: digest, subject: subject()) { return true }
        try admit(name, sequence: sequence, digest: digest, subject: subject(), in: database)
        return false
    }


    // MARK: Writers (holding the record's writer lock)

    /// Commits that `sequence` with `digest` is about to be published. Nothing may be
    /// published if this throws.
    ///
    /// Not flushed (``KeyringDatabase/CommitDurability/deferred``): other processes see it at
    /// once and a killed writer does not lose it; the confirmation's flush, after the rename,
    /// makes it durable with itself. A power loss before that leaves a published file above
    /// every durable ledger entry, which readers accept and raise the ledger to, as after any
    /// write interrupted before it returned (docs/FORMAT.md, "A crash between the two"). A
    /// `.full` write thus waits for three flushes, not four.
    package func announce(_ name: RecordName, sequence: UInt64, digest: String) throws(VaultError) {
        do {
            try table().update(name.rawValue, durability: .deferred, fault: .ledgerIntent) { (row: inout LedgerTable.Row?) in
                var announced = row ?? LedgerTable.Row(confirmed: 0, confirmedDigest: "")
                announced.pending = sequence
                announced.pendingDigest = digest
                row = announced
            }
        } catch {
            throw VaultError(.storage, "record sequence \(sequence) of \"\(name)\" in the trust ledger of \(group) before publishing it failed, so nothing was published (the previous version is still current): \(error)", underlyingError: error)
        }
    }

    /// Withdraws the announcement of `sequence` after a failure before the rename. Best
    /// effort, and not flushed: a stale announcement only means the next writer goes above it.
    package func withdraw(_ name: RecordName, sequence: UInt64) {
        _ = try? table().update(name.rawValue, durability: .deferred) { (row: inout LedgerTable.Row?) in
            guard var withdrawn = row, withdrawn.pending == sequence else { return }
            withdrawn.pending = nil
            withdrawn.pendingDigest = nil
            row = withdrawn.confirmed == 0 ? nil : withdrawn
        }
    }

    /// Records, durably, that `sequence` was published: it becomes the confirmed entry. Its
    /// flush also makes the announcement durable: once it returns, the previous version is a
    /// rollback for good, power loss included.
    package func confirm(_ name: RecordName, sequence: UInt64, digest: String) throws(VaultError) {
        do {
            try table().update(name.rawValue, fault: .ledgerConfirm) { (row: inout LedgerTable.Row?) in
                row = Self.confirming(row, sequence: sequence, digest: digest)
            }
        } catch {
            throw VaultError(keyring: error, while: "confirm sequence \(sequence) of \"\(name)\" in the trust ledger of \(group)")
        }
    }

    // MARK: Batch writers (resealAll)

    /// One record of a batch announcement: the row its writer saw while holding the record's
    /// writer lock, and the version it means to publish.
    package struct Announcement: Sendable {
        package var name: RecordName
        package var expected: LedgerTable.Row?
        package var sequence: UInt64
        package var digest: String

        package init(name: RecordName, expected: LedgerTable.Row?, sequence: UInt64, digest: String) {
            self.name = name
            self.expected = expected
            self.sequence = sequence
            self.digest = digest
        }

        /// The row once this announcement is committed and nothing else happened to the record.
        package var announcedRow: LedgerTable.Row {
            var row = expected ?? LedgerTable.Row(confirmed: 0, confirmedDigest: "")
            row.pending = sequence
            row.pendingDigest = digest
            return row
        }
    }

    /// Commits, in one transaction not flushed (as ``announce(_:sequence:digest:)``), the
    /// announcements of a batch; each only if its
    /// record's row is still the one its writer saw (a writer or reader that moved it since
    /// wins, and that record must not be published from this batch). Returns, in order,
    /// which were announced. Nothing of the batch may be published if this throws.
    package func announceAll(_ batch: [Announcement]) throws(VaultError) -> [Bool] {
        do {
            return try table().updateAll(batch.map(\.name.rawValue), durability: .deferred, fault: .ledgerIntent) { (index: Int, row: inout LedgerTable.Row?) -> Bool in
                guard row == batch[index].expected else { return false }
                row = batch[index].announcedRow
                return true
            }
        } catch {
            throw VaultError(.storage, "record the new sequences of \(batch.count) record(s) in the trust ledger of \(group) before publishing them failed, so none was published: \(error)", underlyingError: error)
        }
    }

    /// ``confirm(_:sequence:digest:)`` for several published records, in one flushed transaction.
    package func confirmAll(_ batch: [Announcement]) throws(VaultError) {
        guard !batch.isEmpty else { return }
        do {
            _ = try table().updateAll(batch.map(\.name.rawValue), fault: .ledgerConfirm) { (index: Int, row: inout LedgerTable.Row?) in
                row = Self.confirming(row, sequence: batch[index].sequence, digest: batch[index].digest)
            }
        } catch {
            throw VaultError(keyring: error, while: "confirm the new sequences of \(batch.count) record(s) in the trust ledger of \(group)")
        }
    }

    /// `row` once `sequence` is confirmed: entries only go up, and an announcement at or below
    /// it is settled.
    private static func confirming(_ row: LedgerTable.Row?, sequence: UInt64, digest: String) -> LedgerTable.Row {
        var confirmed = row ?? LedgerTable.Row(confirmed: 0, confirmedDigest: "")
        if confirmed.confirmed < sequence {
            confirmed.confirmed = sequence
            confirmed.confirmedDigest = digest
        }
        if let pending = confirmed.pending, pending <= sequence {
            confirmed.pending = nil
            confirmed.pendingDigest = nil
        }
        return confirmed
    }

    /// Forgets every entry of the group, as if the ledger had been lost. For tests and recovery.
    package func removeAll() throws(VaultError) {
        do {
            try table().removeAll()
        } catch {
            throw VaultError(keyring: error, while: "clear the trust ledger of \(group)")
        }
    }

    // MARK: Rules

    private enum Verdict {
        /// Accepted; the ledger stays as it is.
        case accept
        /// Accepted; the ledger must be raised to this sequence.
        case raise
        /// Refused.
        case refuse(VaultError)
    }

    private static func judge(_ row: LedgerTable.Row?, sequence: UInt64, digest: String, subject: @autoclosure () -> String) throws(VaultError) -> Verdict {
        let verdict = verdict(row, sequence: sequence, digest: digest, subject: subject())
        if case .refuse(let error) = verdict { throw error }
        return verdict
    }

    /// `subject` names the record in a refusal, and is made only for one.
    private static func verdict(_ row: LedgerTable.Row?, sequence: UInt64, digest: String, subject: @autoclosure () -> String) -> Verdict {
        let confirmed = row?.confirmed ?? 0
        if sequence < confirmed {
            return .refuse(VaultError(.rollback, "\(subject()) has sequence \(sequence), lower than the trusted \(confirmed): an older copy was put back; it was not used (write the record again to replace it)"))
        }
        if sequence == confirmed, confirmed > 0 {
            return digest == row?.confirmedDigest ? .accept : .refuse(conflict(subject(), sequence))
        }
        if let pending = row?.pending, sequence == pending {
            // The announced version, published by a writer that has not confirmed it (yet).
            return digest == row?.pendingDigest ? .raise : .refuse(conflict(subject(), sequence))
        }
        let trusted = max(confirmed, row?.pending ?? 0)
        guard isWithinWindow(sequence, of: trusted) else {
            return .refuse(VaultError(.untrustedSequence, "\(subject()) has sequence \(sequence), more than 2^32 past the trusted \(trusted): no writer can have got there; it was sealed with the group key by someone trying to exhaust the sequence space, and was not used (write the record again to replace it)"))
        }
        return .raise
    }

    private static func conflict(_ subject: String, _ sequence: UInt64) -> VaultError {
        VaultError(.conflictingContent, "\(subject) has the trusted sequence \(sequence) but different content: two blobs claim the same version; it was not used (write the record again to replace it)")
    }

    private static func isWithinWindow(_ sequence: UInt64, of trusted: UInt64) -> Bool {
        sequence <= trusted || sequence - trusted <= sequenceWindow
    }

    // MARK: The table, and the import of the earlier layout

    /// The group's rows; on first use in a process, imports the group's sealed-JSON ledger of
    /// earlier versions if the database has not imported it yet (the old file is kept).
    ///
    /// `database` is the home's database as this operation already opened it, if it did.
    private func table(in database: KeyringDatabase? = nil) throws(KeyringError) -> LedgerTable {
        if database == nil, let pinnedTable { return pinnedTable }
        let table: LedgerTable
        if let database {
            table = try LedgerTable(database: database, group: group)
        } else {
            table = try LedgerTable(home: home, group: group)
        }
        // Known per database connection, so the check costs a lookup in memory.
        let imported = KeyringDatabase.Fact(kind: "Vault: trust ledger imported", subject: group.rawValue)
        guard !table.database.hasEstablished(imported) else { return table }
        let legacy = SealedDocument<Content>(home: home, group: group, kind: Self.kind)
        try table.importOnce { () throws(KeyringError) in
            let content = try legacy.read()
            return (content?.records ?? [:]).mapValues { (sequence: $0.sequence, digest: $0.digest) }
        }
        table.database.establish(imported)
        return table
    }
}
