import Keyring
import SealedStorage
import Vault

/// A space's state as one sealed object on the server (docs/SYNC.md, section 6, "Snapshots"):
/// what a member that has read the space up to a change number holds, so that a fresh machine
/// reads one object and makes one AEAD pass instead of opening every row.
///
/// Each entry keeps its row as the server stores it (name, sequence, sealed blob), which the
/// fresh machine keeps as it would a row it accepted, and what the entry shows (its key and
/// value bytes, or nothing), which the snapshot's seal vouches for, so that the fresh machine
/// shows values without opening each blob.
///
/// Layout (big-endian), `header ‖ XChaCha20-Poly1305(plaintext)`:
///
/// ```
/// header    = "GVSS" ‖ u8 version (1) ‖ 3 zero bytes ‖ u32 key id ‖ u64 change ‖ u32 entry count ‖ 24-byte nonce
/// key       = crypto_kdf_derive_from_key(32, subkey id 3, "GVSYNC01", the group's key <key id>)
/// AAD       = header ‖ frame("snapshot", space, group UTF-8)
/// plaintext = entries, names strictly ascending, each:
///             name (32) ‖ u64 sequence ‖ u32 blob length ‖ blob ‖ u8 shown (0 or 1)
///             [shown = 1: u16 key length ‖ key UTF-8 ‖ u32 value length ‖ value]
/// ```
package struct SyncSnapshot: Sendable, Equatable {
    /// One entry as the snapshot's writer held it.
    package struct Entry: Sendable, Equatable {
        /// The entry's keyed name (32 bytes).
        package var name: [UInt8]
        /// The sequence the writer accepted for it (its row's).
        package var sequence: UInt64
        /// The sealed entry the writer accepted at ``sequence``.
        package var blob: [UInt8]
        /// What the entry shows; `nil` for a removal, or an entry of no type its store knows.
        package var shown: Shown?

        package init(name: [UInt8], sequence: UInt64, blob: [UInt8], shown: Shown?) {
            self.name = name
            self.sequence = sequence
            self.blob = blob
            self.shown = shown
        }
    }

    /// An entry's key and value bytes, as its blob holds them.
    package struct Shown: Sendable, Equatable {
        package var key: String
        package var value: [UInt8]

        package init(key: String, value: [UInt8]) {
            self.key = key
            self.value = value
        }
    }

    /// The highest change number the writer had read from the server when it wrote the
    /// snapshot: a reader catches up on the rows after it.
    package var change: Int64
    /// The entries, names strictly ascending.
    package var entries: [Entry]

    package init(change: Int64, entries: [Entry]) {
        self.change = change
        self.entries = entries
    }

    package static let magic: [UInt8] = Array("GVSS".utf8)
    package static let formatVersion: UInt8 = 1
    package static let headerByteCount = 48
    /// The `crypto_kdf` subkey id of the snapshot key, derived from the group key that seals it
    /// (``SyncNaming/context``; 1 and 2 are derived from key #1 for names and the local state).
    package static let subkeyID: UInt64 = 3
    /// The largest snapshot written or read: 64 MiB. A space whose snapshot would be larger has
    /// none, and fresh machines read its rows.
    package static let maximumByteCount = 64 << 20
    /// The fewest bytes an entry takes in the plaintext: a name, a sequence, a blob's length,
    /// a header-only blob, and the shown flag.
    private static let smallestEntry = 32 + 8 + 4 + BlobHeader.byteCount + XChaCha20Poly1305.tagByteCount + 1

    // MARK: Sealing

    /// Seals the snapshot of `space` with `groupKey` (the group's primary key).
    /// - Throws: `SyncError.Code.invalidArgument` when the entries are not in strictly ascending
    ///   name order or a key is longer than 65,535 bytes; `quota` when the snapshot would be
    ///   larger than ``maximumByteCount``.
    package func sealed(
        space: [UInt8], groupKey: GroupKey, nonce: XChaCha20Poly1305.Nonce = .random()
    ) throws(SyncError) -> [UInt8] {
        guard change >= 1, let count = UInt32(exactly: entries.count) else {
            throw SyncError(.invalidArgument, "a snapshot covers change numbers from 1 and at most 2^32 - 1 entries")
        }
        var plaintext: [UInt8] = []
        plaintext.reserveCapacity(entries.reduce(0) { $0 + Self.smallestEntry + $1.blob.count + ($1.shown.map { 6 + $0.key.utf8.count + $0.value.count } ?? 0) })
        var previous: [UInt8]?
        for entry in entries {
            guard entry.name.count == 32, previous.map({ $0.lexicographicallyPrecedes(entry.name) }) ?? true else {
                throw SyncError(.invalidArgument, "a snapshot's entries have 32-byte names in strictly ascending order")
            }
            previous = entry.name
            plaintext += entry.name
            plaintext.appendBigEndian(entry.sequence)
            plaintext.appendBigEndian(UInt32(entry.blob.count))
            plaintext += entry.blob
            guard let shown = entry.shown else {
                plaintext.append(0)
                continue
            }
            guard let keyLength = UInt16(exactly: shown.key.utf8.count), let valueLength = UInt32(exactly: shown.value.count) else {
                throw SyncError(.invalidArgument, "a snapshot's key is at most 65,535 bytes and a value at most 2^32 - 1")
            }
            plaintext.append(1)
            plaintext.appendBigEndian(keyLength)
            plaintext += Array(shown.key.utf8)
            plaintext.appendBigEndian(valueLength)
            plaintext += shown.value
        }
        let total = Self.headerByteCount + plaintext.count + XChaCha20Poly1305.tagByteCount
        guard total <= Self.maximumByteCount else {
            throw SyncError(.quota, "the space's snapshot would be \(total) bytes, more than the \(Self.maximumByteCount) a snapshot may hold")
        }
        let header = Self.header(keyID: groupKey.id, change: change, count: count, nonce: nonce)
        let key = KeyDerivation.deriveKey(from: groupKey.key, context: SyncNaming.context, id: Self.subkeyID)
        return header + XChaCha20Poly1305.seal(plaintext, using: key, nonce: nonce, authenticating: Self.additionalData(header: header, space: space, group: groupKey.group))
    }

    private static func header(keyID: UInt32, change: Int64, count: UInt32, nonce: XChaCha20Poly1305.Nonce) -> [UInt8] {
        var header = magic + [formatVersion, 0, 0, 0]
        header.appendBigEndian(keyID)
        header.appendBigEndian(UInt64(change))
        header.appendBigEndian(count)
        return header + nonce.bytes
    }

    /// The header, then the space and group it belongs to, framed as names are
    /// (docs/SYNC.md, section 4): a snapshot moved to another space or group fails its tag.
    private static func additionalData(header: some Collection<UInt8>, space: [UInt8], group: GroupIdentifier) -> [UInt8] {
        var data = Array(header)
        for part in [Array("snapshot".utf8), space, Array(group.rawValue.utf8)] { SyncNaming.appendFramed(part, to: &data) }
        return data
    }

    // MARK: Opening

    /// Opens a snapshot read from the server for `space`, whose `change` column the server
    /// says is `change`.
    ///
    /// In order: size and magic (`malformed`), version (`unsupportedFormat`), the reserved bytes,
    /// a change of at least 1 equal to the column, an entry count the size can hold
    /// (`malformed`); the key its header names (`unknownKey`, `retiredKey`, `keyring`) and the
    /// tag (`authenticationFailed`); then every entry's layout: ascending 32-byte names, a shown
    /// flag of 0 or 1, lengths inside the plaintext, nothing after the last entry (`malformed`),
    /// a shown key of valid UTF-8 (`invalidRecord`); then each entry's own checks, the first
    /// entry that fails one giving the reason: a sequence of 1 to 2^63 - 1 (`malformed`) and at
    /// most 2^32 (`untrustedSequence`, as a fresh machine's rows) that its blob's header states
    /// (`malformed`), a shown key that hashes to the entry's name and a key and
    /// value `contents` takes (`invalidRecord`); last, every key that sealed an entry, held
    /// (`unknownKey`, `retiredKey`, `keyring`). Authentic means a key holder wrote it; these
    /// checks keep a faulty one from making a fresh machine show what no row says.
    package static func open(
        _ blob: [UInt8], change column: Int64, space: [UInt8], naming: SyncNaming,
        key keyForID: (UInt32) throws(VaultError) -> GroupKey, contents: @Sendable (SyncEnvelope) -> String? = { _ in nil }
    ) throws(VaultError) -> SyncSnapshot {
        guard blob.count >= headerByteCount + XChaCha20Poly1305.tagByteCount, blob.count <= maximumByteCount else {
            throw VaultError(.malformed, "the server's snapshot is \(blob.count) bytes; a snapshot has \(headerByteCount + XChaCha20Poly1305.tagByteCount) to \(maximumByteCount)")
        }
        guard blob.starts(with: magic) else { throw VaultError(.malformed, "the server's snapshot does not start with GVSS") }
        guard blob[4] == formatVersion else {
            throw VaultError(.unsupportedFormat, "the server's snapshot has format version \(blob[4]); this GroupSync reads version \(formatVersion): update it")
        }
        var reader = BigEndianReader(blob, from: 5)
        let reserved = reader.bytes(3)!, keyID = reader.integer(UInt32.self)!, change = reader.integer(UInt64.self)!, count = reader.integer(UInt32.self)!
        guard reserved.allSatisfy({ $0 == 0 }) else { throw VaultError(.malformed, "the server's snapshot has reserved bytes set") }
        guard change >= 1, change <= UInt64(Int64.max), Int64(change) == column else {
            throw VaultError(.malformed, "the server's snapshot says change \(change) but its row says \(column); the row was edited on the server")
        }
        guard Int(count) <= (blob.count - headerByteCount - XChaCha20Poly1305.tagByteCount) / smallestEntry else {
            throw VaultError(.malformed, "the server's snapshot names \(count) entries, more than its \(blob.count) bytes hold")
        }
        let nonce = XChaCha20Poly1305.Nonce(validated: reader.bytes(XChaCha20Poly1305.nonceByteCount)!)
        let groupKey = try keyForID(keyID)
        let key = KeyDerivation.deriveKey(from: groupKey.key, context: SyncNaming.context, id: subkeyID)
        let plaintext: [UInt8]
        do {
            plaintext = try XChaCha20Poly1305.open(
                blob[headerByteCount...], using: key, nonce: nonce,
                authenticating: additionalData(header: blob[..<headerByteCount], space: space, group: naming.group))
        } catch {
            throw VaultError(.authenticationFailed, "the server's snapshot of change \(change) fails authentication with key #\(keyID): it was altered, or belongs to another space or group")
        }
        var entries: [Entry] = []
        entries.reserveCapacity(Int(count))
        var body = BigEndianReader(plaintext)
        for index in 0..<Int(count) {
            entries.append(try readEntry(&body, index: index, after: entries.last?.name))
        }
        guard body.isAtEnd else { throw VaultError(.malformed, "the server's snapshot has bytes after its \(count) entries") }
        // Each entry's own checks (a keyed hash, its blob's header, its store's rules) on every
        // core: about half of opening a snapshot of 10,000 entries on one. A share keeps the
        // entries' indices, so no enumerated copy of them is made.
        let checked = SplitWork.map(entries, minimumPerWorker: 256) { share in
            zip(share.indices, share).map { index, entry in check(entry, index: index, space: space, naming: naming, contents: contents) }
        }
        var keyIDs = Set<UInt32>()
        for result in checked { keyIDs.insert(try result.get()) }
        // Every key that sealed an entry must be held: a store opens each accepted blob when it
        // is opened again, and one it cannot open would keep it from opening. (Rows are refused
        // one by one for such a key, and the key awaited.)
        for id in keyIDs.sorted() {
            do {
                _ = try keyForID(id)
            } catch {
                throw VaultError(error.code, "the server's snapshot holds an entry sealed with key #\(id), which cannot be used here (\(error.reason)); the rows are read instead")
            }
        }
        return SyncSnapshot(change: Int64(change), entries: entries)
    }

    /// An entry's layout: its name above `previous`, lengths inside the plaintext, a shown flag
    /// of 0 or 1.
    private static func readEntry(_ body: inout BigEndianReader, index: Int, after previous: [UInt8]?) throws(VaultError) -> Entry {
        // Built only when thrown: made for every entry, the reason's text was an allocation each.
        func truncated() -> VaultError { VaultError(.malformed, "the server's snapshot ends inside entry \(index)") }
        guard let name = body.bytes(32).map(Array.init), let sequence = body.integer(UInt64.self),
              let blob = body.lengthPrefixed().map(Array.init),
              let flag = body.integer(UInt8.self) else { throw truncated() }
        guard previous.map({ $0.lexicographicallyPrecedes(name) }) ?? true else {
            throw VaultError(.malformed, "the server's snapshot has entry \(index) out of name order")
        }
        switch flag {
        case 0:
            return Entry(name: name, sequence: sequence, blob: blob, shown: nil)
        case 1:
            guard let keyLength = body.integer(UInt16.self), let keyBytes = body.bytes(Int(keyLength)),
                  let value = body.lengthPrefixed().map(Array.init) else { throw truncated() }
            guard let key = String(validating: keyBytes, as: UTF8.self) else {
                throw VaultError(.invalidRecord, "the server's snapshot shows entry \(index) under a key that is not UTF-8; its writer was faulty")
            }
            return Entry(name: name, sequence: sequence, blob: blob, shown: Shown(key: key, value: value))
        default:
            throw VaultError(.malformed, "the server's snapshot has entry \(index) with shown flag \(flag); it is 0 or 1")
        }
    }

    /// What an entry must be beyond its layout: a sequence of 1 to 2^63 - 1 (`malformed`) and
    /// at most 2^32 (`untrustedSequence`) that its blob's header states (`malformed`), a shown
    /// key that hashes to its name and a key and value its store takes (`invalidRecord`).
    /// Returns the id of the key that sealed its blob.
    private static func check(
        _ entry: Entry, index: Int, space: [UInt8], naming: SyncNaming, contents: (SyncEnvelope) -> String?
    ) -> Result<UInt32, VaultError> {
        guard entry.sequence >= 1, entry.sequence <= UInt64(Int64.max) else {
            return .failure(VaultError(.malformed, "the server's snapshot has entry \(index) at sequence \(entry.sequence); sequences run from 1 to 2^63 - 1"))
        }
        // A fresh machine has seen nothing: as for its rows, more than the window above 0 is a
        // key holder trying to make the entry unwritable.
        guard entry.sequence <= ServerRow.sequenceWindow else {
            return .failure(VaultError(.untrustedSequence, "the server's snapshot has entry \(index) at sequence \(entry.sequence), more than 2^32 above the 0 this machine has seen"))
        }
        guard entry.blob.count <= BlobFormat.maximumBlobSize, let header = try? BlobHeader.parse(entry.blob, subject: "a snapshot's entry"),
              header.sequence == entry.sequence else {
            return .failure(VaultError(.malformed, "the server's snapshot has entry \(index) whose blob is no sealed entry at its sequence \(entry.sequence)"))
        }
        guard let shown = entry.shown else { return .success(header.keyID) }
        guard naming.isName(entry.name, space: space, key: shown.key) else {
            return .failure(VaultError(.invalidRecord, "the server's snapshot shows entry \(index) under a key that is not its name's; its writer was faulty"))
        }
        let envelope = SyncEnvelope(key: shown.key, value: shown.value, sequence: entry.sequence, keyID: header.keyID, issuedAtMilliseconds: header.issuedAtMilliseconds)
        if let reason = contents(envelope) {
            return .failure(VaultError(.invalidRecord, "the server's snapshot shows entry \(index), but \(reason)"))
        }
        return .success(header.keyID)
    }
}
