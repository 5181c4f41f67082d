import SealedStorage
import GroupSyncCore

/// Keeps a ``ReplicaState`` durably as a snapshot (``ReplicaStateFile``) plus a journal of the
/// changes since it (``ReplicaJournal``), so that a change costs what changed and one
/// `fdatasync`, not the whole state (docs/SYNC.md, section 7, "The journal"; docs/ARCHITECTURE.md).
///
/// A save appends one record to the journal. The journal is *compacted* (the whole state
/// written as a new snapshot, then a new empty journal put in place of the old) when it would
/// outgrow its snapshot (and at least ``compactionFloor``; twice its snapshot during a first
/// sync, ``journalLimit(snapshotSize:floor:firstSync:)``), so the bytes written stay
/// proportional to the bytes changed, and opening reads at most about twice the state. It is
/// compacted too when its file cannot be appended to safely: there is none yet, it was stale or
/// had a torn tail when opened, a change removes entries, or an append failed (the failed
/// record may be in the file in part, and nothing may follow it).
///
/// A value type with a file: ``SyncReplica`` keeps the one copy, under its lock.
struct ReplicaStateStore: Sendable {
    /// The least journal size at which a compaction is considered.
    static let compactionFloor = 1 << 20

    let snapshotFile: ReplicaStateFile
    private var journal: AppendOnlyFile?
    /// The tag the next record chains from.
    private var lastTag: [UInt8] = []
    private var journalSize = 0
    private var snapshotSize = 0
    /// ``compactionFloor`` unless a test asks for compactions sooner.
    private var compactionLimit: Int

    /// The state's journal: `<label>.journal`, beside the snapshot.
    var journalName: String { snapshotFile.label + ".journal" }

    /// Whether the next save writes a whole snapshot rather than a record (for tests).
    var compactsNext: Bool { journal == nil }

    /// Opens the state of `snapshotFile`: the snapshot, with its journal's authentic records applied.
    /// A home written before the journal existed holds a snapshot alone, read as it is; its first
    /// save compacts, which creates the journal.
    static func open(_ snapshotFile: ReplicaStateFile, compactionFloor: Int = Self.compactionFloor) throws(SyncError) -> (store: ReplicaStateStore, state: ReplicaState) {
        var store = ReplicaStateStore(snapshotFile: snapshotFile, compactionLimit: compactionFloor)
        guard let snapshot = try snapshotFile.load() else { return (store, ReplicaState()) }
        store.snapshotSize = snapshot.size
        let bytes: [UInt8]?
        do {
            bytes = try snapshotFile.directory.read(store.journalName, maximumSize: ReplicaJournal.maximumSize)
        } catch {
            throw SyncError(.storage, "the sync journal \(store.journalName) cannot be read: \(error)", underlyingError: error)
        }
        guard let bytes else { return (store, snapshot.state) }
        let replay = try ReplicaJournal.replay(bytes, onto: snapshot, in: snapshotFile)
        // Appending after a torn or unverifiable tail would hide the new records behind it: such
        // a journal (and a stale one) is replaced by the first save's compaction instead; so is
        // one of an earlier version, whose records are read in that version's body.
        if replay.followsSnapshot, replay.isWhole, replay.version == ReplicaJournal.version {
            let file: AppendOnlyFile?
            do {
                file = try snapshotFile.directory.openForAppending(store.journalName, maximumSize: ReplicaJournal.maximumSize)
            } catch {
                throw SyncError(.storage, "the sync journal \(store.journalName) cannot be opened: \(error)", underlyingError: error)
            }
            if let file, file.sizeWhenOpened == bytes.count {
                store.journal = file
                store.lastTag = replay.lastTag
                store.journalSize = bytes.count
            }
        }
        return (store, replay.state)
    }

    /// Makes `new` durable, given that `old` is what is durable now; `names`, when given, are
    /// the only entries that may differ between them. Writes nothing when nothing changed.
    mutating func save(_ new: ReplicaState, replacing old: ReplicaState, changing names: [String]? = nil) throws(SyncError) {
        let change: ReplicaState
        switch ReplicaJournal.change(from: old, to: new, among: names) {
        case .unchanged: return
        case .removesEntries: return try compact(new)
        case .record(let record): change = record
        }
        try append(change) { new }
    }

    /// Makes the record `change` (``ReplicaJournal/change(from:to:among:)``) durable: appended to
    /// the journal, or, when the journal must be compacted, `whole()` (the state the record leads
    /// to) written as the new snapshot. The caller need not build the whole state unless asked.
    /// With `flush` `.withNextFlush` the record is appended without its `fdatasync`
    /// (``AppendOnlyFile/Flush``): for a change whose loss in a power failure the next round
    /// repairs from the server (``SyncReplica``); a compaction is flushed all the same.
    mutating func append(_ change: ReplicaState, flush: AppendOnlyFile.Flush = .beforeReturning, orCompact whole: () -> ReplicaState) throws(SyncError) {
        guard let journal else { return try compact(whole()) }
        let record = try ReplicaJournal.record(change, after: lastTag, in: snapshotFile)
        if journalSize + record.bytes.count > Self.journalLimit(snapshotSize: snapshotSize, floor: compactionLimit, firstSync: !change.initialSyncDone) {
            return try compact(whole())
        }
        do {
            try journal.append(record.bytes, flush: flush)
        } catch {
            self.journal = nil
            throw SyncError(.storage, "the sync journal \(journalName) cannot be appended to: \(error); the change is not known to be durable and was not applied", underlyingError: error)
        }
        journalSize += record.bytes.count
        lastTag = record.tag
    }

    /// The size past which the journal is compacted: its snapshot's (and at least `floor`);
    /// twice its snapshot's during a first sync (until the first complete catch-up). Then every
    /// record adds entries the snapshot lacks, and the state doubles between compactions: a
    /// first sync of 10,000 values wrote it whole three times, about its own size again in all.
    /// Twice lets it grow threefold instead, for about half those bytes; opening then reads at
    /// most about three times the state rather than twice.
    static func journalLimit(snapshotSize: Int, floor: Int, firstSync: Bool) -> Int {
        max(firstSync ? 2 * snapshotSize : snapshotSize, floor)
    }

    /// Writes `state` as the new snapshot, durably, then an empty journal following it in place
    /// of the old one. Crash-safe in that order: until the new snapshot is durable the old
    /// snapshot and journal stand; after it, the old journal names the old snapshot and is ignored.
    mutating func compact(_ state: ReplicaState) throws(SyncError) {
        journal = nil
        let snapshot = try snapshotFile.save(state)
        let header = ReplicaJournal.header(following: snapshot.tag)
        let file: AppendOnlyFile?
        do {
            try snapshotFile.directory.replace(journalName, with: header, durability: .full)
            file = try snapshotFile.directory.openForAppending(journalName, maximumSize: ReplicaJournal.maximumSize)
        } catch {
            throw SyncError(.storage, "the sync journal \(journalName) cannot be started: \(error)", underlyingError: error)
        }
        guard let file else {
            throw SyncError(.storage, "the sync journal \(journalName) vanished as it was started; something else is writing the GroupSync directory")
        }
        journal = file
        lastTag = snapshot.tag
        journalSize = header.count
        snapshotSize = snapshot.size
    }
}
