#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import SealedStorage
import GroupSyncCore

/// The file that holds a ``ReplicaState``: `<group container>/GroupSync/<label>.state`,
/// replaced atomically through the file layer.
///
/// Layout: `"GVSS"`, a version byte (1), the state as JSON, then a 32-byte keyed BLAKE2b-256 of
/// everything before it and the label, under a key derived from the group's key #1. A file
/// altered without that key, or copied from another store, is refused (`storage`) rather than
/// trusted; like the Vault's trust ledger, a whole older copy put back by someone who can write
/// the container is not detectable from the file alone (docs/SYNC.md, "Limits").
struct ReplicaStateFile: Sendable {
    static let magic: [UInt8] = Array("GVSS".utf8)
    static let version: UInt8 = 1
    /// Far above the largest state (a 1 MB store, its blobs twice, base64).
    static let maximumSize = 16 << 20

    let directory: DirectoryHandle
    let label: String
    let key: SymmetricKey

    var fileName: String { label + ".state" }

    func load() throws(SyncError) -> ReplicaState {
        let bytes: [UInt8]?
        do {
            bytes = try directory.read(fileName, maximumSize: Self.maximumSize)
        } catch {
            throw SyncError(.storage, "the sync state \(fileName) cannot be read: \(error)", underlyingError: error)
        }
        guard let bytes else { return ReplicaState() }
        guard bytes.count >= Self.magic.count + 1 + 32, Array(bytes.prefix(4)) == Self.magic else {
            throw SyncError(.storage, "the sync state \(fileName) is not a GroupSync state file; move it away to sync this store again from the server")
        }
        guard bytes[4] == Self.version else {
            throw SyncError(.storage, "the sync state \(fileName) has version \(bytes[4]); this GroupSync reads version \(Self.version): update it")
        }
        let body = Array(bytes[..<(bytes.count - 32)])
        let tag = Array(bytes[(bytes.count - 32)...])
        guard tag == mac(body) else {
            throw SyncError(.storage, "the sync state \(fileName) failed authentication: it was altered or copied from another store or group; move it away to sync this store again from the server")
        }
        do {
            return try JSONDecoder().decode(ReplicaState.self, from: Data(body[5...]))
        } catch {
            throw SyncError(.storage, "the sync state \(fileName) is authentic but cannot be decoded: \(error)", underlyingError: error)
        }
    }

    func save(_ state: ReplicaState, durability: Durability) throws(SyncError) {
        let json: Data
        do {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys]
            json = try encoder.encode(state)
        } catch {
            throw SyncError(.storage, "the sync state cannot be encoded: \(error)", underlyingError: error)
        }
        let body = Self.magic + [Self.version] + Array(json)
        do {
            try directory.replace(fileName, with: body + mac(body), durability: durability)
        } catch {
            throw SyncError(.storage, "the sync state \(fileName) cannot be written: \(error); the write was not kept", underlyingError: error)
        }
    }

    private func mac(_ body: [UInt8]) -> [UInt8] {
        var framed: [UInt8] = []
        withUnsafeBytes(of: UInt64(label.utf8.count).bigEndian) { framed += $0 }
        framed += Array(label.utf8)
        return Digest.keyedBLAKE2b256(framed + body, key: key)
    }
}
