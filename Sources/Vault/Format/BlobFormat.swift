#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Keyring
import SealedStorage

/// Version 1 of the record blob format (docs/FORMAT.md): constants, the additional
/// authenticated data, sealing and opening.
///
/// ```
/// header (72 bytes, big-endian, see BlobHeader) | ciphertext + 16-byte tag
/// additional data = header | u16 len | group id | u16 len | record name
/// ```
package enum BlobFormat {
    /// `"GVRB"`: GroupVault record blob.
    package static let magic: [UInt8] = [0x47, 0x56, 0x52, 0x42]
    /// The only format version this code reads and writes.
    package static let currentVersion: UInt8 = 1
    /// Algorithm 1: XChaCha20-Poly1305 (IETF), 256-bit key, 192-bit nonce, 128-bit tag.
    package static let algorithmXChaCha20Poly1305: UInt8 = 1
    /// Payload encoding 1: UTF-8 JSON of the record value.
    package static let payloadEncodingJSON: UInt8 = 1
    /// The largest plaintext payload, in bytes. Records are small state (an auth state, a few
    /// settings); the bound keeps a hostile file from making a reader allocate without limit.
    package static let maximumPayloadSize = 1 << 20
    /// The largest well-formed blob; readers refuse to read more than this from a file.
    package static let maximumBlobSize = BlobHeader.byteCount + maximumPayloadSize + XChaCha20Poly1305.tagByteCount

    /// The additional authenticated data: the encoded header, then the group id and the record
    /// name, each preceded by its byte count as a big-endian `UInt16`. The lengths make the
    /// concatenation unambiguous, so no (group, name) pair can impersonate another.
    package static func additionalData(header: [UInt8], group: GroupIdentifier, name: RecordName) -> [UInt8] {
        additionalData(header: header[...], group: group, name: name)
    }

    /// ``additionalData(header:group:name:)`` of a header read where it is (a blob's first
    /// bytes), written into one buffer: every record opened builds it.
    package static func additionalData(header: ArraySlice<UInt8>, group: GroupIdentifier, name: RecordName) -> [UInt8] {
        let groupBytes = group.rawValue.utf8
        let nameBytes = name.rawValue.utf8
        var data: [UInt8] = []
        data.reserveCapacity(header.count + 2 + groupBytes.count + 2 + nameBytes.count)
        data += header
        // Both are at most 128 bytes by their own validation, far inside UInt16.
        appendLengthPrefix(groupBytes.count, to: &data)
        data += groupBytes
        appendLengthPrefix(nameBytes.count, to: &data)
        data += nameBytes
        return data
    }

    /// Seals `plaintext` into a complete blob. Sets `header.sealedLength` from the plaintext.
    package static func seal(
        header: BlobHeader,
        plaintext: [UInt8],
        key: SymmetricKey,
        group: GroupIdentifier,
        name: RecordName
    ) -> [UInt8] {
        var header = header
        header.sealedLength = UInt32(plaintext.count + XChaCha20Poly1305.tagByteCount)
        let headerBytes = header.encoded()
        let sealed = XChaCha20Poly1305.seal(
            plaintext, using: key, nonce: header.nonce,
            authenticating: additionalData(header: headerBytes, group: group, name: name))
        return headerBytes + sealed
    }

    /// Verifies and decrypts a blob whose header was already parsed from it.
    /// - Throws: ``VaultError/Code/authenticationFailed``.
    package static func open(
        _ blob: [UInt8],
        header: BlobHeader,
        key: SymmetricKey,
        group: GroupIdentifier,
        name: RecordName,
        subject: @autoclosure () -> String
    ) throws(VaultError) -> [UInt8] {
        do {
            return try XChaCha20Poly1305.open(
                blob[BlobHeader.byteCount...], using: key, nonce: header.nonce,
                authenticating: additionalData(header: blob[0..<BlobHeader.byteCount], group: group, name: name))
        } catch {
            throw VaultError(.authenticationFailed, "\(subject()) failed authentication under key #\(header.keyID): it was altered, truncated, or copied from another record name or group; it was not used")
        }
    }

    // MARK: Times

    /// The largest magnitude of a time field writers produce: ±8.64e15 ms (±275,760 years),
    /// the range of an ECMAScript date, so any language can represent it.
    package static let maximumTimeMagnitude: Int64 = 8_640_000_000_000_000

    /// `date` in whole milliseconds since the Unix epoch (rounded to nearest), or `nil` when
    /// it is not finite or beyond ``maximumTimeMagnitude``.
    package static func milliseconds(_ date: Date) -> Int64? {
        let value = (date.timeIntervalSince1970 * 1000).rounded()
        guard value.isFinite, abs(value) <= Double(maximumTimeMagnitude) else { return nil }
        return Int64(value)
    }

    /// The date `milliseconds` after the Unix epoch.
    package static func date(milliseconds: Int64) -> Date {
        Date(timeIntervalSince1970: Double(milliseconds) / 1000)
    }

    private static func appendLengthPrefix(_ count: Int, to data: inout [UInt8]) {
        data.append(UInt8(truncatingIfNeeded: count >> 8))
        data.append(UInt8(truncatingIfNeeded: count))
    }
}
