import Keyring
import SealedStorage

/// The keyed hashes the server sees instead of names, and the local state's MAC key, all derived
/// from the group's key #1 (docs/SYNC.md, "Names the server sees").
///
/// Key #1 is the first key of the group's keyset, which every machine of the group imports when
/// it joins (`vaultcli keys export` / `keys import`); it names things only, it seals nothing, so
/// rotating the group's primary key leaves every name the same. A machine without key #1 cannot
/// sync the group, and says so.
package struct SyncNaming: Sendable {
    /// `crypto_kdf` context of the subkeys derived from key #1.
    package static let context: StaticString = "GVSYNC01"
    /// Subkey ids: 1 names spaces and entries, 2 authenticates the local state file.
    package static let namingSubkeyID: UInt64 = 1
    package static let stateSubkeyID: UInt64 = 2

    package let group: GroupIdentifier
    private let namingKey: SymmetricKey
    /// Authenticates the machine's local state file (``ReplicaStateFile``).
    package let stateKey: SymmetricKey

    package init(group: GroupIdentifier, firstKey: SymmetricKey) {
        self.group = group
        namingKey = KeyDerivation.deriveKey(from: firstKey, context: Self.context, id: Self.namingSubkeyID)
        stateKey = KeyDerivation.deriveKey(from: firstKey, context: Self.context, id: Self.stateSubkeyID)
    }

    /// Reads key #1 of `group` from `keyring`.
    package static func load(group: GroupIdentifier, keyring: Keyring) throws(SyncError) -> SyncNaming {
        do {
            // Creates the keyset (key #1) on the group's first machine; the others import it.
            _ = try keyring.groupKey(for: group)
            let first = try keyring.key(id: 1, in: group)
            return SyncNaming(group: group, firstKey: first.key)
        } catch {
            throw SyncError(.keyring, "group \(group)'s key #1, which names its synced state, cannot be read: \(error.reason). Import it on this machine (vaultcli keys import --group \(group) --id 1) before syncing", underlyingError: error, remedy: error.remedy ?? .importKey(group: group.rawValue))
        }
    }

    /// The space of a store: `BLAKE2b-256(namingKey, u64 5 ‖ "space" ‖ u64 len ‖ group ‖ u64 len ‖ store)`.
    package func space(store: String) -> [UInt8] {
        Digest.keyedBLAKE2b256(Self.framed(["space", group.rawValue, store]), key: namingKey)
    }

    /// An entry's name within a space: `BLAKE2b-256(namingKey, u64 4 ‖ "name" ‖ u64 32 ‖ space ‖ u64 len ‖ key)`.
    package func name(space: [UInt8], key: String) -> [UInt8] {
        withName(space: space, key: key) { Array($0) }
    }

    /// Whether `name` is ``name(space:key:)``: the check of every entry opened (a first sync
    /// opens every entry of the space), so no array is made for it.
    package func isName(_ name: [UInt8], space: [UInt8], key: String) -> Bool {
        name.count == 32 && withName(space: space, key: key) { digest in name.withUnsafeBytes { $0.elementsEqual(digest) } }
    }

    /// `body` with ``name(space:key:)``, its message and digest written on the stack.
    private func withName<Result>(space: [UInt8], key: String, _ body: (UnsafeRawBufferPointer) -> Result) -> Result {
        var key = key
        return key.withUTF8 { key in
            let length = 3 * 8 + Self.nameLabel.count + space.count + key.count
            return withUnsafeTemporaryAllocation(byteCount: length + 32, alignment: 8) { buffer in
                var offset = 0
                func appendFramed(_ part: UnsafeRawBufferPointer) {
                    buffer.storeBytes(of: UInt64(part.count).bigEndian, toByteOffset: offset, as: UInt64.self)
                    offset += 8
                    UnsafeMutableRawBufferPointer(rebasing: buffer[offset..<offset + part.count]).copyMemory(from: part)
                    offset += part.count
                }
                Self.nameLabel.withUnsafeBytes(appendFramed)
                space.withUnsafeBytes(appendFramed)
                appendFramed(UnsafeRawBufferPointer(key))
                let digest = UnsafeMutableRawBufferPointer(rebasing: buffer[length...])
                Digest.keyedBLAKE2b256(UnsafeRawBufferPointer(rebasing: buffer[..<length]), key: namingKey, into: digest)
                return body(UnsafeRawBufferPointer(digest))
            }
        }
    }

    private static let nameLabel = Array("name".utf8)

    /// The Vault record name an entry's blob is sealed under (its AAD), so that a blob moved to
    /// another entry, space or group fails authentication: `gs-` + 64 hex digits of the name.
    package static func recordName(_ name: [UInt8]) -> String { Hex.lowercase(name, after: "gs-") }

    /// The LISTEN/NOTIFY channel of a space: `gs_` + the first 16 bytes of the space in hex
    /// (35 characters, inside PostgreSQL's 63-byte identifier limit).
    package static func channel(space: [UInt8]) -> String { "gs_" + Hex.lowercase(Array(space.prefix(16))) }

    private static func framed(_ parts: [String]) -> [UInt8] { framedBytes(parts.map { Array($0.utf8) }) }

    private static func framedBytes(_ parts: [[UInt8]]) -> [UInt8] {
        var bytes: [UInt8] = []
        for part in parts { appendFramed(part, to: &bytes) }
        return bytes
    }

    /// `part`'s byte count as a big-endian `UInt64`, then `part`: section 4's `frame`, which a
    /// snapshot's additional data uses too (``SyncSnapshot``).
    package static func appendFramed(_ part: some Collection<UInt8>, to bytes: inout [UInt8]) {
        bytes.appendBigEndian(UInt64(part.count))
        bytes += part
    }
}
