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
/// proportional to the bytes changed, and opening reads at most about twice the state. The
/// pages of a first sync's catch-up are left to grow it, and it is compacted once the catch-up
/// is complete (``Compaction/afterTheCatchUp``, ``compactIfDue(_:)``). It is
/// compacted too when its file cannot be appended to safely: there is none yet, it was stale or
/// had a torn tail when opened, a change removes entries, or an append failed (the failed
/// record may be in the file in part, and nothing may follow it).
///
/// Several processes of one home may keep the same store (a daemon, its widget, a CLI): each
/// change is made under the store's lock (`<label>.lock`, held by ``SyncReplica``), after reading
/// again whatever another process wrote since this one last read or wrote the files
/// (``changedElsewhere()``, ``reopened()``). The journal is opened for each append and closed
/// after it, so that the close is what the other processes' watches see (docs/SYNC.md,
/// section 7, "Processes of one home").
///
/// A value type with files: ``SyncReplica`` keeps the one copy, under its lock.
struct ReplicaStateStore: Sendable {
    /// The least journal size at which a compaction is considered.
    static let compactionFloor = 1 << 20

    let snapshotFile: ReplicaStateFile
    /// Whether the next record may be appended to the journal on disk: it follows the snapshot,
    /// is whole and of this version. Otherwise the next save compacts, unless the journal is
    /// only awaited (``journalAwaited``).
    private var appendable = false
    /// Set when a compaction wrote its snapshot and left the journal that follows it to be
    /// started after the state was shown (``JournalStart/afterShowing``): the snapshot's tag,
    /// which the journal's header names. ``startAwaitedJournal()`` starts it, and so does the
    /// next append.
    private var journalAwaited: [UInt8]?
    /// The versions of the snapshot and the journal as this store last read or wrote them.
    private(set) var seenFiles: [FileVersion?] = []
    /// The tag the next record chains from.
    private var lastTag: [UInt8] = []
    private var journalSize = 0
    private var snapshotSize = 0
    /// ``compactionFloor`` unless a test asks for compactions sooner.
    private var compactionLimit: Int

    /// The state's journal: `<label>.journal`, beside the snapshot.
    var journalName: String { snapshotFile.journalName }

    /// Whether the next save writes a whole snapshot rather than a record (for tests).
    var compactsNext: Bool { !appendable && journalAwaited == nil }

    /// Whether a compaction left its journal to be started (``JournalStart/afterShowing``).
    var awaitsJournal: Bool { journalAwaited != nil }

    /// Opens the state of `snapshotFile`: the snapshot, with its journal's authentic records applied.
    /// A home written before the journal existed holds a snapshot alone, read as it is; its first
    /// save compacts, which creates the journal.
    static func open(_ snapshotFile: ReplicaStateFile, compactionFloor: Int = Self.compactionFloor) throws(SyncError) -> (store: ReplicaStateStore, state: ReplicaState) {
        var store = ReplicaStateStore(snapshotFile: snapshotFile, compactionLimit: compactionFloor)
        // Before reading: what is read is then at least as new as the versions kept.
        store.seenFiles = try store.fileVersions()
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
            store.appendable = true
            store.lastTag = replay.lastTag
            store.journalSize = bytes.count
        }
        return (store, replay.state)
    }

    /// The store as the files hold it now, read again (after ``changedElsewhere()``).
    func reopened() throws(SyncError) -> (store: ReplicaStateStore, state: ReplicaState) {
        try Self.open(snapshotFile, compactionFloor: compactionLimit)
    }

    /// Whether the snapshot or the journal changed since this store last read or wrote them:
    /// another process of the home wrote the store. Two `fstatat`s.
    func changedElsewhere() throws(SyncError) -> Bool {
        try fileVersions() != seenFiles
    }

    /// The versions of the snapshot and the journal now (`nil` for a missing file).
    private func fileVersions() throws(SyncError) -> [FileVersion?] {
        try Self.fileVersions(of: snapshotFile)
    }

    /// The versions of `snapshotFile` and its journal now, as ``seenFiles`` holds them.
    static func fileVersions(of snapshotFile: ReplicaStateFile) throws(SyncError) -> [FileVersion?] {
        // Two calls, not a loop over an array of the names: this runs twice on every change.
        func version(of name: String) throws(SyncError) -> FileVersion? {
            do {
                return try snapshotFile.directory.status(of: name).map(FileVersion.init)
            } catch {
                throw SyncError(.storage, "the sync state \(name) cannot be looked up: \(error)", underlyingError: error)
            }
        }
        return [try version(of: snapshotFile.fileName), try version(of: snapshotFile.journalName)]
    }

    /// Keeps the files' versions after this store wrote them (under the lock, so nobody else
    /// wrote since). Should they not be readable, none are kept, so the next change reads the
    /// store again rather than trust a state that may not be the files'.
    private mutating func noteWritten() {
        seenFiles = (try? fileVersions()) ?? []
    }

    /// Makes `new` durable, given that `old` is what is durable now; `names`, when given, are
    /// the only entries that may differ between them. Writes nothing when nothing changed.
    mutating func save(
        _ new: ReplicaState, replacing old: ReplicaState, changing names: [EntryName]? = nil, compaction: Compaction = .whenDue
    ) throws(SyncError) {
        let change: ReplicaState
        switch ReplicaJournal.change(from: old, to: new, among: names) {
        case .unchanged: return
        case .removesEntries: return try compact(new)
        case .record(let record): change = record
        }
        try append(change, compaction: compaction) { new }
    }

    /// When an append compacts a journal that grew past its limit.
    enum Compaction: Sendable {
        /// As soon as the record would take the journal past ``journalLimit(snapshotSize:floor:firstSync:)``.
        case whenDue
        /// Only past ``ReplicaStateFile/maximumSize``, the largest state a snapshot holds: for
        /// the pages of a first sync's catch-up, each of which adds entries the snapshot lacks.
        /// The catch-up compacts once when it is complete and its observers were told
        /// (``compactIfDue(_:)``), so that a fresh machine writes its state whole once, not at
        /// every doubling, and not before it shows the values it read.
        case afterTheCatchUp
    }

    /// Makes the record `change` (``ReplicaJournal/change(from:to:among:)``) durable: appended to
    /// the journal, or, when the journal must be compacted, `whole()` (the state the record leads
    /// to) written as the new snapshot. The caller need not build the whole state unless asked.
    /// With `flush` `.withNextFlush` the record is appended without its `fdatasync`
    /// (``AppendOnlyFile/Flush``): for a change whose loss in a power failure the next round
    /// repairs from the server (``SyncReplica``); a compaction is flushed all the same.
    mutating func append(
        _ change: ReplicaState, flush: AppendOnlyFile.Flush = .beforeReturning, compaction: Compaction = .whenDue,
        orCompact whole: () -> ReplicaState
    ) throws(SyncError) {
        try startAwaitedJournal()
        guard appendable else { return try compact(whole()) }
        let record = try ReplicaJournal.record(change, after: lastTag, in: snapshotFile)
        let limit = switch compaction {
        case .whenDue: Self.journalLimit(snapshotSize: snapshotSize, floor: compactionLimit, firstSync: !change.initialSyncDone)
        case .afterTheCatchUp: ReplicaStateFile.maximumSize
        }
        if journalSize + record.bytes.count > limit { return try compact(whole()) }
        let journal: AppendOnlyFile?
        do {
            journal = try snapshotFile.directory.openForAppending(journalName, maximumSize: ReplicaJournal.maximumSize)
        } catch {
            throw SyncError(.storage, "the sync journal \(journalName) cannot be opened: \(error)", underlyingError: error)
        }
        // Not the journal this store read or wrote last: the caller checked under the lock that
        // nobody changed it, so something outside GroupSync did. Replaced whole instead.
        guard let journal, journal.sizeWhenOpened == journalSize else { return try compact(whole()) }
        do {
            try journal.append(record.bytes, flush: flush)
        } catch {
            appendable = false
            noteWritten()
            throw SyncError(.storage, "the sync journal \(journalName) cannot be appended to: \(error); the change is not known to be durable and was not applied", underlyingError: error)
        }
        journalSize += record.bytes.count
        lastTag = record.tag
        noteWritten()
        // The journal closes here, after the record was written (and flushed, if asked): the
        // close is what the watches of the home's other processes see.
    }

    /// Compacts the journal into `state` (the state it leads to) if it grew past its limit
    /// (``journalLimit(snapshotSize:floor:firstSync:)``) under appends that left it to grow
    /// (``Compaction/afterTheCatchUp``). A journal that cannot be appended to is left to the
    /// next save, which compacts it anyway.
    mutating func compactIfDue(_ state: ReplicaState) throws(SyncError) {
        guard appendable, journalSize > Self.journalLimit(snapshotSize: snapshotSize, floor: compactionLimit, firstSync: !state.initialSyncDone) else { return }
        try compact(state)
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

    /// When a compaction starts the journal that follows its snapshot.
    enum JournalStart: Sendable {
        /// Before the compaction returns.
        case now
        /// Later: by ``startAwaitedJournal()``, which the caller calls once it has shown the
        /// state, or by the next append. The state is durable once its snapshot is: until the
        /// new journal is in place the old one names the old snapshot and is ignored. For a
        /// fresh machine taking the server's snapshot, whose observers need not wait for two
        /// more flushes (docs/ARCHITECTURE.md, "A taken snapshot is shown before its journal
        /// is started").
        case afterShowing
    }

    /// Writes `state` as the new snapshot, durably, then an empty journal following it in place
    /// of the old one (at once, or when `journal` says). Crash-safe in that order: until the new
    /// snapshot is durable the old snapshot and journal stand; after it, the old journal names
    /// the old snapshot and is ignored.
    mutating func compact(_ state: ReplicaState, startingTheJournal journal: JournalStart = .now) throws(SyncError) {
        appendable = false
        journalAwaited = nil
        // A failure here was this process's own: the files are noted as written, so the next
        // change does not read back a state it reported as not kept, and compacts again.
        let snapshot: ReplicaStateFile.Snapshot
        do throws(SyncError) {
            snapshot = try snapshotFile.save(state)
        } catch {
            noteWritten()
            throw error
        }
        lastTag = snapshot.tag
        snapshotSize = snapshot.size
        journalAwaited = snapshot.tag
        // Noted here only when the journal waits: starting it notes the files either way.
        guard journal == .now else {
            noteWritten()
            return
        }
        do {
            try startAwaitedJournal()
        } catch {
            // The caller keeps the state it had, not this one, when the compaction fails: a
            // journal started later would chain its records to a snapshot the caller never
            // took. The next save compacts whole instead.
            journalAwaited = nil
            throw error
        }
    }

    /// Puts the journal a compaction left awaited (``JournalStart/afterShowing``) in place of the
    /// old one, durably: a header naming the snapshot's tag. Does nothing when none is awaited.
    /// On failure it stays awaited, and the next append tries again: the journal is replaced
    /// whole, so the file is the old journal or the new one, never part of either.
    mutating func startAwaitedJournal() throws(SyncError) {
        guard let tag = journalAwaited else { return }
        do {
            try snapshotFile.directory.replace(journalName, with: ReplicaJournal.header(following: tag), durability: .full)
        } catch {
            noteWritten()
            throw SyncError(.storage, "the sync journal \(journalName) cannot be started: \(error)", underlyingError: error)
        }
        journalAwaited = nil
        appendable = true
        journalSize = ReplicaJournal.headerSize
        noteWritten()
    }
}
