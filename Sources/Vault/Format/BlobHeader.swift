#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import SealedStorage

/// The fixed 72-byte header of a record blob, field for field as docs/FORMAT.md lays it out.
///
/// Every field is authenticated: the whole encoded header is the start of the additional data.
/// Parsing checks structure only (magic, version, algorithm, flags, lengths); nothing in it is
/// trusted until the AEAD tag verifies.
package struct BlobHeader: Sendable, Equatable {
    /// Header flags (a big-endian `UInt16` at offset 6).
    package struct Flags: OptionSet, Sendable, Hashable {
        package let rawValue: UInt16
        package init(rawValue: UInt16) { self.rawValue = rawValue }

        /// The record was deleted: the payload is empty and readers report ``VaultError/Code/deleted``.
        package static let tombstone = Flags(rawValue: 1 << 0)
        /// The expires-at field holds an expiry; without it the field must be zero.
        package static let hasExpiry = Flags(rawValue: 1 << 1)
        /// Every flag this version defines; any other bit is a newer format.
        package static let known: Flags = [.tombstone, .hasExpiry]
    }

    /// Size of the encoded header in bytes; the blob's ciphertext starts here.
    package static let byteCount = 72

    package var formatVersion: UInt8
    package var algorithm: UInt8
    package var flags: Flags
    package var keyID: UInt32
    package var sequence: UInt64
    /// Milliseconds since 1970-01-01T00:00:00Z.
    package var issuedAtMilliseconds: Int64
    /// Milliseconds since 1970-01-01T00:00:00Z; meaningful only with ``Flags/hasExpiry``.
    package var expiresAtMilliseconds: Int64
    package var schemaVersion: UInt32
    package var payloadEncoding: UInt8
    /// Length of ciphertext plus tag, in bytes.
    package var sealedLength: UInt32
    package var nonce: XChaCha20Poly1305.Nonce

    /// A header with every field given; the defaults are this version's constants.
    /// ``sealedLength`` is set by ``BlobFormat/seal(header:plaintext:key:group:name:)``.
    package init(
        formatVersion: UInt8 = BlobFormat.currentVersion,
        algorithm: UInt8 = BlobFormat.algorithmXChaCha20Poly1305,
        flags: Flags,
        keyID: UInt32,
        sequence: UInt64,
        issuedAtMilliseconds: Int64,
        expiresAtMilliseconds: Int64,
        schemaVersion: UInt32,
        payloadEncoding: UInt8 = BlobFormat.payloadEncodingJSON,
        sealedLength: UInt32 = 0,
        nonce: XChaCha20Poly1305.Nonce
    ) {
        self.formatVersion = formatVersion
        self.algorithm = algorithm
        self.flags = flags
        self.keyID = keyID
        self.sequence = sequence
        self.issuedAtMilliseconds = issuedAtMilliseconds
        self.expiresAtMilliseconds = expiresAtMilliseconds
        self.schemaVersion = schemaVersion
        self.payloadEncoding = payloadEncoding
        self.sealedLength = sealedLength
        self.nonce = nonce
    }

    package var isTombstone: Bool { flags.contains(.tombstone) }
    package var expiresAt: Int64? { flags.contains(.hasExpiry) ? expiresAtMilliseconds : nil }

    /// The header as public API shows it.
    package var recordHeader: RecordHeader {
        RecordHeader(
            formatVersion: formatVersion,
            keyID: keyID,
            sequence: sequence,
            issuedAt: BlobFormat.date(milliseconds: issuedAtMilliseconds),
            expiresAt: expiresAt.map(BlobFormat.date(milliseconds:)),
            schemaVersion: schemaVersion,
            isTombstone: isTombstone)
    }

    /// The 72 header bytes, big-endian.
    package func encoded() -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(Self.byteCount)
        bytes += BlobFormat.magic
        bytes.append(formatVersion)
        bytes.append(algorithm)
        bytes += Self.bigEndian(flags.rawValue)
        bytes += Self.bigEndian(keyID)
        bytes += Self.bigEndian(sequence)
        bytes += Self.bigEndian(UInt64(bitPattern: issuedAtMilliseconds))
        bytes += Self.bigEndian(UInt64(bitPattern: flags.contains(.hasExpiry) ? expiresAtMilliseconds : 0))
        bytes += Self.bigEndian(schemaVersion)
        bytes.append(payloadEncoding)
        bytes += [0, 0, 0]  // reserved
        bytes += Self.bigEndian(sealedLength)
        bytes += nonce.bytes
        assert(bytes.count == Self.byteCount)
        return bytes
    }

    /// Parses and structurally checks the header at the start of `blob`, including that the
    /// blob is exactly header plus ``sealedLength`` bytes long.
    ///
    /// The order of the checks is part of the format: magic, then version (so a future version
    /// is reported as such even if its header is longer), then length, then the other fields.
    /// - Parameter subject: names the blob in error messages, e.g. `record "auth" of group.x`;
    ///   made only when one is thrown.
    /// - Throws: ``VaultError/Code/malformed`` or ``VaultError/Code/unsupportedFormat``.
    package static func parse(_ blob: [UInt8], subject: @autoclosure () -> String) throws(VaultError) -> BlobHeader {
        if blob.isEmpty {
            throw VaultError(.malformed, "\(subject()) is an empty file, not a record; write the record again")
        }
        guard blob.count >= 5 else {
            throw VaultError(.malformed, "\(subject()) is truncated (\(blob.count) bytes); write the record again")
        }
        guard Array(blob[0..<4]) == BlobFormat.magic else {
            throw VaultError(.malformed, "\(subject()) does not start with the GroupVault record magic \"GVRB\"; it is not a record blob")
        }
        let version = blob[4]
        guard version == BlobFormat.currentVersion else {
            throw VaultError(.unsupportedFormat, "\(subject()) has format version \(version); this reader supports version \(BlobFormat.currentVersion): update GroupVault to read it")
        }
        guard blob.count >= byteCount else {
            throw VaultError(.malformed, "\(subject()) is truncated (\(blob.count) bytes, shorter than the \(byteCount)-byte header); write the record again")
        }
        let algorithm = blob[5]
        guard algorithm == BlobFormat.algorithmXChaCha20Poly1305 else {
            throw VaultError(.unsupportedFormat, "\(subject()) uses algorithm \(algorithm); this reader supports \(BlobFormat.algorithmXChaCha20Poly1305) (XChaCha20-Poly1305)")
        }
        let flags = Flags(rawValue: readUInt16(blob, at: 6))
        guard Flags.known.isSuperset(of: flags) else {
            throw VaultError(.unsupportedFormat, "\(subject()) has header flags 0x\(String(flags.rawValue, radix: 16)) this reader does not know; update GroupVault to read it")
        }
        let payloadEncoding = blob[40]
        guard payloadEncoding == BlobFormat.payloadEncodingJSON else {
            throw VaultError(.unsupportedFormat, "\(subject()) has payload encoding \(payloadEncoding); this reader supports \(BlobFormat.payloadEncodingJSON) (JSON)")
        }
        guard blob[41] == 0, blob[42] == 0, blob[43] == 0 else {
            throw VaultError(.malformed, "\(subject()) has non-zero reserved header bytes")
        }
        let expires = Int64(bitPattern: readUInt64(blob, at: 28))
        guard flags.contains(.hasExpiry) || expires == 0 else {
            throw VaultError(.malformed, "\(subject()) has an expiry time without the expiry flag")
        }
        let sealedLength = readUInt32(blob, at: 44)
        guard sealedLength >= XChaCha20Poly1305.tagByteCount else {
            throw VaultError(.malformed, "\(subject()) declares \(sealedLength) sealed bytes, fewer than the \(XChaCha20Poly1305.tagByteCount)-byte tag")
        }
        guard sealedLength <= BlobFormat.maximumPayloadSize + XChaCha20Poly1305.tagByteCount else {
            throw VaultError(.malformed, "\(subject()) declares \(sealedLength) sealed bytes, over the \(BlobFormat.maximumPayloadSize)-byte payload limit")
        }
        let expected = byteCount + Int(sealedLength)
        guard blob.count == expected else {
            let what = blob.count < expected ? "truncated" : "followed by extra bytes"
            throw VaultError(.malformed, "\(subject()) is \(what): \(blob.count) bytes where the header declares \(expected); write the record again")
        }
        return BlobHeader(
            formatVersion: version,
            algorithm: algorithm,
            flags: flags,
            keyID: readUInt32(blob, at: 8),
            sequence: readUInt64(blob, at: 12),
            issuedAtMilliseconds: Int64(bitPattern: readUInt64(blob, at: 20)),
            expiresAtMilliseconds: expires,
            schemaVersion: readUInt32(blob, at: 36),
            payloadEncoding: payloadEncoding,
            sealedLength: sealedLength,
            nonce: XChaCha20Poly1305.Nonce(validated: blob[48..<72]))  // 24 bytes by the bounds above
    }

    // MARK: Big-endian fields

    private static func bigEndian<Integer: FixedWidthInteger>(_ value: Integer) -> [UInt8] {
        withUnsafeBytes(of: value.bigEndian) { Array($0) }
    }

    private static func readUInt16(_ bytes: [UInt8], at offset: Int) -> UInt16 {
        UInt16(truncatingIfNeeded: readBigEndian(bytes, at: offset, count: 2))
    }

    private static func readUInt32(_ bytes: [UInt8], at offset: Int) -> UInt32 {
        UInt32(truncatingIfNeeded: readBigEndian(bytes, at: offset, count: 4))
    }

    private static func readUInt64(_ bytes: [UInt8], at offset: Int) -> UInt64 {
        readBigEndian(bytes, at: offset, count: 8)
    }

    private static func readBigEndian(_ bytes: [UInt8], at offset: Int, count: Int) -> UInt64 {
        bytes[offset..<(offset + count)].reduce(0) { ($0 << 8) | UInt64($1) }
    }
}
