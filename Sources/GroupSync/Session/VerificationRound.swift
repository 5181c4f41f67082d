import GroupSyncCore

/// A verification (docs/SYNC.md, section 6, "Verifying the server"): a round, so that the
/// machine is up to date; then every row of the space read by name and compared with what the
/// machine accepted (``ServerComparison``), the rows that differ judged as catch-up rows and
/// the entries the server dropped marked to be written back; then a round that pushes them.
enum VerificationRound {
    /// What one page of the space's rows holds at most: a catch-up page's bounds, growing as
    /// a catch-up's pages do.
    static let page = CatchUpPageLimit.standard

    static func run(_ replica: SyncReplica, on server: ServerConnection) async throws(SyncError) -> SyncVerification {
        try await SyncRound.run(replica, on: server)
        var verification = try await replica.rounds.run { () async throws(SyncError) -> SyncVerification in
            try await replica.withRoundLock { () async throws(SyncError) -> SyncVerification in
                // Another process of the home may have taken rows in since the round above.
                try replica.readChangesOfOtherProcesses()
                return try await compare(replica, on: server)
            }
        }
        let healing = replica.state.entries.filter { $0.value.republishOver != nil }.keys
        try await SyncRound.run(replica, on: server)
        let entries = replica.state.entries
        verification.restored = healing.filter { entries[$0]?.republishOver == nil }.count
        return verification
    }

    /// Reads the space's rows page by page in name order and compares each page with the state
    /// as it stands when the page arrives; the rows judged are applied as a catch-up's are,
    /// their refusals counted.
    private static func compare(_ replica: SyncReplica, on server: ServerConnection) async throws(SyncError) -> SyncVerification {
        let start = replica.state
        var comparison = ServerComparison(cursor: start.cursor)
        var after: [UInt8] = []
        var limit = page
        while true {
            let rows = try await server.rows(space: replica.space, afterName: after, within: limit)
            let judged = comparison.compare(rows, with: replica.state.entries)
            if !judged.isEmpty { comparison.count(try replica.apply(judged)) }
            guard limit.isFull(rows), let last = rows.last else { break }
            after = last.name
            limit = limit.next()
        }
        // Missing among the entries held when the comparison began: one taken in from a page
        // since was listed by it.
        try replica.foundRowsDropped(comparison.missing(from: start.entries))
        return comparison.verification
    }
}
