#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
// SyncError and the other types the API shows from GroupSyncCore are part of GroupSync's API.
@_exported import GroupSyncCore
import SealedStorage

/// Where a synced store stands: what `vaultcli sync status` shows.
public struct SyncStatus: Sendable, Hashable, Codable {
    /// The server, redacted; `nil` when the store runs locally only.
    public var server: String?
    /// The store's identity on the server: the first 8 bytes of its keyed name (the `space`
    /// column, docs/SYNC.md, section 4), in hexadecimal. The same on every machine that shares
    /// the store; a machine that shows another one syncs with none of them, because it holds
    /// another key #1 of the group (it opened the store before importing the group's key).
    public var storeID: String
    /// Whether a session is connected now.
    public var connected: Bool
    /// When this machine last pushed a write.
    public var lastPush: Date?
    /// When this machine last took changes from the server, or completed its first catch-up
    /// (which may find none).
    public var lastPull: Date?
    /// Local writes not yet acknowledged by the server.
    public var pendingWrites: Int
    /// Local writes that lost to a more recent write of another machine (key-value store).
    public var superseded: Int
    /// Local writes the server stored.
    public var pushedWrites: Int
    /// Local writes replaced by a later local write of the same key before the server stored them.
    public var coalescedWrites: Int
    /// Synced records' writes that lost to another machine's.
    public var conflicts: Int
    /// Values from the server refused, by the Vault's code (`rollback`, `authenticationFailed`, ...);
    /// `invalidRecord` also counts authentic entries that are no entries of the store, whose keys
    /// read as absent (docs/SYNC.md, section 5); `notFound` counts rows this machine had accepted
    /// and the server no longer held when it next wrote their entries or verified the server
    /// (section 6, "A row the server dropped", "Verifying the server"). A verification adds
    /// what it refuses here too, so a row the server keeps is counted by each verification.
    public var refusals: [String: Int]
    /// The last connection or server failure, redacted.
    public var lastError: String?
    /// Whether the first download from the server completed.
    public var initialSyncDone: Bool

    init(replica: SyncReplica, session: SyncSession?, server: String?) {
        let state = replica.state
        let health = session?.health.withLock { $0 }
        self.server = server
        storeID = Hex.lowercase(Array(replica.space.prefix(8)))
        connected = health?.connected ?? false
        lastPush = state.lastPushMilliseconds.map { Date(timeIntervalSince1970: Double($0) / 1000) }
        lastPull = state.lastPullMilliseconds.map { Date(timeIntervalSince1970: Double($0) / 1000) }
        pendingWrites = state.entries.values.filter { $0.pending != nil }.count
        superseded = state.superseded
        pushedWrites = state.pushedWrites
        coalescedWrites = state.coalescedWrites
        conflicts = state.conflicts.count
        refusals = state.refusals
        lastError = health?.lastError
        initialSyncDone = state.initialSyncDone
    }

    /// The total of ``refusals``.
    public var refusedCount: Int { refusals.values.reduce(0, +) }
}
