#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Keyring
import SealedStorage
import Vault
import GroupSyncCore

/// One machine's copy of one synced space: the values it reads without the network, the
/// freshness state it judges the server by, and the writes it has not pushed yet, all kept
/// durably in a ``ReplicaStateStore`` (docs/SYNC.md, sections 7 and 8).
///
/// Every method is synchronous and local; ``SyncRound`` moves data between it and a server.
final class SyncReplica: Sendable {
    /// A value as the store shows it.
    struct Value: Sendable, Equatable {
        var key: String
        var bytes: [UInt8]
    }

    /// A write to send: `blob` at `sequence` if the server still holds `base` for the entry.
    struct Push: Sendable {
        var name: [UInt8]
        var base: UInt64
        var sequence: UInt64
        var blob: [UInt8]
        /// The local write this pushes; `nil` for a republication after a server rollback.
        var pendingNumber: UInt64?
    }

    let group: GroupIdentifier
    let keyring: Keyring
    let naming: SyncNaming
    let space: [UInt8]
    let channel: String
    let policy: SyncPolicy
    /// What the store's entries must hold to be accepted from the server.
    let contents: SyncedContents

    private struct Memory {
        var state: ReplicaState
        var values: [EntryName: Value]
        var store: ReplicaStateStore
        /// What another process changed, read again, not yet told to this process's observers.
        var untold = OtherProcessesChanges()
    }
    private let memory: Locked<Memory>
    private let observers = Locked<[UInt64: AsyncStream<UbiquitousChange>.Continuation]>([:])
    private let conflictObservers = Locked<[UInt64: AsyncStream<SyncConflict>.Continuation]>([:])
    private let nextObserver = Locked<UInt64>(0)
    private let wake = Locked<AsyncStream<Void>.Continuation?>(nil)
    /// Lets one ``SyncRound`` of this space run at a time in this process, whichever connection
    /// it runs on; ``withRoundLock(_:)`` does the same between the home's processes.
    let rounds = RoundGate()
    /// The store's snapshot, for its files' versions.
    private let file: ReplicaStateFile
    /// `<label>.lock`, held while this process reads the store again or changes it; the
    /// memory's lock serialises this process's own users of it.
    private let storeLock: HeldLockFile
    /// `<label>.round.lock`, held for a round (``withRoundLock(_:)``); ``rounds`` serialises
    /// this process's own rounds.
    private let roundLock: HeldLockFile
    /// What the watch compares a change of the store's files with, copied out of the memory so
    /// that the watch never waits for the memory's lock.
    private let filesSeen = Locked(FilesSeen())
    /// How many times the watch started a task to read the store again (for tests: a process's
    /// own writes must start none).
    let readsStartedByTheWatch = Locked(0)
    /// The watch that reads the store again when another process of the home changes it;
    /// released with the replica, which cancels it.
    private let watch = Locked<DirectoryWatch?>(nil)

    /// Opens the space `store` of `group`: reads key #1 for the names, and the local state.
    init(group: GroupIdentifier, store: String, keyring: Keyring, policy: SyncPolicy, contents: SyncedContents) throws(SyncError) {
        self.group = group
        self.keyring = keyring
        self.policy = policy
        self.contents = contents
        naming = try SyncNaming.load(group: group, keyring: keyring)
        space = naming.space(store: store)
        channel = SyncNaming.channel(space: space)
        let container: DirectoryHandle?
        do {
            container = try keyring.containerDirectory(for: group)
        } catch {
            throw SyncError(.storage, "the group container of \(group) cannot be opened: \(error.reason)", underlyingError: error)
        }
        guard let container else {
            throw SyncError(.missingEntitlement, "this process is not entitled to the application group \(group): add it to com.apple.security.application-groups in its entitlements")
        }
        let directory: DirectoryHandle
        do {
            directory = try container.subdirectory(creating: "GroupSync")
        } catch {
            throw SyncError(.storage, "the GroupSync directory of \(group) cannot be opened: \(error)", underlyingError: error)
        }
        let file = ReplicaStateFile(directory: directory, label: "s-" + Hex.lowercase(Array(space.prefix(16))), key: naming.stateKey)
        self.file = file
        do {
            storeLock = try HeldLockFile(in: directory, name: file.lockName)
            roundLock = try HeldLockFile(in: directory, name: file.roundLockName)
        } catch {
            throw SyncError(.storage, "the lock files of the sync state of \(group) cannot be opened: \(error)", underlyingError: error)
        }
        let (store, state) = try Self.holding(storeLock, exclusive: false) { () throws(SyncError) in
            try ReplicaStateStore.open(file)
        }
        var values: [EntryName: Value] = [:]
        let key = Self.keyLookup(group: group, keyring: keyring)
        for (name, entry) in state.entries {
            guard let blob = entry.pending ?? entry.accepted else { continue }
            values[name] = try Self.shownValue(of: blob, name: name, group: group, naming: naming, space: space, key: key)
        }
        memory = Locked(Memory(state: state, values: values, store: store))
        filesSeen.withLock { $0.versions = store.seenFiles }
        // The journal's writes closed and its replacement by a compaction; a change made between
        // the read above and the watch's start is found by the look that follows it.
        let started: DirectoryWatch
        do {
            started = try DirectoryWatcher(directory: directory.path, entry: file.journalName).watch { [weak self] _ in
                self?.journalChanged()
            }
        } catch {
            throw SyncError(.storage, "the sync state of \(group) cannot be watched for other processes' changes: \(error)", underlyingError: error)
        }
        watch.withLock { $0 = started }
        journalChanged()
    }

    /// What the watch knows of the store's files (``journalChanged()``).
    private struct FilesSeen {
        /// The versions of the store's files as this process last read or wrote them.
        var versions: [FileVersion?] = []
        /// This process holds the store's lock: a change the watch hears of now is this
        /// process's own, or was made before it took the lock, and reading the store again
        /// under the lock found it (``withCurrentStore(exclusive:_:)``).
        var lockHeld = false
        /// How many times this process took the store's lock: one taken while the watch looked
        /// at the files read them again under it, as above.
        var timesLocked: UInt64 = 0
        /// A task the watch started has not yet read the store under its lock: it reads
        /// whatever changed until then, so a change heard of meanwhile needs no task of its own
        /// (a burst of another process's writes wakes one task, not one each).
        var readPending = false
    }

    /// The journal's name was written, closed or replaced. Called by the watch on the thread
    /// that reads every watch of the process, which must not wait: the files' versions are
    /// compared with ``filesSeen`` (two `fstatat`s), and only a change this process did not make
    /// starts a task to read it, so that the process's own writes cost no thread wake-up more.
    /// Nor does a change heard of while this process holds the store's lock, or took it while
    /// the files were looked at: the versions it keeps are updated only as it lets go, and a
    /// journal's close comes before that, so comparing then took writes of its own for another
    /// process's (a task woken, and the writer kept waiting for the memory's lock, on the path
    /// of every write seen elsewhere).
    private func journalChanged() {
        let before = filesSeen.withLock { $0 }
        guard !before.lockHeld, !before.readPending else { return }
        let now = try? ReplicaStateStore.fileVersions(of: file)
        let changedElsewhere = filesSeen.withLock { seen in
            guard !seen.lockHeld, !seen.readPending, seen.timesLocked == before.timesLocked, seen.versions != now else { return false }
            seen.readPending = true
            return true
        }
        guard changedElsewhere else { return }
        readsStartedByTheWatch.withLock { $0 += 1 }
        Task { [weak self] in
            // A failure to read the store again is left to the next change this process makes,
            // which reads it under the lock and reports the error.
            try? self?.readChangesOfOtherProcesses()
        }
    }

    /// The value a sealed entry shows, `nil` for a removal.
    private static func shownValue(
        of blob: [UInt8], name: EntryName, group: GroupIdentifier, naming: SyncNaming, space: [UInt8], key: (UInt32) throws(VaultError) -> GroupKey
    ) throws(SyncError) -> Value? {
        do {
            let envelope = try SyncEnvelope.open(blob, name: name.bytes, naming: naming, space: space, key: key)
            return envelope.value.map { Value(key: envelope.key, bytes: $0) }
        } catch {
            throw SyncError(.storage, "a value in the sync state of \(group) cannot be opened: \(error)", refusal: error.code, underlyingError: error)
        }
    }

    // MARK: Processes of one home

    /// What another process of the home changed, read under the store's lock and told to this
    /// process's observers once the lock is released.
    private struct OtherProcessesChanges {
        var changedKeys: [String] = []
        var conflicts: [SyncConflict] = []
        /// A write another process made, for this process's session to push.
        var pendingWrites = false
    }

    /// Runs `body` holding the store's lock file, exclusively to change the store and shared
    /// to read it, so that no process reads a change half written or writes after a record it
    /// has not read.
    private static func holding<Result>(_ lock: HeldLockFile, exclusive: Bool, _ body: () throws(SyncError) -> Result) throws(SyncError) -> Result {
        do {
            try lock.lock(exclusive: exclusive)
        } catch {
            throw SyncError(.storage, "the lock of the sync state cannot be taken: \(error)", underlyingError: error)
        }
        defer { lock.unlock() }
        return try body()
    }

    /// `body` on the memory, under the store's lock, after reading again what another process
    /// of the home changed since this one last read or wrote the store.
    ///
    /// What was read again is kept in ``Memory/untold`` for ``tellOtherProcessesChanges()``,
    /// which the caller runs once the memory's lock is released, whether `body` succeeded or not.
    private func withCurrentStore<Result>(
        exclusive: Bool, _ memory: inout Memory, _ body: (inout Memory) throws(SyncError) -> Result
    ) throws(SyncError) -> Result {
        try Self.holding(storeLock, exclusive: exclusive) { () throws(SyncError) -> Result in
            filesSeen.withLock { seen in
                seen.lockHeld = true
                seen.timesLocked &+= 1
                seen.readPending = false
            }
            defer {
                filesSeen.withLock { [versions = memory.store.seenFiles] seen in
                    seen.versions = versions
                    seen.lockHeld = false
                }
            }
            try readAgainIfChanged(&memory)
            return try body(&memory)
        }
    }

    /// Reads the store again when its files changed since this process last read or wrote them
    /// (two `fstatat`s when they did not), and shows the values that changed.
    private func readAgainIfChanged(_ memory: inout Memory) throws(SyncError) {
        guard try memory.store.changedElsewhere() else { return }
        var changes = memory.untold
        let (store, state) = try memory.store.reopened()
        var values = memory.values
        let key = keyLookup()
        for name in Set(memory.state.entries.keys).union(state.entries.keys) {
            let before = memory.state.entries[name]
            let now = state.entries[name]
            if now?.pending != nil, now?.pendingNumber != before?.pendingNumber { changes.pendingWrites = true }
            let blob = now.flatMap { $0.pending ?? $0.accepted }
            guard before.flatMap({ $0.pending ?? $0.accepted }) != blob else { continue }
            let shown = values[name]
            values[name] = try blob.flatMap { blob throws(SyncError) in
                try Self.shownValue(of: blob, name: name, group: group, naming: naming, space: space, key: key)
            }
            if shown != values[name], let changedKey = (values[name] ?? shown)?.key { changes.changedKeys.append(changedKey) }
        }
        let known = Set(memory.state.conflicts)
        changes.conflicts = state.conflicts.filter { !known.contains($0) }.map { SyncConflict(key: $0.key, winningSequence: $0.winningSequence) }
        memory = Memory(state: state, values: values, store: store, untold: changes)
    }

    /// Tells this process's observers what another process changed (``Memory/untold``), and
    /// its session of a write to push.
    private func tellOtherProcessesChanges() {
        let changes = memory.withLock { memory in
            defer { memory.untold = OtherProcessesChanges() }
            return memory.untold
        }
        if !changes.changedKeys.isEmpty { publishChange(.serverChange, keys: changes.changedKeys.sorted()) }
        for conflict in changes.conflicts { publishConflict(conflict) }
        if changes.pendingWrites { wakeSession() }
    }

    /// Reads again what another process of the home changed, if anything (the watch, and the
    /// start of every round), and tells this process's observers.
    func readChangesOfOtherProcesses() throws(SyncError) {
        defer { tellOtherProcessesChanges() }
        // A read the watch left pending ends here, even in failure: the next change heard of
        // then starts another (taking the lock ends it sooner, ``withCurrentStore(exclusive:_:)``).
        defer { filesSeen.withLock { $0.readPending = false } }
        try memory.withLock { (memory: inout Memory) throws(SyncError) in
            // Without the lock first: this process's own writes wake its watch too.
            var changed = try memory.store.changedElsewhere()
            if !changed {
                // A change heard of while the read was pending was left to it: one made before
                // the flag is cleared shows in a second look, one made after starts a task.
                filesSeen.withLock { $0.readPending = false }
                changed = try memory.store.changedElsewhere()
            }
            guard changed else { return }
            try withCurrentStore(exclusive: false, &memory) { _ throws(SyncError) in }
        }
    }

    /// Runs `round` holding the store's round lock (`<label>.round.lock`), which one process of
    /// the home holds at a time: the home's processes share one state, so a round in one would
    /// make another's stale page read as a rollback, as two rounds in one process would
    /// (``RoundGate``). A process that finds it held tries again after a pause that doubles from
    /// 1 ms to 50 ms, until it gets it or its task is cancelled.
    func withRoundLock<Result>(_ round: () async throws(SyncError) -> Result) async throws(SyncError) -> Result {
        let taken: Bool
        do {
            taken = try await roundLock.lockUnlessCancelled(exclusive: true)
        } catch {
            throw SyncError(.storage, "the round lock of the sync state cannot be taken: \(error)", underlyingError: error)
        }
        guard taken else {
            throw SyncError(.server, "the sync round was cancelled while another process of this home ran a round of the same store; pending writes stay pending", underlyingError: CancellationError())
        }
        defer { roundLock.unlock() }
        return try await round()
    }

    // MARK: Reads (never the network)

    func value(forKey key: String) -> [UInt8]? {
        let name = EntryName(naming.name(space: space, key: key))!  // 32 bytes, a BLAKE2b-256
        return memory.withLock { $0.values[name]?.bytes }
    }

    func values() -> [String: [UInt8]] {
        memory.withLock { memory in
            Dictionary(memory.values.values.map { ($0.key, $0.bytes) }, uniquingKeysWith: { first, _ in first })
        }
    }

    var state: ReplicaState { memory.withLock { $0.state } }

    // MARK: Local writes

    /// Stores `value` (or the removal of `key`) durably as a pending write; `check` sees the
    /// values as they would be after the write, the value written and the one it replaces
    /// (`nil`: none), and may refuse it (the store's quotas).
    func write(
        key: String, value: [UInt8]?,
        check: (_ values: [EntryName: Value], _ written: Value?, _ replaced: Value?) throws(SyncError) -> Void = { _, _, _ throws(SyncError) in }
    ) throws(SyncError) {
        let name = naming.name(space: space, key: key)
        let entryName = EntryName(name)!  // 32 bytes, a BLAKE2b-256
        let groupKey: GroupKey
        do {
            groupKey = try keyring.groupKey(for: group)
        } catch {
            throw SyncError(.keyring, "group \(group)'s key cannot be read: \(error.reason)", underlyingError: error)
        }
        defer { tellOtherProcessesChanges() }
        try memory.withLock { (memory: inout Memory) throws(SyncError) in
            try withCurrentStore(exclusive: true, &memory) { (memory: inout Memory) throws(SyncError) in
                let shown = value.map { Value(key: key, bytes: $0) }
                // The quota check sees every value as it would be: changed in place (not copied, a
                // copy per write cost the store's size), and put back if the write does not happen.
                let before = memory.values[entryName]
                memory.values[entryName] = shown
                do throws(SyncError) {
                    try check(memory.values, shown, before)
                    // Durable before the write returns: an acknowledged write survives a crash.
                    _ = try Self.commit(&memory, touching: [entryName]) { (state: inout ReplicaState, values: inout [EntryName: Value]) throws(SyncError) -> [String] in
                        var entry = state.entries[entryName] ?? ReplicaState.Entry()
                        if entry.pending != nil { state.coalescedWrites += 1 }
                        let blob = try SyncEnvelope.seal(
                            key: key, value: value, sequence: entry.seen + 1, issuedAtMilliseconds: Self.now(), groupKey: groupKey, name: name)
                        entry.pending = blob
                        entry.pendingNumber = state.nextPendingNumber
                        state.nextPendingNumber += 1
                        state.entries[entryName] = entry
                        values[entryName] = shown
                        return []
                    }
                } catch {
                    memory.values[entryName] = before
                    throw error
                }
            }
        }
        wakeSession()
    }

    /// Sends a quota-violation notification for `keys` (a write the store refused).
    func reportQuotaViolation(keys: [String]) {
        publish(UbiquitousChange(reason: .quotaViolationChange, changedKeys: keys))
    }

    // MARK: Pushing

    /// The writes to send now, each sealed above what this machine saw of its entry.
    ///
    /// A pending write already sealed at `seen + 1` (the common case: nothing moved since the
    /// write) is sent as it is, known from its header alone: opening it would look its key up in
    /// the keyring and decrypt it, on the path from a `set` to another machine, for nothing (its
    /// bytes come from this machine's own authenticated state). Only a write the server moved
    /// past is opened and sealed again above it.
    func pushes() throws(SyncError) -> [Push] {
        let snapshot = state
        var pushes: [Push] = []
        let key = keyLookup()
        // Only entries with something to send are sorted and named: a round after a first sync
        // of 10,000 values sorted them all, and a store's every round did, for nothing.
        let sending = snapshot.entries.filter { $0.value.pending != nil || $0.value.republishOver != nil }
        for (entryName, entry) in sending.sorted(by: { $0.key < $1.key }) {
            let name = entryName.bytes
            if let pending = entry.pending {
                var blob = pending
                let sealedAt: UInt64
                do {
                    sealedAt = try BlobHeader.parse(blob, subject: "a pending write of \(group)").sequence
                } catch {
                    throw SyncError(.storage, "a pending write of \(group) cannot be read: \(error)", refusal: error.code, underlyingError: error)
                }
                if sealedAt != entry.seen + 1 {
                    let envelope: SyncEnvelope
                    do {
                        envelope = try SyncEnvelope.open(blob, name: name, naming: naming, space: space, key: key)
                    } catch {
                        throw SyncError(.storage, "a pending write of \(group) cannot be opened: \(error)", refusal: error.code, underlyingError: error)
                    }
                    // The server moved on since the write: the same write, sealed above it.
                    let groupKey: GroupKey
                    do { groupKey = try keyring.groupKey(for: group) } catch {
                        throw SyncError(.keyring, "group \(group)'s key cannot be read: \(error.reason)", underlyingError: error)
                    }
                    blob = try SyncEnvelope.seal(
                        key: envelope.key, value: envelope.value, sequence: entry.seen + 1,
                        issuedAtMilliseconds: envelope.issuedAtMilliseconds, groupKey: groupKey, name: name)
                }
                // Over a rolled-back row, the write takes its place: the server's row is at
                // `republishOver`, not at `seen`, and a swap based on `seen` would never succeed.
                pushes.append(Push(name: name, base: entry.republishOver ?? entry.seen, sequence: entry.seen + 1, blob: blob, pendingNumber: entry.pendingNumber))
            } else if let over = entry.republishOver, let accepted = entry.accepted {
                pushes.append(Push(name: name, base: over, sequence: entry.seen, blob: accepted, pendingNumber: nil))
            }
        }
        return pushes
    }

    /// Records that the server stored `push`.
    ///
    /// Not flushed on its own (``ReplicaStateStore/append(_:flush:orCompact:)``): the server
    /// already holds the write, and if a power failure loses this record the write is still
    /// pending here at its old base. The next round's compare-and-swap then fails, its catch-up
    /// reads the row, and ``apply(_:notified:)`` recognises this machine's own write, as it does
    /// when a connection is lost before the acknowledgement arrives. Why: its `fdatasync` ran
    /// while the other machines flushed the same write on its way to their observers
    /// (docs/SYNC.md, section 7, "What is not flushed").
    ///
    /// `foundItsRowDropped`: the server held no row for the entry although the push's base was
    /// one this machine accepted (docs/SYNC.md, section 6, "A row the server dropped"): counted
    /// as a `notFound` refusal, as the Vault's verification reports a record whose file is gone,
    /// and flushed with the acknowledgement, so that the evidence survives a crash.
    func acknowledge(_ push: Push, foundItsRowDropped dropped: Bool = false) throws(SyncError) {
        guard let entryName = EntryName(push.name) else { return }
        try update(touching: [entryName], flush: { dropped ? .beforeReturning : .withNextFlush }) { state, _ in
            if dropped { state.refusals[VaultError.Code.notFound.rawValue, default: 0] += 1 }
            guard var entry = state.entries[entryName] else { return [] }
            if push.sequence > entry.seen {
                entry.seen = push.sequence
                entry.seenDigest = nil
                entry.accepted = push.blob
            }
            if let number = push.pendingNumber, entry.pendingNumber == number, entry.pending != nil {
                entry.pending = nil
                state.pushedWrites += 1
            } else if let number = push.pendingNumber, number < entry.pendingNumber, state.coalescedWrites > 0 {
                // A later write of the key replaced this one while it was on its way, and was
                // counted then as coalesced; the server stored it, so it was pushed after all.
                state.pushedWrites += 1
                state.coalescedWrites -= 1
            }
            // The server now holds this machine's row, whichever push put it there: nothing
            // rolled back is left to heal.
            entry.republishOver = nil
            state.entries[entryName] = entry
            state.lastPushMilliseconds = Self.now()
            return []
        }
    }

    /// Entries this machine accepted a row of that the server no longer holds, found by a
    /// verification (``VerificationRound``): each is counted as a `notFound` refusal, as a
    /// push that finds its row dropped counts it, and its accepted blob is pushed again where
    /// the server holds no row (a base of 0), as a rolled-back entry's is pushed over the old
    /// row. A pending write of the entry is pushed there instead, and its swap is then not
    /// counted a second time.
    func foundRowsDropped(_ names: [EntryName]) throws(SyncError) {
        guard !names.isEmpty else { return }
        try update(touching: names) { state, _ in
            for name in names {
                state.refusals[VaultError.Code.notFound.rawValue, default: 0] += 1
                guard var entry = state.entries[name], entry.accepted != nil || entry.pending != nil else { continue }
                entry.republishOver = 0
                state.entries[name] = entry
            }
            return []
        }
    }

    /// Whether no row was taken in for `push`'s entry since it was made: what this machine saw
    /// of the entry is still the sequence the push was sealed above.
    func sawNothingNewer(than push: Push) -> Bool {
        guard let entryName = EntryName(push.name), let entry = state.entries[entryName] else { return false }
        return entry.seen + 1 == push.sequence
    }

    /// A republication the server refused (another write came first): nothing to heal anymore.
    func dropRepublication(_ push: Push) throws(SyncError) {
        guard let entryName = EntryName(push.name) else { return }
        try update(touching: [entryName]) { state, _ in
            state.entries[entryName]?.republishOver = nil
            return []
        }
    }

    // MARK: Pulling

    /// Judges and applies rows from the server; refused rows are counted. Returns the
    /// verdicts' codes of refused rows (for tests and status).
    ///
    /// `notified`: the rows came in notifications (``ChangeNotification``), not from a catch-up
    /// query. Only accepted ones are applied; the cursor stays (rows between it and theirs are
    /// still unread), and a refused one is neither counted nor acted on: the catch-up that
    /// follows such rows (``SyncRound``) reads the same row and judges it then, once.
    ///
    /// `countingAbove`: refusals of rows at or below this change number are not counted (nor
    /// returned): rows read again for a key now held (``rowsToReadAgain()``) were counted the
    /// first time.
    @discardableResult
    func apply(_ rows: [ServerRow], notified: Bool = false, countingAbove counted: Int64 = .min) throws(SyncError) -> [VaultError] {
        try apply(opened(rows), notified: notified, countingAbove: counted)
    }

    /// Rows read from the server, each opened (``ServerRow/open(naming:space:key:)``), to be
    /// applied.
    struct OpenedRows: Sendable {
        let rows: [ServerRow]
        let opened: [ServerRow.Opened]
    }

    /// `rows` opened. Opening is the largest cost of a row and does not depend on the state:
    /// done on every core, outside the lock, and it may be done where the rows are read, while
    /// the state is busy with something else (``SyncRound``); each row is then judged in turn
    /// against the state.
    func opened(_ rows: [ServerRow]) -> OpenedRows {
        OpenedRows(rows: rows, opened: opening(rows, key: keyLookup()))
    }

    /// Applies rows already opened (``opened(_:)``), as rows are applied. `completing`: the page
    /// is a catch-up's last, and its record also marks the first complete catch-up, which
    /// ``finishCatchUp()`` would otherwise write and flush as a record of its own.
    @discardableResult
    func apply(_ page: OpenedRows, notified: Bool = false, countingAbove counted: Int64 = .min, completing: Bool = false) throws(SyncError) -> [VaultError] {
        var refused: [VaultError] = []
        let rows = page.rows
        let key = keyLookup()
        // The entries' names as the state keys them, made once per row (`nil` for a row whose
        // name is not 32 bytes, which opening refused).
        let names = rows.map { EntryName($0.name) }
        // Only the rows' entries change: the journal record is found without comparing the
        // whole state (which, page after page, made a first sync quadratic).
        let touched = Array(Set(names.compactMap { $0 }))
        // A page that accepted nothing (the rows were duplicates or refused) moves the cursor
        // and counts refusals only: not flushed on its own, since a power failure that loses it
        // puts the cursor back, and the next catch-up reads and judges the same rows again.
        var accepted = false
        var firstSyncDone = false
        // A first sync's catch-up writes its state whole once, at its end (``finishCatchUp()``).
        let compaction: ReplicaStateStore.Compaction = notified || state.initialSyncDone ? .whenDue : .afterTheCatchUp
        try update(touching: touched, flush: { accepted || firstSyncDone ? .beforeReturning : .withNextFlush }, compaction: compaction) { state, values in
            let judged = judge(page, names: names, notified: notified, countingAbove: counted, key: key, into: &state, &values)
            refused = judged.refused
            accepted = judged.accepted
            if accepted || !notified { state.lastPullMilliseconds = Self.now() }
            if completing { firstSyncDone = Self.markFirstCatchUp(&state) }
            return judged.changed
        }
        if firstSyncDone { try announceFirstSync() }
        return refused
    }

    /// What judging a page did to the state (``judge(_:names:notified:countingAbove:key:into:_:)``).
    private struct Judged {
        /// The keys whose shown value changed.
        var changed: [String] = []
        /// The refusals counted (rows at or below `countingAbove` are not).
        var refused: [VaultError] = []
        /// Whether any row was accepted.
        var accepted = false
    }

    /// Judges each row of `page` in order against `state` and takes in those accepted, as
    /// ``apply(_:notified:countingAbove:completing:)`` and ``take(_:applying:completing:)`` do;
    /// `names` are the rows' names as the state keys them. Nothing is written: the caller makes
    /// the result durable before it is shown.
    private func judge(
        _ page: OpenedRows, names: [EntryName?], notified: Bool, countingAbove counted: Int64,
        key: (UInt32) throws(VaultError) -> GroupKey, into state: inout ReplicaState, _ values: inout [EntryName: Value]
    ) -> Judged {
        var judged = Judged()
        // A row read again below the cursor was counted the first time.
        func count(_ error: VaultError, of row: ServerRow) {
            guard row.change > counted else { return }
            judged.refused.append(error)
            state.refusals[error.code.rawValue, default: 0] += 1
        }
        for ((row, opened), entryName) in zip(zip(page.rows, page.opened), names) {
            if !notified { state.cursor = max(state.cursor, row.change) }
            var entry = entryName.flatMap { state.entries[$0] } ?? ReplicaState.Entry()
            let verdict = row.judge(opened, seen: entry.seen, seenDigest: entry.seenDigestOfAccepted)
            switch verdict {
            case .duplicate:
                // The server holds again the row this machine accepted at `seen` (another
                // machine healed a rollback first): nothing is left to push over, and a pending
                // write's swap goes back to `seen` as its base.
                if entry.republishOver != nil, let entryName {
                    entry.republishOver = nil
                    state.entries[entryName] = entry
                }
                continue
            case .refuse where notified, .acceptAsAbsent where notified:
                continue
            case .refuse(let error):
                count(error, of: row)
                if error.code == .unknownKey, let header = try? BlobHeader.parse(row.blob, subject: "a row of \(group)") {
                    state.awaitKey(header.keyID, sinceChange: row.change)
                }
                if error.code == .rollback, entry.accepted != nil, let entryName {
                    entry.republishOver = UInt64(row.sequence)
                    state.entries[entryName] = entry
                }
            case .accept(let envelope), .acceptAsAbsent(let envelope, _):
                guard let entryName else { preconditionFailure("an accepted row has a 32-byte name: opening refuses any other") }
                // No entry of its store: counted, its sequence taken (this machine's next
                // write of the key goes above it), and the key shown as absent.
                var readable = true
                if case .acceptAsAbsent(_, let reason) = verdict {
                    readable = false
                    count(reason, of: row)
                }
                judged.accepted = true
                entry.seen = envelope.sequence
                // Hashed from the blob if a row at this sequence ever comes
                // (``ReplicaState/Entry/seenDigestOfAccepted``).
                entry.seenDigest = nil
                entry.accepted = row.blob
                entry.republishOver = nil
                var showsServer = true
                if let pending = entry.pending {
                    let mine = try? SyncEnvelope.open(pending, name: row.name, naming: naming, space: space, key: key)
                    if let mine, mine.value == envelope.value, mine.issuedAtMilliseconds == envelope.issuedAtMilliseconds {
                        // Our own write, stored by a push whose acknowledgement was lost.
                        entry.pending = nil
                        state.pushedWrites += 1
                    } else if policy == .lastWriterWins, let mine, Self.isMoreRecent(mine, pending: pending, than: envelope, blob: row.blob) {
                        showsServer = false
                    } else {
                        entry.pending = nil
                        if policy == .lastWriterWins {
                            state.superseded += 1
                        } else {
                            let conflict = ReplicaState.Conflict(key: envelope.key, winningSequence: envelope.sequence, atMilliseconds: Self.now())
                            state.conflicts.append(conflict)
                            if state.conflicts.count > 1000 { state.conflicts.removeFirst(state.conflicts.count - 1000) }
                            publishConflict(SyncConflict(key: envelope.key, winningSequence: envelope.sequence))
                        }
                    }
                }
                state.entries[entryName] = entry
                if showsServer {
                    let shown = readable ? envelope.value.map { Value(key: envelope.key, bytes: $0) } : nil
                    let previous = if let shown { values.updateValue(shown, forKey: entryName) } else { values.removeValue(forKey: entryName) }
                    if previous != shown { judged.changed.append(envelope.key) }
                }
            }
        }
        return judged
    }

    /// `rows` opened (``ServerRow/open(naming:space:key:)``), in order, split over the cores
    /// when there are enough of them to repay the threads: a first sync's page of 500 rows is
    /// a decryption and a JSON decode each, about a fifth of the sync's time on one core. Each
    /// worker looks keys up for itself (a lookup's cache is not shared between threads); on one
    /// thread, `key` serves.
    private func opening(_ rows: [ServerRow], key: (UInt32) throws(VaultError) -> GroupKey) -> [ServerRow.Opened] {
        guard rows.count >= 2 * Self.rowsPerWorker else {
            return rows.map { $0.open(naming: naming, space: space, key: key, contents: contents.refusal) }
        }
        return SplitWork.map(rows, minimumPerWorker: Self.rowsPerWorker) { share in
            let ownKey = self.keyLookup()
            return share.map { $0.open(naming: naming, space: space, key: ownKey, contents: contents.refusal) }
        }
    }

    /// The fewest rows worth a thread of their own (a notification brings one).
    private static let rowsPerWorker = 32

    /// Whether this machine holds every row of `rows` already: for each, the sequence it has
    /// seen for the entry and, byte for byte, the blob it accepted there. Such a row is the
    /// server's echo of what it stored for this machine (or showed it before): judging it
    /// would find a duplicate.
    func holds(_ rows: [ServerRow]) -> Bool {
        memory.withLock { memory in
            rows.allSatisfy { row in
                guard let name = EntryName(row.name), let sequence = UInt64(exactly: row.sequence),
                      let entry = memory.state.entries[name] else { return false }
                return entry.seen == sequence && entry.accepted == row.blob
            }
        }
    }

    /// Rows refused for a key the keyring holds now (imported since, typically after a rotation
    /// elsewhere): the awaited keys now held and the change number to read again from (just
    /// before the first row refused for one of them), or `nil`. The keyset is read once. The
    /// round reads from there without moving the cursor back (``SyncRound``), so a server that
    /// went back is still found against the cursor, then calls ``finishReadingAgain(_:)``.
    func rowsToReadAgain() -> (keys: [UInt32], after: Int64)? {
        let awaited = memory.withLock { $0.state.awaitingKeys }
        guard !awaited.isEmpty, let keyset = try? keyring.keys(in: group) else { return nil }
        let heldIDs = Set(keyset.map(\.id))
        let held = awaited.filter { heldIDs.contains($0.key) }
        guard let from = held.values.min() else { return nil }
        return (held.keys.sorted(), from - 1)
    }

    /// The rows awaiting `keys` were read again, and are applied: those keys are no longer
    /// awaited. Kept until then, so that a round cut short reads them again next time. (A key
    /// is never taken out of a keyset, so none of those rows was refused again for its key.)
    func finishReadingAgain(_ keys: [UInt32]) throws(SyncError) {
        try update(touching: []) { state, _ in
            for id in keys { state.awaitingKeys[id] = nil }
            return []
        }
    }

    /// The server's change counter is below what this machine read from it: it went back in
    /// time (a restored dump). Counted as a rollback, and catch-up restarts from the beginning,
    /// so that every row is judged against what was seen (older ones are refused one by one).
    func serverWentBack(to last: Int64) throws(SyncError) {
        try update(touching: []) { state, _ in
            state.refusals[VaultError.Code.rollback.rawValue, default: 0] += 1
            state.cursor = 0
            return []
        }
    }

    /// Marks the first complete catch-up and says so to observers, once per server; then
    /// compacts the journal that the first sync's pages left to grow
    /// (``ReplicaStateStore/Compaction/afterTheCatchUp``). The values are durable in the journal
    /// before they are shown; the compaction only makes the files smaller to open. Later
    /// catch-ups append as every change does, compacting when due, so they have nothing left
    /// to compact here. A catch-up whose last page had rows marked it with them
    /// (``apply(_:notified:countingAbove:completing:)``), and writes nothing here.
    func finishCatchUp() throws(SyncError) {
        var first = false
        try update(touching: [], compaction: .afterTheCatchUp) { state, _ in
            first = Self.markFirstCatchUp(&state)
            return []
        }
        if first { try announceFirstSync() }
    }

    /// Marks `state`'s first complete catch-up; `true` when this is it.
    private static func markFirstCatchUp(_ state: inout ReplicaState) -> Bool {
        guard !state.initialSyncDone else { return false }
        state.initialSyncDone = true
        // A first catch-up that found nothing pulled all the same; in the record this writes
        // anyway, so later catch-ups that find nothing write none.
        state.lastPullMilliseconds = state.lastPullMilliseconds ?? Self.now()
        return true
    }

    /// Tells observers of the first sync's change, the first complete catch-up being durable,
    /// then compacts the journal its pages left to grow.
    private func announceFirstSync() throws(SyncError) {
        // The keys alone: ``values()`` would build a dictionary of every value first. In no
        // particular order, as Apple's: sorting 10,000 took 1.1 ms of a first sync's path.
        publishChange(.initialSyncChange, keys: memory.withLock { $0.values.values.map(\.key) })
        defer { tellOtherProcessesChanges() }
        try memory.withLock { (memory: inout Memory) throws(SyncError) in
            try withCurrentStore(exclusive: true, &memory) { (memory: inout Memory) throws(SyncError) in
                try memory.store.compactIfDue(memory.state)
            }
        }
    }

    /// Forgets everything synced from another server: an account change (docs/SYNC.md).
    func adopt(server identity: String) throws(SyncError) {
        let tag = Data(Digest.keyedBLAKE2b256(Array(identity.utf8), key: naming.stateKey))
        var dropped: [String] = []
        try update { state, values in
            guard state.server != tag else { return [] }
            if state.server != nil {
                dropped = values.values.map(\.key).sorted()
                let refusals = state.refusals
                state = ReplicaState()
                state.refusals = refusals
                values = [:]
            }
            state.server = tag
            return []
        }
        if !dropped.isEmpty { publish(UbiquitousChange(reason: .accountChange, changedKeys: dropped)) }
    }

    // MARK: Snapshots (docs/SYNC.md, section 6, "Snapshots")

    /// Whether this machine has read nothing of the space yet (a new home, or one an account
    /// change emptied): only such a machine reads the server's snapshot. One with history judges
    /// rows against what it has seen, which a snapshot could not be judged against row by row.
    var readsSnapshots: Bool {
        memory.withLock { Self.hasReadNothing($0.state) }
    }

    /// A state with no cursor and no entry: one that may take a snapshot.
    private static func hasReadNothing(_ state: ReplicaState) -> Bool {
        state.cursor == 0 && state.entries.isEmpty
    }

    /// Opens the server's snapshot of the space, `blob` of change number `change` (the column),
    /// for ``entries(of:)`` and ``take(_:applying:completing:)``. A snapshot that fails a check
    /// (``SyncSnapshot/open(_:change:space:naming:key:contents:)``) is counted under its code
    /// and changes nothing else: `nil`, and the machine reads the rows instead.
    func openSnapshot(_ blob: [UInt8], change: Int64) throws(SyncError) -> SyncSnapshot? {
        do {
            return try SyncSnapshot.open(blob, change: change, space: space, naming: naming, key: keyLookup(), contents: contents.refusal)
        } catch {
            try update(touching: []) { state, _ in
                state.refusals[error.code.rawValue, default: 0] += 1
                return []
            }
            return nil
        }
    }

    /// A snapshot's entries and shown values keyed as the state keys them, for
    /// ``take(_:applying:completing:)``: built from an opened snapshot
    /// (``openSnapshot(_:change:)``) outside the state's lock, while the rows after it are still
    /// on their way.
    struct SnapshotEntries: Sendable {
        /// The change number the snapshot covers: the cursor once it is taken.
        let change: Int64
        fileprivate var entries: [EntryName: ReplicaState.Entry]
        fileprivate var values: [EntryName: Value]
    }

    /// `snapshot`'s entries, each accepted at its sequence and shown as the snapshot shows it.
    func entries(of snapshot: consuming SyncSnapshot) -> SnapshotEntries {
        var entries: [EntryName: ReplicaState.Entry] = [:]
        var values: [EntryName: Value] = [:]
        // Sized once: grown an entry at a time, each table was rehashed at every doubling
        // (about 2% of a first sync's samples).
        entries.reserveCapacity(snapshot.entries.count)
        values.reserveCapacity(snapshot.entries.count)
        for entry in snapshot.entries {
            let name = EntryName(entry.name)!  // 32 bytes: opening checked
            // No digest: it is the accepted blob's, hashed only if a row at this sequence
            // comes (``ReplicaState/Entry/seenDigestOfAccepted``).
            entries[name] = ReplicaState.Entry(seen: entry.sequence, accepted: entry.blob)
            if let shown = entry.shown { values[name] = Value(key: shown.key, bytes: shown.value) }
        }
        return SnapshotEntries(change: snapshot.change, entries: entries, values: values)
    }

    /// Takes `snapshot` (``entries(of:)``) as the state of a machine that has read nothing yet,
    /// with the cursor at the snapshot's change, then judges `page`, the rows after it when
    /// given, as a catch-up's page; `completing` when that page is the catch-up's last. Returns
    /// the page's refusals, or `nil`, having changed nothing, when the state is no longer empty
    /// (another process of the home read the space meanwhile).
    ///
    /// The snapshot and the page are written as one state, whole and durably, before anything
    /// is shown: the page needs no journal record of its own, and its `fdatasync`, on a fresh
    /// machine's path, is not made (docs/ARCHITECTURE.md, "A snapshot and the rows after it are
    /// written as one state"). The journal that follows that state is started once it has been
    /// shown: the state is durable in its snapshot alone (docs/ARCHITECTURE.md, "A taken
    /// snapshot is shown before its journal is started").
    ///
    /// Observers hear of the keys with the first sync's change, once the catch-up completes
    /// (the page's changed keys first, as a server change, as ``apply(_:notified:countingAbove:completing:)``
    /// tells them); a machine whose first catch-up completed already (it found the space empty)
    /// hears of every key here, as a server change.
    func take(_ snapshot: consuming SnapshotEntries, applying page: OpenedRows? = nil, completing: Bool = false) throws(SyncError) -> [VaultError]? {
        defer { tellOtherProcessesChanges() }
        var judged = Judged()
        var firstSyncDone = false
        var announced: [String] = []
        let taken = try memory.withLock { (memory: inout Memory) throws(SyncError) -> Bool in
            try withCurrentStore(exclusive: true, &memory) { (memory: inout Memory) throws(SyncError) -> Bool in
                guard Self.hasReadNothing(memory.state) else { return false }
                var state = memory.state
                // No entry yet, so no value either: the snapshot's tables are taken whole.
                var values = memory.values.isEmpty ? snapshot.values : memory.values.merging(snapshot.values) { $1 }
                state.entries = snapshot.entries
                state.cursor = snapshot.change
                state.lastPullMilliseconds = Self.now()
                if let page {
                    judged = judge(page, names: page.rows.map { EntryName($0.name) }, notified: false, countingAbove: .min, key: keyLookup(), into: &state, &values)
                    if completing { firstSyncDone = Self.markFirstCatchUp(&state) }
                }
                // Written whole, durably, before anything is shown: the state held no entry, so
                // a journal record would be all of it, and finding that record cost as much
                // again (``ReplicaJournal/change(from:to:among:)`` over every entry).
                try memory.store.compact(state, startingTheJournal: .afterShowing)
                memory.state = state
                memory.values = values
                if state.initialSyncDone && !firstSyncDone { announced = values.values.map(\.key) }
                return true
            }
        }
        guard taken else { return nil }
        noteSnapshotOnServer(change: snapshot.change, changedSince: 0)
        if !announced.isEmpty {
            publishChange(.serverChange, keys: announced)
        } else if !judged.changed.isEmpty {
            publishChange(.serverChange, keys: judged.changed)
        }
        if firstSyncDone { try announceFirstSync() }
        try startAwaitedJournal()
        return judged.refused
    }

    /// Starts the journal that ``take(_:applying:completing:)``'s compaction left awaited
    /// (``ReplicaStateStore/startAwaitedJournal()``), unless another process of the home wrote
    /// the store since, which started one of its own.
    private func startAwaitedJournal() throws(SyncError) {
        try memory.withLock { (memory: inout Memory) throws(SyncError) in
            guard memory.store.awaitsJournal else { return }
            try withCurrentStore(exclusive: true, &memory) { (memory: inout Memory) throws(SyncError) in
                try memory.store.startAwaitedJournal()
            }
        }
    }

    /// What this process knows of the space's newest snapshot on the server: its change number
    /// (0: none) and how many of the space's entries changed since. The server counts them when
    /// asked; between two asks, this process adds the rows its rounds pushed and read, which
    /// counts an entry once per change and this machine's own writes twice (pushed, then read
    /// back): an over-count, which only makes it ask sooner.
    private struct SnapshotKnowledge {
        var change: Int64 = 0
        var changedSince = 0
    }
    private let snapshotKnowledge = Locked(SnapshotKnowledge())

    /// Notes what the server said of its snapshot: of change `change` (0: none), with
    /// `changedSince` of the space's entries changed after it.
    func noteSnapshotOnServer(change: Int64, changedSince: Int) {
        snapshotKnowledge.withLock { $0 = SnapshotKnowledge(change: change, changedSince: changedSince) }
    }

    /// Adds rows a round pushed or read to the entries changed since the newest snapshot.
    func countChangedRows(_ rows: Int) {
        snapshotKnowledge.withLock { $0.changedSince += max(rows, 0) }
    }

    /// Whether a snapshot is due by what this process knows (``SnapshotSchedule`` of the
    /// entries changed since the newest snapshot and of the space's entries), and the state is
    /// one a snapshot may be made of (``snapshotToWrite()``).
    var snapshotMayBeDue: Bool {
        let known = snapshotKnowledge.withLock { $0 }
        return memory.withLock { Self.isDue(known, $0.state) }
    }

    /// ``SnapshotSchedule`` of what `known` counts and of `state`'s entries, and `state` one a
    /// snapshot may be made of.
    private static func isDue(_ known: SnapshotKnowledge, _ state: ReplicaState) -> Bool {
        // The count first: it is asked at the end of every round, on the path of every write,
        // and ``canSnapshot(_:)`` looks at every entry.
        SnapshotSchedule.isDue(changedEntries: known.changedSince, entries: state.entries.count) && canSnapshot(state)
    }

    /// A state a snapshot may be made of: the first catch-up done, something in it, no write
    /// pending or to republish (so every entry shows its accepted blob), and no key awaited (so
    /// no row the cursor passed is missing from it).
    private static func canSnapshot(_ state: ReplicaState) -> Bool {
        state.initialSyncDone && !state.entries.isEmpty && state.awaitingKeys.isEmpty
            && state.entries.values.allSatisfy { $0.pending == nil && $0.republishOver == nil && $0.accepted != nil }
    }

    /// The space's snapshot as this machine holds it, up to its cursor, sealed with the group's
    /// primary key, when one is due (``snapshotMayBeDue``); `nil` when none is, or when it would
    /// be larger than a snapshot may be (fresh machines then read the rows).
    func snapshotToWrite() throws(SyncError) -> (change: Int64, blob: [UInt8])? {
        let known = snapshotKnowledge.withLock { $0 }
        let snapshot: SyncSnapshot? = memory.withLock { memory in
            let state = memory.state
            guard state.cursor > known.change, Self.isDue(known, state) else { return nil }
            let entries = state.entries.map { name, entry in
                SyncSnapshot.Entry(
                    name: name.bytes, sequence: entry.seen, blob: entry.accepted!,  // canSnapshot: every entry has one
                    shown: memory.values[name].map { SyncSnapshot.Shown(key: $0.key, value: $0.bytes) })
            }
            return SyncSnapshot(change: state.cursor, entries: entries.sorted { $0.name.lexicographicallyPrecedes($1.name) })
        }
        guard let snapshot else { return nil }
        let groupKey: GroupKey
        do {
            groupKey = try keyring.groupKey(for: group)
        } catch {
            throw SyncError(.keyring, "group \(group)'s key cannot be read: \(error.reason)", underlyingError: error)
        }
        do {
            return (snapshot.change, try snapshot.sealed(space: space, groupKey: groupKey))
        } catch where error.code == .quota {
            return nil
        }
    }

    // MARK: Observing

    func changes() -> AsyncStream<UbiquitousChange> {
        let (stream, continuation) = AsyncStream<UbiquitousChange>.makeStream()
        let id = nextObserver.withLock { id in id += 1; return id }
        observers.withLock { $0[id] = continuation }
        continuation.onTermination = { [weak self] _ in _ = self?.observers.withLock { $0.removeValue(forKey: id) } }
        return stream
    }

    func conflicts() -> AsyncStream<SyncConflict> {
        let (stream, continuation) = AsyncStream<SyncConflict>.makeStream()
        let id = nextObserver.withLock { id in id += 1; return id }
        conflictObservers.withLock { $0[id] = continuation }
        continuation.onTermination = { [weak self] _ in _ = self?.conflictObservers.withLock { $0.removeValue(forKey: id) } }
        return stream
    }

    /// The session's wake-up: a local write or a notification starts a round.
    func setWake(_ continuation: AsyncStream<Void>.Continuation?) {
        wake.withLock { $0 = continuation }
    }

    func wakeSession() {
        _ = wake.withLock { $0?.yield() }
    }

    // MARK: Internals

    /// Applies `body` to a copy of the state and values, makes the new state durable (one journal
    /// record, or a compaction) and only then shows it; a failure leaves both as they were.
    /// `touching`, when given, names the only entries `body` may change (see
    /// ``ReplicaStateStore/save(_:replacing:changing:)``). `flush`, asked after `body` ran, may
    /// leave the record to the next flush (``ReplicaStateStore/append(_:flush:orCompact:)``)
    /// when `body` showed nothing and its loss is repaired from the server; it is asked only
    /// with `touching`: a change of the whole state (no `touching`) is always flushed.
    private func update(
        touching names: [EntryName]? = nil, flush: () -> AppendOnlyFile.Flush = { .beforeReturning },
        compaction: ReplicaStateStore.Compaction = .whenDue,
        _ body: (inout ReplicaState, inout [EntryName: Value]) throws(SyncError) -> [String]
    ) throws(SyncError) {
        defer { tellOtherProcessesChanges() }
        let changed = try memory.withLock { (memory: inout Memory) throws(SyncError) -> [String] in
            try withCurrentStore(exclusive: true, &memory) { (memory: inout Memory) throws(SyncError) -> [String] in
                if let names { return try Self.commit(&memory, touching: names, flush: flush, compaction: compaction, body) }
                var state = memory.state
                var values = memory.values
                let changed = try body(&state, &values)
                try memory.store.save(state, replacing: memory.state, changing: nil)
                memory.state = state
                memory.values = values
                return changed
            }
        }
        if !changed.isEmpty { publishChange(.serverChange, keys: changed) }
    }

    /// ``update(touching:_:)`` for a change of the entries `names` only: `body` sees the state
    /// with just those entries and values, the change is made durable, and only then merged into
    /// the state in place. Copying the whole state per change (a write, a page of rows) cost the
    /// store's size every time: a tenth of a first sync's time once the journal made writes cheap.
    private static func commit(
        _ memory: inout Memory, touching names: [EntryName], flush: () -> AppendOnlyFile.Flush = { .beforeReturning },
        compaction: ReplicaStateStore.Compaction = .whenDue,
        _ body: (inout ReplicaState, inout [EntryName: Value]) throws(SyncError) -> [String]
    ) throws(SyncError) -> [String] {
        var before = memory.state
        before.entries = [:]
        before.entries.reserveCapacity(names.count)
        var values: [EntryName: Value] = [:]
        values.reserveCapacity(names.count)
        for name in names {
            if let entry = memory.state.entries[name] { before.entries[name] = entry }
            if let value = memory.values[name] { values[name] = value }
        }
        var after = before
        let changed = try body(&after, &values)
        // The whole state after the change, built only if it must be written whole.
        func whole(_ state: ReplicaState) -> ReplicaState {
            var whole = after
            whole.entries = state.entries
            for name in names { whole.entries[name] = after.entries[name] }
            return whole
        }
        switch ReplicaJournal.change(from: before, to: after, among: names) {
        case .unchanged:
            return changed
        case .removesEntries:
            let state = whole(memory.state)
            try memory.store.compact(state)
            memory.state = state
        case .record(let record):
            do {
                // Released before the merge below, which then changes the entries in place.
                let current = memory.state
                try memory.store.append(record, flush: flush(), compaction: compaction) { whole(current) }
            }
            ReplicaJournal.apply(record, to: &memory.state)
        }
        for name in names { memory.values[name] = values[name] }
        return changed
    }

    /// Tells observers that `keys` changed for `reason` and then, when the store is left over
    /// one of its limits (``SyncedContents/breaksLimits(_:)``), that it is, for the same keys.
    /// Machines that each kept within the limits can together break them; the values are kept
    /// all the same, since dropping some would lose a machine's acknowledged writes and leave
    /// the machines disagreeing, and the app is told, as Apple's store tells it, so that it can
    /// remove values (docs/ARCHITECTURE.md, "A store merged over its quota keeps its values").
    private func publishChange(_ reason: UbiquitousChangeReason, keys: [String]) {
        publish(UbiquitousChange(reason: reason, changedKeys: keys))
        if memory.withLock({ contents.breaksLimits($0.values) }) {
            publish(UbiquitousChange(reason: .quotaViolationChange, changedKeys: keys))
        }
    }

    private func publish(_ change: UbiquitousChange) {
        for continuation in observers.withLock({ Array($0.values) }) { continuation.yield(change) }
    }

    private func publishConflict(_ conflict: SyncConflict) {
        for continuation in conflictObservers.withLock({ Array($0.values) }) { continuation.yield(conflict) }
    }

    /// A lookup of the group's keys by id that asks the keyring once per id, for one batch (a
    /// page of rows, a pass of pushes): each keyring lookup reads the keyset and the master key
    /// again, which once cost half of judging a row. A new batch asks again, so a key imported
    /// meanwhile is found.
    func keyLookup() -> (UInt32) throws(VaultError) -> GroupKey {
        Self.keyLookup(group: group, keyring: keyring)
    }

    private static func keyLookup(group: GroupIdentifier, keyring: Keyring) -> (UInt32) throws(VaultError) -> GroupKey {
        var found: [UInt32: GroupKey] = [:]
        return { (id: UInt32) throws(VaultError) -> GroupKey in
            if let known = found[id] { return known }
            let key = try Self.key(id: id, group: group, keyring: keyring)
            found[id] = key
            return key
        }
    }

    private static func key(id: UInt32, group: GroupIdentifier, keyring: Keyring) throws(VaultError) -> GroupKey {
        do {
            return try keyring.key(id: id, in: group)
        } catch {
            let code: VaultError.Code = error.status == .itemNotFound ? .unknownKey : .keyring
            throw VaultError(code, "key #\(id) of \(group) cannot be used: \(error.reason)")
        }
    }

    /// Last writer wins: the later issued-at, ties broken by the larger digest of the sealed
    /// blobs (`theirs` sealed in `blob`), so every machine picks the same winner.
    private static func isMoreRecent(_ mine: SyncEnvelope, pending: [UInt8], than theirs: SyncEnvelope, blob: [UInt8]) -> Bool {
        if mine.issuedAtMilliseconds != theirs.issuedAtMilliseconds { return mine.issuedAtMilliseconds > theirs.issuedAtMilliseconds }
        return Digest.blake2b256(pending).lexicographicallyPrecedes(Digest.blake2b256(blob)) == false
    }

    static func now() -> Int64 { Int64((Date().timeIntervalSince1970 * 1000).rounded()) }
}

/// A synced record's write that lost to another machine's: the key and the sequence that won.
public struct SyncConflict: Sendable, Hashable {
    /// The record's name.
    public var key: String
    /// The sequence of the write that the server holds instead.
    public var winningSequence: UInt64
}
