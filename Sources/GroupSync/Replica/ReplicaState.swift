#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import GroupSyncCore

/// What one machine keeps, durably, about one synced space (docs/SYNC.md, "Local state").
///
/// Values rest only as sealed entries (the blobs the server stores), never in the clear.
struct ReplicaState: Codable, Sendable, Equatable {
    /// One entry, by its keyed name.
    struct Entry: Codable, Sendable, Equatable {
        /// The highest sequence accepted from the server (or acknowledged by it) for the entry;
        /// anything the server serves below it is a rollback.
        var seen: UInt64 = 0
        /// BLAKE2b-256 of the blob accepted at ``seen``.
        var seenDigest: Data?
        /// That blob: the entry's value as the server last agreed on it.
        var accepted: Data?
        /// A local write not yet acknowledged by the server, sealed (its sequence is set again
        /// at push time, above whatever the server holds then).
        var pending: Data?
        /// Tells a pending write from a later one of the same entry, so that an acknowledgement
        /// clears only the write that was pushed.
        var pendingNumber: UInt64 = 0
        /// The sequence of a row the server served below ``seen`` (a rollback): the machine
        /// pushes its accepted blob again on top of it, so that the server heals.
        var republishOver: UInt64?
    }

    /// A synced record's write that lost to another machine's (``SyncPolicy/reportToWriter``).
    struct Conflict: Codable, Sendable, Hashable {
        var key: String
        var winningSequence: UInt64
        var atMilliseconds: Int64
    }

    var format = 1
    /// A keyed hash of the server last synced with; another server is an account change.
    var server: Data?
    /// The highest change number read from the server: catch-up resumes after it.
    var cursor: Int64 = 0
    /// Whether the first catch-up from this server completed.
    var initialSyncDone = false
    var entries: [EntryName: Entry] = [:]
    /// Rows refused, by the Vault's code.
    var refusals: [String: Int] = [:]
    /// Local writes that lost to a more recent write of another machine.
    var superseded = 0
    /// Local writes the server stored.
    var pushedWrites = 0
    /// Local writes replaced by a later write of the same key on this machine before they were
    /// pushed (as Apple's store, only the last one travels).
    var coalescedWrites = 0
    /// Synced records' lost writes, newest last (at most 1,000 kept).
    var conflicts: [Conflict] = []
    var lastPushMilliseconds: Int64?
    var lastPullMilliseconds: Int64?
    var nextPendingNumber: UInt64 = 1
}
