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
/// Layout: `"GVSS"`, a version byte (3), the state's binary body (``ReplicaStateBinary``), then
/// a 32-byte tag: a random 16-byte salt and the Poly1305 tag of everything before the tag, under
/// a one-time key derived from the salt, the label and a key derived from the group's key #1
/// (``oneTimeKey(salt:)``). A file altered without that key, or copied from another store, is
/// refused (`storage`) rather than trusted; like the Vault's trust ledger, a whole older copy
/// put back by someone who can write the container is not detectable from the file alone
/// (docs/SYNC.md, "Limits").
///
/// Older versions are still read, and replaced by version 3 at the next compaction: version 1
/// (the state as JSON) and version 2 (the binary body), both tagged with the keyed BLAKE2b-256
/// of ``mac(_:)``. Version 3 changed only the tag, because keyed BLAKE2b over a state of 10,000
/// entries (2.8 MB) took 4.0 ms at every save and every opening, Poly1305 0.6 ms.
struct ReplicaStateFile: Sendable {
    static let magic: [UInt8] = Array("GVSS".utf8)
    /// The version written; ``readableVersions`` are read.
    static let version: UInt8 = 3
    /// 1: the state as JSON; 2: the binary body; 3: the binary body under a Poly1305 tag.
    static let readableVersions: ClosedRange<UInt8> = 1...3
    /// A version 3 tag: the salt of its one-time key, then the Poly1305 tag.
    static let saltSize = 16
    /// Far above the largest state (a 1 MB store, its blobs twice, base64).
    static let maximumSize = 16 << 20

    /// The state files of the store `label` in `directory`, authenticated with `key`.
    init(directory: DirectoryHandle, label: String, key: SymmetricKey) {
        self.directory = directory
        self.label = label
        self.key = key
        fileName = label + ".state"
        journalName = label + ".journal"
        oneTimeKeys = OneTimeKeyBuffer()
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
    /// Where the one-time keys of the snapshot's and the journal records' tags are derived
    /// (``withOneTimeKey(for:binding:salt:_:)``).
    private let oneTimeKeys: OneTimeKeyBuffer

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
        guard isTag(tag, of: body, version: bytes[4]) else {
            throw SyncError(.storage, "the sync state \(fileName) failed authentication: it was altered or copied from another store or group; move it away to sync this store again from the server")
        }
        do {
            let state = try Self.decode(body[5...], version: bytes[4])
            return Snapshot(state: state, tag: tag, size: bytes.count)
        } catch {
            throw SyncError(.storage, "the sync state \(fileName) is authentic but cannot be decoded: \(error)", underlyingError: error)
        }
    }

    /// Whether `tag` is the tag of a snapshot of `version` whose bytes before it are `body`,
    /// compared in constant time.
    private func isTag(_ tag: [UInt8], of body: ArraySlice<UInt8>, version: UInt8) -> Bool {
        guard version >= 3 else { return constantTimeEquals(tag, mac(body)) }
        return withOneTimeKey(for: Self.oneTimeKeyPurpose, salt: tag[..<Self.saltSize]) { oneTimeKey in
            body.withUnsafeBytes { OneTimeAuthenticator.isValid(tag[Self.saltSize...], of: $0, oneTimeKeyBytes: oneTimeKey) }
        }
    }

    /// A state body of a snapshot or journal of `version`: JSON for 1, ``ReplicaStateBinary``
    /// for 2 and 3 (the bodies are the same; a version 3 snapshot differs in its tag only).
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
        let salt = SecureRandom.bytes(count: Self.saltSize)
        let tag = salt + withOneTimeKey(for: Self.oneTimeKeyPurpose, salt: salt) { oneTimeKey in
            body.withUnsafeBytes { OneTimeAuthenticator.tag($0, oneTimeKeyBytes: oneTimeKey) }
        }
        body += tag
        do {
            try directory.replace(fileName, with: body, durability: .full)
        } catch {
            throw SyncError(.storage, "the sync state \(fileName) cannot be written: \(error); the write was not kept", underlyingError: error)
        }
        return Snapshot(state: state, tag: tag, size: body.count)
    }

    /// Runs `body` with the one-time key of a Poly1305 tag: the keyed BLAKE2b-256 of
    /// `frame(purpose) ‖ frame(label) ‖ frame(c)` for each `c` of `context` `‖ frame(salt)`,
    /// in guarded memory zeroed after `body` (``OneTimeKeyBuffer``). A version 3 snapshot's is
    /// `purpose` "state" with no context; a version 3 journal record's is "journal" with its
    /// version and the tag it chains from (``ReplicaJournal``). The random salt makes a new key
    /// for every tag written, so no key ever tags two messages; the label makes a file copied
    /// from another store fail, and the context a record moved elsewhere.
    func withOneTimeKey<Result>(
        for purpose: [UInt8], binding context: [[UInt8]] = [], salt: some Collection<UInt8>, _ body: (UnsafeRawBufferPointer) -> Result
    ) -> Result {
        var message: [UInt8] = []
        SyncNaming.appendFramed(purpose, to: &message)
        SyncNaming.appendFramed(label.utf8, to: &message)
        for part in context { SyncNaming.appendFramed(part, to: &message) }
        SyncNaming.appendFramed(salt, to: &message)
        return oneTimeKeys.withKey(derivedFrom: message, under: key, body)
    }

    private static let oneTimeKeyPurpose = Array("state".utf8)

    /// The keyed BLAKE2b-256 of `frame(label) ‖ prefix ‖ bytes`: the tag of a journal record
    /// of version 1 or 2 (the journal's own prefix, then the record), and of a snapshot of
    /// version 1 or 2.
    ///
    /// Fed in parts where the bytes lie, not copied into one message first: a snapshot's body
    /// is megabytes, and a first sync's journal record hundreds of kilobytes.
    func mac(_ bytes: some Collection<UInt8>, after prefix: [UInt8] = []) -> [UInt8] {
        let hasher = KeyedBLAKE2bHasher(key: key)
        hasher.update(bigEndian: UInt64(label.utf8.count))
        var label = label
        label.withUTF8 { hasher.update(UnsafeRawBufferPointer($0)) }
        prefix.withUnsafeBytes { hasher.update($0) }
        if bytes.withContiguousStorageIfAvailable({ hasher.update(UnsafeRawBufferPointer($0)) }) == nil {
            Array(bytes).withUnsafeBytes { hasher.update($0) }
        }
        return hasher.finishMessage()
    }
}
