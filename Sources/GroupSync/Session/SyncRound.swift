import GroupSyncCore

/// One exchange between a machine and the server for one space (docs/SYNC.md, "Protocol"):
/// detect a server that went back in time, catch up by change number, then push pending
/// writes by compare-and-swap, taking in whatever overtook them, until nothing is left to push.
enum SyncRound {
    /// Rows read per catch-up query.
    static let pageSize = 500
    /// Pushes retried after conflicts in one round before yielding to the next wake-up.
    static let maximumPasses = 64

    /// What a round did, for ``SyncStatus`` and `sync now`.
    struct Outcome: Sendable, Equatable {
        var pulled = 0
        var pushed = 0
        var conflicts = 0
        var refused = 0
    }

    @discardableResult
    static func run(_ replica: SyncReplica, on server: ServerConnection) async throws(SyncError) -> Outcome {
        var outcome = Outcome()
        try await catchUp(replica, on: server, into: &outcome)
        var pass = 0
        while pass < maximumPasses {
            pass += 1
            let pushes = try replica.pushes()
            if pushes.isEmpty { break }
            var overtaken = false
            for push in pushes {
                let stored = try await server.compareAndSwap(
                    space: replica.space, name: push.name, base: push.base, sequence: push.sequence,
                    blob: push.blob, channel: replica.channel)
                if stored != nil {
                    try replica.acknowledge(push)
                    outcome.pushed += 1
                } else if push.pendingNumber == nil {
                    try replica.dropRepublication(push)
                } else {
                    overtaken = true
                    outcome.conflicts += 1
                }
            }
            // Whatever overtook a push is read before it is pushed again above it.
            if overtaken { try await catchUp(replica, on: server, into: &outcome) } else { break }
        }
        if pass == maximumPasses { replica.wakeSession() }
        return outcome
    }

    private static func catchUp(_ replica: SyncReplica, on server: ServerConnection, into outcome: inout Outcome) async throws(SyncError) {
        let last = try await server.lastChange()
        if last < replica.state.cursor {
            try replica.serverWentBack(to: last)
            outcome.refused += 1
        }
        while true {
            let rows = try await server.rows(space: replica.space, after: replica.state.cursor, limit: pageSize)
            if rows.isEmpty { break }
            outcome.refused += try replica.apply(rows).count
            outcome.pulled += rows.count
            if rows.count < pageSize { break }
        }
        try replica.finishCatchUp()
    }
}
