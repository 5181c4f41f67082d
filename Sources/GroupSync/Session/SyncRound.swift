import CoreMetrics
import GroupSyncCore

/// One exchange between a machine and the server for one space (docs/SYNC.md, "Protocol"):
/// detect a server that went back in time and catch up by change number (in one query), then
/// push pending writes by compare-and-swap, taking in whatever overtook them, until nothing is
/// left to push. A round woken only by local writes pushes first: the compare-and-swap itself
/// finds any write it missed, and only then does it catch up.
enum SyncRound {
    /// What one catch-up query reads at most.
    static let page = CatchUpPageLimit.standard
    /// Pushes retried after conflicts in one round before yielding to the next wake-up.
    static let maximumPasses = 64

    /// What a round did, for ``SyncStatus`` and `sync now`.
    struct Outcome: Sendable, Equatable {
        var pulled = 0
        var pushed = 0
        var conflicts = 0
        var refused = 0
        /// The round stopped after ``maximumPasses`` with writes still to push: something keeps
        /// overtaking them (another machine's writes, or a server holding a newer row this
        /// machine refuses). The session tries again after a pause, not at once.
        var unfinished = false
    }

    /// Runs a round; `catchingUpFirst` is `false` when nothing but local writes and the rows in
    /// `notified` happened since the last complete catch-up on this connection (no reconnect,
    /// no notification without its row). `notified` are rows that notifications carried since
    /// the last round: the accepted ones are applied (durably, and shown) before the catch-up
    /// query, which then finds them as duplicates, so that a write reaches this machine's
    /// observers one round trip sooner. When this machine holds every one of them already
    /// (its own pushes, whose `NOTIFY` reaches its own `LISTEN`), they say nothing new and the
    /// round does not catch up for them (docs/SYNC.md, section 6).
    ///
    /// Rounds of one store run one at a time: a round started while another runs, on any
    /// connection (``RoundGate``) or in another process of the home
    /// (``SyncReplica/withRoundLock(_:)``), waits for it. It then reads what the home's other
    /// processes changed, so that it pushes their writes too.
    @discardableResult
    static func run(_ replica: SyncReplica, on server: ServerConnection, catchingUpFirst: Bool = true, notified: [ServerRow] = []) async throws(SyncError) -> Outcome {
        try await replica.rounds.run { () async throws(SyncError) -> Outcome in
            try await replica.withRoundLock { () async throws(SyncError) -> Outcome in
                try replica.readChangesOfOtherProcesses()
                return try await runAlone(replica, on: server, catchingUpFirst: catchingUpFirst, notified: notified)
            }
        }
    }

    private static func runAlone(_ replica: SyncReplica, on server: ServerConnection, catchingUpFirst: Bool, notified: [ServerRow]) async throws(SyncError) -> Outcome {
        var outcome = Outcome()
        // Only the echoes of what this machine holds: one catch-up query per write of its own
        // was a round trip to the server, and work beside the other machines', for nothing.
        let news = !notified.isEmpty && !replica.holds(notified)
        if news { try replica.apply(notified, notified: true) }
        if let again = replica.rowsToReadAgain() {
            // Rows refused for a key imported since: read from just before the first of them,
            // then on as any catch-up; the cursor is not moved back, so a server that went back
            // is still found against it, and refusals read again are not counted again.
            try await catchUp(replica, on: server, into: &outcome, after: again.after)
            try replica.finishReadingAgain(again.keys)
        } else if catchingUpFirst || news {
            try await catchUp(replica, on: server, into: &outcome)
        }
        // The highest change number the server gave this round's writes: the cursor stays
        // below them (rows between may be unread), but they tell whether a snapshot may be due.
        var pushedUpTo: Int64 = 0
        var pass = 0
        while pass < maximumPasses {
            pass += 1
            let pushes = try replica.pushes()
            if pushes.isEmpty { break }
            var overtaken: [SyncReplica.Push] = []
            for push in pushes {
                let stored = try await server.compareAndSwap(
                    space: replica.space, name: push.name, base: push.base, sequence: push.sequence,
                    blob: push.blob, channel: replica.channel)
                if let stored {
                    pushedUpTo = max(pushedUpTo, stored.change)
                    // A base above 0 is a row this machine accepted: the server no longer had it.
                    let dropped = push.base > 0 && !stored.replacedARow
                    try replica.acknowledge(push, foundItsRowDropped: dropped)
                    outcome.pushed += 1
                    if dropped { outcome.refused += 1 }
                } else if push.pendingNumber == nil {
                    try replica.dropRepublication(push)
                } else {
                    overtaken.append(push)
                    outcome.conflicts += 1
                }
            }
            if overtaken.isEmpty { break }
            // Whatever overtook a push is read before it is pushed again above it.
            try await catchUp(replica, on: server, into: &outcome)
            try await judgeRowsNoCatchUpReturns(overtaking: overtaken, replica, on: server, into: &outcome)
        }
        outcome.unfinished = pass == maximumPasses
        replica.countChangedRows(outcome.pushed + outcome.pulled - outcome.refused)
        if !outcome.unfinished { try await writeSnapshotIfDue(replica, on: server, pushedUpTo: pushedUpTo, into: &outcome) }
        return outcome
    }

    /// Reads and judges the row of each entry whose push was overtaken when the catch-up after
    /// it took in nothing for that entry. On an honest server that cannot happen: a swap fails
    /// only on a row written since this machine last read the entry, and a catch-up returns
    /// every such row. A server restored from a dump whose change counter was then moved on
    /// holds older rows at change numbers no catch-up reads again and never shows its counter
    /// going back; the entry's row, read by its name, is then refused as a rollback and the
    /// write pushed over it (``SyncReplica/pushes()``), where it would otherwise stay pending
    /// for ever (docs/SYNC.md, section 6, "A push that nothing overtook").
    private static func judgeRowsNoCatchUpReturns(
        overtaking pushes: [SyncReplica.Push], _ replica: SyncReplica, on server: ServerConnection, into outcome: inout Outcome
    ) async throws(SyncError) {
        for push in pushes where replica.sawNothingNewer(than: push) {
            // A row above the cursor is the next catch-up's, read in change order with the rest.
            guard let row = try await server.row(space: replica.space, name: push.name), row.change <= replica.state.cursor else { continue }
            outcome.pulled += 1
            outcome.refused += try replica.apply([row]).count
        }
    }

    /// Writes the space's snapshot when one is due (``SnapshotSchedule``), after a round that
    /// left nothing to push. Costs nothing on the network unless the rows this process pushed
    /// and read make one look due. Then it asks the server for its snapshot's change and the
    /// entries changed since (another member may have written one, and this process's count is
    /// an over-count), and, if one is still due, catches up (the round's own writes lie above
    /// the cursor, and so may others'), so that the snapshot holds every row up to the change
    /// it names.
    private static func writeSnapshotIfDue(_ replica: SyncReplica, on server: ServerConnection, pushedUpTo: Int64, into outcome: inout Outcome) async throws(SyncError) {
        guard replica.snapshotMayBeDue else { return }
        let standing = try await server.snapshotStanding(space: replica.space)
        replica.noteSnapshotOnServer(change: standing.change, changedSince: standing.changedSince)
        guard replica.snapshotMayBeDue else { return }
        if pushedUpTo > replica.state.cursor { try await catchUp(replica, on: server, into: &outcome) }
        guard let snapshot = try replica.snapshotToWrite() else { return }
        try await server.storeSnapshot(space: replica.space, change: snapshot.change, blob: snapshot.blob)
        Counter(label: SyncMetricLabel.snapshotsWritten, factory: replica.keyring.currentMetricsFactory).increment()
        replica.noteSnapshotOnServer(change: snapshot.change, changedSince: 0)
    }

    /// Reads the space's rows after the cursor, or after `start` when reading again rows below
    /// it (whose refusals, counted the first time, are not counted again), page by page.
    private static func catchUp(_ replica: SyncReplica, on server: ServerConnection, into outcome: inout Outcome, after start: Int64? = nil) async throws(SyncError) {
        let metrics = replica.keyring.currentMetricsFactory
        Counter(label: SyncMetricLabel.catchUps, factory: metrics).increment()
        let pages = Counter(label: SyncMetricLabel.catchUpPages, factory: metrics)
        var limit = page
        // A machine that has read nothing starts from the space's snapshot, if the server has
        // one it accepts, and reads only the rows after it. Those are asked for, in one page of
        // the largest size, as soon as the snapshot has arrived, and opened as they arrive, so
        // that the round trip, the server's work and opening the rows overlap opening the
        // snapshot (docs/ARCHITECTURE.md, "The rows after a snapshot are asked for when it
        // arrives"); then they are judged into the snapshot's state, and both written in one
        // ("A snapshot and the rows after it are written as one state"). A refused snapshot's
        // rows are dropped (the child task is cancelled and awaited as its scope ends), and the
        // rows are read from the start; a snapshot taken alone (its rows were behind it, or
        // another process of the home read the space meanwhile) leaves its rows to the path
        // below, used if the cursor ends where they were asked for.
        var early: (after: Int64, lastChange: Int64, page: SyncReplica.OpenedRows)?
        if start == nil, replica.readsSnapshots, let served = try await server.snapshot(space: replica.space) {
            let rowsAfter = CatchUpPageLimit(rows: max(limit.rows, CatchUpPageLimit.largestRows), bytes: limit.bytes)
            pages.increment()
            async let read = readAndOpen(replica, on: server, after: served.change, within: rowsAfter)
            if let snapshot = try replica.openSnapshot(served.blob, change: served.change) {
                limit = rowsAfter
                // Keyed for the state while the rows are still on their way; freeing the
                // snapshot's entries (four allocations each) after they came took 0.6 ms of the
                // path of 8,000.
                let entries = replica.entries(of: consume snapshot)
                let lastChange: Int64
                let page: SyncReplica.OpenedRows
                do {
                    (lastChange, page) = try await read
                } catch {
                    throw readFailure(error)
                }
                // The page is taken with the snapshot, in one write of the state, unless the
                // server's counter is behind the snapshot: that is found below, as a rollback.
                let together = lastChange >= entries.change
                let completing = together && !limit.isFull(page.rows)
                let taken = try replica.take(entries, applying: together ? page : nil, completing: completing)
                if taken != nil { Counter(label: SyncMetricLabel.snapshotsRead, factory: metrics).increment() }
                if let refused = taken, together {
                    outcome.pulled += page.rows.count
                    outcome.refused += refused.count
                    // The catch-up is complete, or goes on after the page's last change.
                    if completing { return }
                } else {
                    early = (entries.change, lastChange, page)
                }
            } else {
                outcome.refused += 1
            }
        }
        let cursor = replica.state.cursor
        var position = min(start ?? cursor, cursor)
        var counted = position == cursor ? Int64.min : cursor
        // The current page's rows opened already, when they were read early.
        var opened: SyncReplica.OpenedRows?
        var rows: [ServerRow]
        let lastChange: Int64
        if let early, early.after == position {
            (lastChange, rows, opened) = (early.lastChange, early.page.rows, early.page)
        } else {
            pages.increment()
            (lastChange, rows) = try await server.changes(space: replica.space, after: position, within: limit)
        }
        if lastChange < cursor {
            try replica.serverWentBack(to: lastChange)
            outcome.refused += 1
            pages.increment()
            (position, counted) = (replica.state.cursor, .min)
            rows = try await server.rows(space: replica.space, after: position, within: limit)
            opened = nil
        }
        func apply(_ rows: [ServerRow], completing: Bool = false) throws(SyncError) {
            let page = opened ?? replica.opened(rows)
            opened = nil
            outcome.refused += try replica.apply(page, countingAbove: counted, completing: completing).count
            outcome.pulled += rows.count
        }
        // A page short of full is the last: applied with no child task (a round after a
        // notification reads one such page, on the path to the next write seen).
        while limit.isFull(rows) {
            // A full page means there may be more: the next page is asked for before this one
            // is applied, so that the server's work and the round trip overlap the judging and
            // the journal record. It starts after the page's last change, which is where
            // applying the page leaves the cursor (every row read by a catch-up moves it up to
            // its change; rows read again lie below it), and may hold twice the rows
            // (``CatchUpPageLimit/next()``). A child task, so that it is cancelled with the
            // round, and awaited (then dropped) when applying this page fails.
            let after = rows.reduce(position) { max($0, $1.change) }
            let nextLimit = limit.next()
            pages.increment()
            async let next: [ServerRow] = server.rows(space: replica.space, after: after, within: nextLimit)
            try apply(rows)
            do {
                rows = try await next
            } catch {
                throw readFailure(error)
            }
            limit = nextLimit
            position = after
        }
        // The last page marks the catch-up complete in its own record.
        if rows.isEmpty { try replica.finishCatchUp() } else { try apply(rows, completing: true) }
    }

    /// The rows after `change`, read and opened (``SyncReplica/opened(_:)``) in the task that
    /// reads them, and the server's last change number.
    private static func readAndOpen(
        _ replica: SyncReplica, on server: ServerConnection, after change: Int64, within limit: CatchUpPageLimit
    ) async throws(SyncError) -> (lastChange: Int64, page: SyncReplica.OpenedRows) {
        let read = try await server.changes(space: replica.space, after: change, within: limit)
        return (read.lastChange, replica.opened(read.rows))
    }

    /// What a page awaited in a child task failed with, as a ``SyncError`` (`async let` does not
    /// keep the query's typed error).
    private static func readFailure(_ error: any Error) -> SyncError {
        error as? SyncError ?? SyncError(.server, "could not read changes from the sync server: \(ServerConnection.describe(error))", underlyingError: error)
    }
}
