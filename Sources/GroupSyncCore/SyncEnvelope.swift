#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Keyring
import SealedStorage
import Vault

/// One synced entry as it travels and rests: a Vault blob (docs/FORMAT.md, version 1) sealed
/// with the group's key, whose record name is the entry's keyed name (``SyncNaming/recordName(_:)``),
/// and whose sequence is the entry's sequence on the server.
///
/// The payload (schema version 1) is the JSON object `{"key": <the entry's key>, "value":
/// <base64 of the value's bytes>}`; a removed entry has no `"value"` member. Removals are not
/// Vault tombstones, because a machine that receives one must learn which key it removes, and
/// the server holds only the key's hash.
package struct SyncEnvelope: Sendable, Equatable {
    /// The schema version of the payload.
    package static let schemaVersion: UInt32 = 1

    /// The entry's key (a store key, or a record name).
    package var key: String
    /// The value's bytes, `nil` for a removal.
    package var value: [UInt8]?
    /// The header as sealed.
    package var sequence: UInt64
    package var keyID: UInt32
    package var issuedAtMilliseconds: Int64

    /// Seals `key` and `value` as the entry `name` of `group`, at `sequence`.
    package static func seal(
        key: String, value: [UInt8]?, sequence: UInt64, issuedAtMilliseconds: Int64,
        groupKey: GroupKey, name: [UInt8], nonce: XChaCha20Poly1305.Nonce = .random()
    ) throws(SyncError) -> [UInt8] {
        let recordName: RecordName
        do {
            recordName = try RecordName(validating: SyncNaming.recordName(name))
        } catch {
            throw SyncError(.invalidArgument, "entry name cannot be a record name: \(error)", underlyingError: error)
        }
        let plaintext = SyncPayload(key: key, value: value.map { Data($0) }).encoded()
        guard plaintext.count <= BlobFormat.maximumPayloadSize else {
            throw SyncError(.quota, "the value for key \(UntrustedText.printable(key)) is \(plaintext.count) bytes sealed; at most \(BlobFormat.maximumPayloadSize) fit in one entry")
        }
        let header = BlobHeader(
            flags: [], keyID: groupKey.id, sequence: sequence, issuedAtMilliseconds: issuedAtMilliseconds,
            expiresAtMilliseconds: 0, schemaVersion: schemaVersion, nonce: nonce)
        return BlobFormat.seal(header: header, plaintext: plaintext, key: groupKey.key, group: groupKey.group, name: recordName)
    }

    /// Opens `blob` as the entry `name` of `group`, with the key its header names.
    ///
    /// The order of checks is the Vault's (docs/FORMAT.md, section 3), then: the payload must
    /// decode, and its key must hash to `name`; a blob sealed by a key holder under one name
    /// with another key's content is refused (`invalidRecord`).
    /// - Throws: ``VaultError`` with the Vault's codes: `malformed`, `unsupportedFormat`,
    ///   `unknownKey`, `retiredKey`, `keyring`, `authenticationFailed`, `unsupportedSchema`,
    ///   `invalidRecord`.
    package static func open(
        _ blob: [UInt8], name: [UInt8], naming: SyncNaming, space: [UInt8],
        key keyForID: (UInt32) throws(VaultError) -> GroupKey
    ) throws(VaultError) -> SyncEnvelope {
        guard blob.count <= BlobFormat.maximumBlobSize else {
            throw VaultError(.malformed, "an entry from the server is \(blob.count) bytes, more than the largest sealed entry (\(BlobFormat.maximumBlobSize))")
        }
        // Written only into a refusal's reason: built when one is.
        let subject = { "synced entry \(SyncNaming.recordName(name))" }
        let header = try BlobHeader.parse(blob, subject: subject())
        guard !header.isTombstone, header.expiresAt == nil else {
            throw VaultError(.invalidRecord, "\(subject()) has flags (tombstone or expiry) that synced entries never carry")
        }
        let groupKey = try keyForID(header.keyID)
        let recordName = try RecordName(validating: SyncNaming.recordName(name))
        let plaintext = try BlobFormat.open(blob, header: header, key: groupKey.key, group: naming.group, name: recordName, subject: subject())
        guard header.schemaVersion == schemaVersion else {
            throw VaultError(.unsupportedSchema, "\(subject()) has payload schema \(header.schemaVersion); this GroupSync reads schema \(schemaVersion): update it")
        }
        let payload: SyncPayload
        do {
            payload = try SyncPayload.decode(plaintext)
        } catch {
            throw VaultError(.invalidRecord, "\(subject()) is authentic but its payload is not a synced entry")
        }
        guard naming.isName(name, space: space, key: payload.key) else {
            throw VaultError(.invalidRecord, "\(subject()) is authentic but holds another key's value (sealed under the wrong name by a key holder); it was not used")
        }
        return SyncEnvelope(
            key: payload.key, value: payload.value.map { Array($0) }, sequence: header.sequence,
            keyID: header.keyID, issuedAtMilliseconds: header.issuedAtMilliseconds)
    }
}
