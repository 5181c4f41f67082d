#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import SealedStorage
import GroupSyncCore

/// The journal of a ``ReplicaState``: the changes made since its snapshot
/// (``ReplicaStateFile``), one authenticated record per change, in
/// `<group container>/GroupSync/<label>.journal` (docs/SYNC.md, section 7, "The journal").
///
/// Layout: a header, `"GVSJ"`, a version byte (3) and the 32-byte tag of the snapshot the journal
/// follows; then records, each a big-endian `UInt32` length `L`, `L` bytes of body and a 32-byte
/// tag. A body is a ``ReplicaState`` in the state's binary body (``ReplicaStateBinary``) whose
/// `entries` hold only the entries the change added or altered; every other field is the whole
/// new value. A record's tag is a random 16-byte salt and the Poly1305 tag of `L ‖ body` under
/// a one-time key derived from the salt, the version and `previous`
/// (``ReplicaStateFile/withOneTimeKey(for:binding:salt:_:)``), where `previous` is the tag of the
/// record before it, or the snapshot's tag for the first: so records cannot be dropped from the
/// middle, reordered, carried over to another snapshot, or read as another version's.
///
/// Older versions are still read, and never appended to (the store compacts them into a
/// current snapshot and journal at its first save): version 1 (bodies as JSON, tags the keyed
/// BLAKE2b-256 of ``ReplicaStateFile/mac(_:after:)`` over `"GVSJ" ‖ previous ‖ L ‖ body`) and
/// version 2 (binary bodies, the same tag over `"GVSJ" ‖ 2 ‖ previous ‖ L ‖ body`). Version 3
/// changed only the tag: keyed BLAKE2b over a first sync's record of 2,000 rows (about
/// 500 KB) was most of the time between the record's encoding and its `fdatasync`.
///
/// Reading stops at the first record that is incomplete or whose tag does not verify: a crash
/// in the middle of an append leaves such a record at the end, and what follows it is never
/// trusted. A journal whose header names another snapshot's tag is stale (a compaction was
/// interrupted after the new snapshot was durable) and ignored as a whole.
enum ReplicaJournal {
    static let magic: [UInt8] = Array("GVSJ".utf8)
    /// The version written; ``readableVersions`` are read.
    static let version: UInt8 = 3
    /// 1: bodies as JSON; 2: binary bodies, the version in every tag; 3: binary bodies under
    /// Poly1305 tags.
    static let readableVersions: ClosedRange<UInt8> = 1...3
    static let headerSize = 4 + 1 + 32
    /// Bounds what is read: a journal is compacted once it outgrows its snapshot
    /// (``ReplicaStateStore``), and a snapshot is at most ``ReplicaStateFile/maximumSize``.
    static let maximumSize = 3 * ReplicaStateFile.maximumSize

    /// A journal read onto its snapshot.
    struct Replay: Sendable {
        /// The snapshot's state with every authentic record applied in order.
        var state: ReplicaState
        /// The tag the next record chains from.
        var lastTag: [UInt8]
        /// The records applied.
        var records: Int
        /// The bytes of header and authentic records; the journal is usable for appending only
        /// when this is its whole length (``isWhole``).
        var usableLength: Int
        /// Whether the header names this snapshot (`false`: a stale journal, nothing applied).
        var followsSnapshot: Bool
        /// Whether nothing followed the last authentic record (no torn or unverifiable tail).
        var isWhole: Bool
        /// The journal's version: only a journal of ``ReplicaJournal/version`` is appended to.
        var version: UInt8
    }

    static func header(following snapshotTag: [UInt8]) -> [UInt8] {
        magic + [version] + snapshotTag
    }

    /// The bytes of one record of `change` (see ``change(from:to:)``) after the record or
    /// snapshot tagged `previous`, and its own tag.
    static func record(_ change: ReplicaState, after previous: [UInt8], in file: ReplicaStateFile) throws(SyncError) -> (bytes: [UInt8], tag: [UInt8]) {
        let body = ReplicaStateBinary.encode(change)
        var bytes: [UInt8] = []
        bytes.reserveCapacity(4 + body.count + 32)
        bytes.appendLengthPrefixed(body)
        let tag = tag(of: bytes[...], previous: previous, in: file)
        bytes += tag
        return (bytes, tag)
    }

    /// The tag of a record of this version whose length and body are `record`, chained from
    /// `previous`: a random salt, then the Poly1305 tag of `record` under the one-time key of
    /// that salt, the version and `previous`.
    static func tag(of record: ArraySlice<UInt8>, previous: [UInt8], in file: ReplicaStateFile) -> [UInt8] {
        let salt = SecureRandom.bytes(count: ReplicaStateFile.saltSize)
        return salt + file.withOneTimeKey(for: oneTimeKeyPurpose, binding: [[version], previous], salt: salt) { oneTimeKey in
            record.withUnsafeBytes { OneTimeAuthenticator.tag($0, oneTimeKeyBytes: oneTimeKey) }
        }
    }

    /// Whether `tag` is the tag of a record of `version` whose length and body are `record`,
    /// chained from `previous`; compared in constant time.
    private static func isTag(_ tag: [UInt8], of record: ArraySlice<UInt8>, version: UInt8, previous: [UInt8], in file: ReplicaStateFile) -> Bool {
        guard version >= 3 else { return constantTimeEquals(tag, file.mac(record, after: tagPrefix(version: version, previous: previous))) }
        return file.withOneTimeKey(for: oneTimeKeyPurpose, binding: [[version], previous], salt: tag[..<ReplicaStateFile.saltSize]) { oneTimeKey in
            record.withUnsafeBytes { OneTimeAuthenticator.isValid(tag[ReplicaStateFile.saltSize...], of: $0, oneTimeKeyBytes: oneTimeKey) }
        }
    }

    private static let oneTimeKeyPurpose = Array("journal".utf8)

    /// What a version 1 or 2 record's tag covers before the record's length and body: for
    /// version 2, `"GVSJ" ‖ 2 ‖ previous`; for version 1, `"GVSJ" ‖ previous`. The record
    /// itself is hashed where it lies: copied after this prefix, a first sync's record of 2,000
    /// rows was a copy into fresh memory before its `fdatasync`.
    private static func tagPrefix(version: UInt8, previous: [UInt8]) -> [UInt8] {
        var prefix = magic
        if version != 1 { prefix.append(version) }
        return prefix + previous
    }

    /// Applies the authentic records of `bytes` to `snapshot`, in order.
    /// - Throws: `storage` when the file is not a journal, is of another version, or holds an
    ///   authentic record that does not decode: each is something a crash cannot produce.
    static func replay(_ bytes: [UInt8], onto snapshot: ReplicaStateFile.Snapshot, in file: ReplicaStateFile) throws(SyncError) -> Replay {
        let name = file.journalName
        guard bytes.count >= magic.count + 1, Array(bytes.prefix(4)) == magic else {
            throw SyncError(.storage, "the sync journal \(name) is not a GroupSync journal; move it and \(file.fileName) away to sync this store again from the server")
        }
        let version = bytes[4]
        guard readableVersions.contains(version) else {
            throw SyncError(.storage, "the sync journal \(name) has version \(version); this GroupSync reads versions \(readableVersions.lowerBound) to \(readableVersions.upperBound): update it")
        }
        var replay = Replay(state: snapshot.state, lastTag: snapshot.tag, records: 0, usableLength: 0, followsSnapshot: false, isWhole: false, version: version)
        // A header cut short cannot be written (the journal is created whole, by an atomic
        // replace), so it is as stale as one naming another snapshot.
        guard bytes.count >= headerSize, Array(bytes[5..<headerSize]) == snapshot.tag else { return replay }
        replay.followsSnapshot = true
        var offset = headerSize
        while bytes.count - offset >= 4 + 32 {
            var header = BigEndianReader(bytes, from: offset)
            let length = Int(header.integer(UInt32.self)!)  // the loop's condition left 4 bytes
            guard length <= bytes.count - offset - 4 - 32 else { break }
            let tag = Array(bytes[(offset + 4 + length)..<(offset + 4 + length + 32)])
            guard isTag(tag, of: bytes[offset..<(offset + 4 + length)], version: version, previous: replay.lastTag, in: file) else { break }
            let change: ReplicaState
            do {
                change = try ReplicaStateFile.decode(bytes[(offset + 4)..<(offset + 4 + length)], version: version)
            } catch {
                throw SyncError(.storage, "record \(replay.records + 1) of the sync journal \(name) is authentic but cannot be decoded: \(error)", underlyingError: error)
            }
            apply(change, to: &replay.state)
            replay.lastTag = tag
            replay.records += 1
            offset += 4 + length + 32
        }
        replay.usableLength = offset
        replay.isWhole = offset == bytes.count
        return replay
    }

    /// What a record holds for the change from `old` to `new`: `new` with only the entries it
    /// added or altered, `.unchanged` when it holds nothing new, `.removesEntries` when `new`
    /// lost entries (an account change), which only a new snapshot can say. `names`, when
    /// given, are the only entries that may differ: the others are not compared (a write or an
    /// acknowledgement touches one entry, and comparing all of them per write would cost the
    /// square of the store's size over a run).
    static func change(from old: ReplicaState, to new: ReplicaState, among names: [EntryName]? = nil) -> Change {
        var change = new
        change.entries = [:]
        var added = 0
        func compare(_ name: EntryName, _ entry: ReplicaState.Entry) {
            if let before = old.entries[name] {
                if before != entry { change.entries[name] = entry }
            } else {
                change.entries[name] = entry
                added += 1
            }
        }
        if let names {
            // Sized once: a first sync's page adds an entry per name, and growing the record's
            // dictionary to that size hashed each name again at every doubling.
            change.entries.reserveCapacity(names.count)
            for name in names { if let entry = new.entries[name] { compare(name, entry) } }
        } else {
            for (name, entry) in new.entries { compare(name, entry) }
        }
        guard new.entries.count == old.entries.count + added else { return .removesEntries }
        if change.entries.isEmpty {
            var unchanged = old
            unchanged.entries = [:]
            if unchanged == change { return .unchanged }
        }
        return .record(change)
    }

    /// What ``change(from:to:among:)`` found.
    enum Change {
        case unchanged
        case removesEntries
        case record(ReplicaState)
    }

    /// `state` after the record `change`: its entries merged in, every other field taken.
    static func apply(_ change: ReplicaState, to state: inout ReplicaState) {
        var entries = state.entries
        state.entries = [:]
        for (name, entry) in change.entries { entries[name] = entry }
        state = change
        state.entries = entries
    }
}
