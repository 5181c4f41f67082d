#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import GroupSyncCore
import SealedStorage

/// What one machine keeps, durably, about one synced space (docs/SYNC.md, "Local state").
///
/// Values rest only as sealed entries (the blobs the server stores), never in the clear.
struct ReplicaState: Codable, Sendable, Equatable {
    /// One entry, by its keyed name.
    ///
    /// Its bytes are arrays, not `Data`: a row's blob and digest arrive as arrays and are kept
    /// without a copy, and an entry is copied and destroyed several times per row of a first
    /// sync, which `Data`'s representations made dearer (Benchmarks/ANALYSIS.md).
    struct Entry: Sendable, Equatable {
        /// The highest sequence accepted from the server (or acknowledged by it) for the entry;
        /// anything the server serves below it is a rollback.
        var seen: UInt64 = 0
        /// BLAKE2b-256 of the blob accepted at ``seen``, where an earlier revision kept it (for
        /// rows and acknowledged pushes); `nil` in every entry written now: the digest is asked
        /// for only when a row at ``seen`` comes (``seenDigestOfAccepted``), and hashing every
        /// blob a first sync takes, from its snapshot or its rows, cost it about 6% and 2%.
        var seenDigest: [UInt8]?
        /// That blob: the entry's value as the server last agreed on it.
        var accepted: [UInt8]?
        /// A local write not yet acknowledged by the server, sealed (its sequence is set again
        /// at push time, above whatever the server holds then).
        var pending: [UInt8]?
        /// Tells a pending write from a later one of the same entry, so that an acknowledgement
        /// clears only the write that was pushed.
        var pendingNumber: UInt64 = 0
        /// The sequence of a row the server served below ``seen`` (a rollback): the machine
        /// pushes its accepted blob again on top of it, so that the server heals.
        var republishOver: UInt64?

        /// The digest a row served at ``seen`` is compared with: ``seenDigest``, or else the
        /// digest of ``accepted``, which is the blob accepted there.
        var seenDigestOfAccepted: [UInt8]? { seenDigest ?? accepted.map { Digest.blake2b256($0) } }
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
    /// Rows refused, by the Vault's code (and, as `invalidRecord`, entries shown as absent).
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
    /// Rows refused because the keyring lacked their key (`unknownKey`): for each such key id,
    /// the lowest change number of a row refused for it. The cursor passed them; once the key
    /// is held, the next round reads again from there (``SyncReplica/rowsToReadAgain()``), so
    /// that importing a key after a rotation brings the entries it sealed.
    var awaitingKeys: [UInt32: Int64] = [:]

    /// At most this many key ids are awaited: a row's key id is read before its authentication,
    /// so a hostile server could name any number of them.
    static let maximumAwaitedKeys = 32

    /// Version 1 (JSON, still read) predates ``awaitingKeys``: its members only.
    private enum CodingKeys: String, CodingKey {
        case format, server, cursor, initialSyncDone, entries, refusals, superseded, pushedWrites, coalescedWrites
        case conflicts, lastPushMilliseconds, lastPullMilliseconds, nextPendingNumber
    }

    /// Notes that the row at `change` was refused because key `id` is not in the keyring. A
    /// change number below 1 is none a server hands out (they start at 1): not kept, so that
    /// reading again from just before it stays a change number.
    mutating func awaitKey(_ id: UInt32, sinceChange change: Int64) {
        guard change >= 1 else { return }
        if let known = awaitingKeys[id] {
            awaitingKeys[id] = min(known, change)
            return
        }
        if awaitingKeys.count >= Self.maximumAwaitedKeys {
            // Key ids grow by one a rotation: the highest are the least likely to be real.
            guard let highest = awaitingKeys.keys.max(), id < highest else { return }
            awaitingKeys[highest] = nil
        }
        awaitingKeys[id] = change
    }
}

/// Version 1 of the state (JSON, still read) spells an entry's bytes in base64, as `Data`
/// encodes them: read and written so, member for member as the synthesised coding did.
extension ReplicaState.Entry: Codable {
    private enum CodingKeys: String, CodingKey {
        case seen, seenDigest, accepted, pending, pendingNumber, republishOver
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        seen = try container.decode(UInt64.self, forKey: .seen)
        seenDigest = try container.decodeIfPresent(Data.self, forKey: .seenDigest).map(Array.init)
        accepted = try container.decodeIfPresent(Data.self, forKey: .accepted).map(Array.init)
        pending = try container.decodeIfPresent(Data.self, forKey: .pending).map(Array.init)
        pendingNumber = try container.decode(UInt64.self, forKey: .pendingNumber)
        republishOver = try container.decodeIfPresent(UInt64.self, forKey: .republishOver)
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(seen, forKey: .seen)
        try container.encodeIfPresent(seenDigest.map { Data($0) }, forKey: .seenDigest)
        try container.encodeIfPresent(accepted.map { Data($0) }, forKey: .accepted)
        try container.encodeIfPresent(pending.map { Data($0) }, forKey: .pending)
        try container.encode(pendingNumber, forKey: .pendingNumber)
        try container.encodeIfPresent(republishOver, forKey: .republishOver)
    }
}
