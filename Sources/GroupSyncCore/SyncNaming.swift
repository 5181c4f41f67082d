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
        // Written into one buffer: every entry opened is named again, to check its key.
        let key = key.utf8
        var message: [UInt8] = []
        message.reserveCapacity(3 * 8 + Self.nameLabel.count + space.count + key.count)
        Self.appendFramed(Self.nameLabel, to: &message)
        Self.appendFramed(space, to: &message)
        Self.appendFramed(key, to: &message)
        return Digest.keyedBLAKE2b256(message, key: namingKey)
    }

    private static let nameLabel = Array("name".utf8)

    /// The Vault record name an entry's blob is sealed under (its AAD), so that a blob moved to
    /// another entry, space or group fails authentication: `gs-` + 64 hex digits of the name.
    package static func recordName(_ name: [UInt8]) -> String { "gs-" + Hex.lowercase(name) }

    /// The LISTEN/NOTIFY channel of a space: `gs_` + the first 16 bytes of the space in hex
    /// (35 characters, inside PostgreSQL's 63-byte identifier limit).
    package static func channel(space: [UInt8]) -> String { "gs_" + Hex.lowercase(Array(space.prefix(16))) }

    private static func framed(_ parts: [String]) -> [UInt8] { framedBytes(parts.map { Array($0.utf8) }) }

    private static func framedBytes(_ parts: [[UInt8]]) -> [UInt8] {
        var bytes: [UInt8] = []
        for part in parts { appendFramed(part, to: &bytes) }
        return bytes
    }

    /// `part`'s byte count as a big-endian `UInt64`, then `part`.
    private static func appendFramed(_ part: some Collection<UInt8>, to bytes: inout [UInt8]) {
        withUnsafeBytes(of: UInt64(part.count).bigEndian) { bytes += $0 }
        bytes += part
    }
}
