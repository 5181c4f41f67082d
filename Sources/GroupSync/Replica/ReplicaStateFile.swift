#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import SealedStorage
import GroupSyncCore

/// The snapshot that holds a ``ReplicaState``: `<group container>/GroupSync/<label>.state`,
/// replaced atomically and durably through the file layer. The changes made since it are in
/// the journal beside it (``ReplicaJournal``, ``ReplicaStateStore``).
///
/// Layout: `"GVSS"`, a version byte (2), the state's binary body (``ReplicaStateBinary``), then a
/// 32-byte keyed BLAKE2b-256 of everything before it and the label, under a key derived from the
/// group's key #1. A file altered without that key, or copied from another store, is refused
/// (`storage`) rather than trusted; like the Vault's trust ledger, a whole older copy put back by
/// someone who can write the container is not detectable from the file alone (docs/SYNC.md,
/// "Limits"). Version 1, the state as JSON, is what GroupSync wrote before the binary body; it
/// is still read, and replaced by version 2 at the next compaction.
struct ReplicaStateFile: Sendable {
    static let magic: [UInt8] = Array("GVSS".utf8)
    /// The version written; ``readableVersions`` are read.
    static let version: UInt8 = 2
    /// 1: the state as JSON; 2: the binary body.
    static let readableVersions: ClosedRange<UInt8> = 1...2
    /// Far above the largest state (a 1 MB store, its blobs twice, base64).
    static let maximumSize = 16 << 20

    /// The state files of the store `label` in `directory`, authenticated with `key`.
    init(directory: DirectoryHandle, label: String, key: SymmetricKey) {
        self.directory = directory
        self.label = label
        self.key = key
        fileName = label + ".state"
        journalName = label + ".journal"
    }

    /// A snapshot as read or written: the state, and the tag the journal after it chains from.
    struct Snapshot: Sendable {
        var state: ReplicaState
        var tag: [UInt8]
        /// The file's size in bytes.
        var size: Int
    }

    let directory: DirectoryHandle
    let label: String
    let key: SymmetricKey

    /// The snapshot's name. Kept, not joined on each use: every change looks both names up.
    let fileName: String

    // The names of the store's other files, beside the snapshot (docs/SYNC.md, section 7).

    /// The journal of the changes since the snapshot (``ReplicaJournal``).
    let journalName: String
    /// The lock file held to read the store again or change it.
    var lockName: String { label + ".lock" }
    /// The lock file held for a round.
    var roundLockName: String { label + ".round.lock" }

    /// The snapshot, or `nil` when there is none yet.
    func load() throws(SyncError) -> Snapshot? {
        let bytes: [UInt8]?
        do {
            bytes = try directory.read(fileName, maximumSize: Self.maximumSize)
        } catch {
            throw SyncError(.storage, "the sync state \(fileName) cannot be read: \(error)", underlyingError: error)
        }
        guard let bytes else { return nil }
        guard bytes.count >= Self.magic.count + 1 + 32, Array(bytes.prefix(4)) == Self.magic else {
            throw SyncError(.storage, "the sync state \(fileName) is not a GroupSync state file; move it away to sync this store again from the server")
        }
        guard Self.readableVersions.contains(bytes[4]) else {
            throw SyncError(.storage, "the sync state \(fileName) has version \(bytes[4]); this GroupSync reads versions \(Self.readableVersions.lowerBound) to \(Self.readableVersions.upperBound): update it")
        }
        let body = bytes[..<(bytes.count - 32)]
        let tag = Array(bytes[(bytes.count - 32)...])
        guard tag == mac(body) else {
            throw SyncError(.storage, "the sync state \(fileName) failed authentication: it was altered or copied from another store or group; move it away to sync this store again from the server")
        }
        do {
            let state = try Self.decode(body[5...], version: bytes[4])
            return Snapshot(state: state, tag: tag, size: bytes.count)
        } catch {
            throw SyncError(.storage, "the sync state \(fileName) is authentic but cannot be decoded: \(error)", underlyingError: error)
        }
    }

    /// A state body of `version` (a snapshot's, or a journal record's of the same version):
    /// JSON for 1, ``ReplicaStateBinary`` for 2.
    static func decode(_ body: ArraySlice<UInt8>, version: UInt8) throws -> ReplicaState {
        if version == 1 { return try JSONDecoder().decode(ReplicaState.self, from: Data(body)) }
        return try ReplicaStateBinary.decode(body)
    }

    /// Replaces the snapshot with `state`, durably (the directory synced after the rename), and
    /// returns what was written.
    @discardableResult
    func save(_ state: ReplicaState) throws(SyncError) -> Snapshot {
        var body = Self.magic + [Self.version]
        ReplicaStateBinary.encode(state, appendingTo: &body)
        let tag = mac(body)
        body += tag
        do {
            try directory.replace(fileName, with: body, durability: .full)
        } catch {
            throw SyncError(.storage, "the sync state \(fileName) cannot be written: \(error); the write was not kept", underlyingError: error)
        }
        return Snapshot(state: state, tag: tag, size: body.count)
    }

    /// The keyed BLAKE2b-256 of `frame(label) ‖ bytes`: the snapshot's tag over its body, and
    /// (with the journal's own prefix in `bytes`) each journal record's.
    ///
    /// Fed in parts where the bytes lie, not copied into one message first: a snapshot's body
    /// is megabytes.
    func mac(_ bytes: some Collection<UInt8>) -> [UInt8] {
        let hasher = KeyedBLAKE2bHasher(key: key)
        hasher.update(bigEndian: UInt64(label.utf8.count))
        var label = label
        label.withUTF8 { hasher.update(UnsafeRawBufferPointer($0)) }
        if bytes.withContiguousStorageIfAvailable({ hasher.update(UnsafeRawBufferPointer($0)) }) == nil {
            Array(bytes).withUnsafeBytes { hasher.update($0) }
        }
        return hasher.finishMessage()
    }
}
