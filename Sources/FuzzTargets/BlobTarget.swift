import Foundation
import Keyring
import SealedStorage
import Vault

extension FuzzTarget {
    /// The Vault blob parser and opener (`BlobHeader.parse`, `BlobFormat.open`).
    ///
    /// Every input is used twice. As a blob: the parser's verdict must be the one docs/FORMAT.md
    /// section 3 prescribes, a parsed header must re-encode to the same 72 bytes, and a blob
    /// that opens under the fixed key must be exactly what sealing its plaintext gives (so
    /// nothing but a genuine seal opens). As a description of a record: its fields and payload
    /// are sealed, and the blob must parse and open to the same header and payload, and must
    /// stop opening after a byte is changed or under another record name or group.
    static let blob = FuzzTarget(
        name: "blob",
        summary: "BlobHeader.parse against docs/FORMAT.md; BlobFormat.open accepts exactly what was sealed",
        run: { input throws(FuzzFinding) in
            let outcome = try BlobChecks.checkAsBlob(input)
            try BlobChecks.checkAsRecord(input)
            return outcome
        },
        seeds: {
            let example = BlobChecks.workedExample
            var unknownVersion = example
            unknownVersion[4] = 2
            var tombstone = example
            tombstone[7] = 0x01
            return [
                "valid-worked-example": example,
                "future-version": unknownVersion,
                "tombstone-flag-flipped": tombstone,
                "truncated-header": Array(example.prefix(40)),
                "trailing-byte": example + [0],
                "record-fields": BlobChecks.recordSeed,
            ]
        })
}

/// The blob target's fixed inputs and checks.
enum BlobChecks {
    /// The key, group and record name of the worked example in docs/FORMAT.md section 8, so
    /// that its blob is a seed that opens.
    // try!/force unwraps: fixed, valid constants; a failure is a broken harness, not a finding.
    static let key = try! SymmetricKey(bytes: (0..<32).map { UInt8($0) })
    static let group = GroupIdentifier(rawValue: "group.com.example.shared")!
    static let name = try! RecordName(validating: "auth-state")
    static let otherGroup = GroupIdentifier(rawValue: "group.com.example.sharee")!
    static let otherName = try! RecordName(validating: "auth-statf")

    private static let subject = "fuzz blob"

    /// The worked example's blob, byte for byte (docs/FORMAT.md section 8).
    static let workedExample: [UInt8] = hex("""
        47565242010100020000000100000000000000010000018bcfe568000000018b\
        d01c568000000001010000000000003c404142434445464748494a4b4c4d4e4f\
        5051525354555657af1b6119a3901577f6bae6d3cabe5fb0d3decce63f7b3ae9\
        2b44892d6c6a57f97598760b31b0be648dc79131fe598e8ee9b837159f990d2d\
        53170e07
        """)

    /// Record fields (known flags, an expiry) followed by a JSON payload, for the record check.
    static let recordSeed: [UInt8] = [0x00, 0x02] + [UInt8](repeating: 0x40, count: 24)
        + [0, 0, 0, 1] + [0, 0, 0, 0, 0, 0, 0, 1] + [0, 0, 1, 0x8b, 0xcf, 0xe5, 0x68, 0]
        + [0, 0, 1, 0x8b, 0xd0, 0x1c, 0x56, 0x80] + [0, 0, 0, 1] + [0, 0, 0, 77, 0x01]
        + Array(#"{"displayName":"Ada","isAuthenticated":true}"#.utf8)

    // MARK: The input as a blob

    /// Parses and opens `blob` as it is.
    static func checkAsBlob(_ blob: [UInt8]) throws(FuzzFinding) -> FuzzOutcome {
        let expected = specifiedVerdict(blob)
        let header: BlobHeader
        do throws(VaultError) {
            header = try BlobHeader.parse(blob, subject: subject)
        } catch {
            try expect(error.code == expected, "parse refused a \(blob.count)-byte blob with \(error), docs/FORMAT.md says \(expected?.rawValue ?? "well-formed")")
            return .refused
        }
        try expect(expected == nil, "parse accepted a \(blob.count)-byte blob that docs/FORMAT.md calls \(expected?.rawValue ?? "")")
        try expect(header.encoded() == Array(blob.prefix(BlobHeader.byteCount)), "the parsed header does not encode back to the blob's first 72 bytes")
        try expect(blob.count == BlobHeader.byteCount + Int(header.sealedLength), "parse accepted \(blob.count) bytes for sealed length \(header.sealedLength)")
        let plaintext: [UInt8]
        do throws(VaultError) {
            plaintext = try BlobFormat.open(blob, header: header, key: key, group: group, name: name, subject: subject)
        } catch {
            try expect(error.code == .authenticationFailed, "open refused with \(error), not authenticationFailed")
            return .refused
        }
        // Sealing is deterministic for a given header (nonce included), key, group and name:
        // a blob that opens must be that seal, or the opener accepted bytes nobody sealed.
        let resealed = BlobFormat.seal(header: header, plaintext: plaintext, key: key, group: group, name: name)
        try expect(resealed == blob, "a blob opened although it differs from the seal of its own plaintext")
        try checkRefusedElsewhere(blob, header: header)
        return .accepted
    }

    /// The verdict of docs/FORMAT.md section 3, step 2, for `blob`: `nil` for well-formed, else
    /// the code of the first failed check, in the documented order.
    static func specifiedVerdict(_ blob: [UInt8]) -> VaultError.Code? {
        func read(_ offset: Int, _ count: Int) -> UInt64 {
            blob[offset..<(offset + count)].reduce(0) { ($0 << 8) | UInt64($1) }
        }
        guard blob.count >= 5, blob.starts(with: [0x47, 0x56, 0x52, 0x42]) else { return .malformed }
        guard blob[4] == 1 else { return .unsupportedFormat }
        guard blob.count >= 72 else { return .malformed }
        guard blob[5] == 1 else { return .unsupportedFormat }
        let flags = read(6, 2)
        guard flags & ~0x0003 == 0 else { return .unsupportedFormat }
        guard blob[40] == 1 else { return .unsupportedFormat }
        guard blob[41] == 0, blob[42] == 0, blob[43] == 0 else { return .malformed }
        guard flags & 0x0002 != 0 || read(28, 8) == 0 else { return .malformed }
        let sealedLength = read(44, 4)
        guard (16...1_048_592).contains(sealedLength) else { return .malformed }
        guard blob.count == 72 + Int(sealedLength) else { return .malformed }
        return nil
    }

    // MARK: The input as a record

    /// Seals a record described by `input`, then checks that it comes back unchanged and that
    /// a changed byte, name or group stops it from opening.
    static func checkAsRecord(_ input: [UInt8]) throws(FuzzFinding) {
        var reader = FuzzInput(input)
        let flags = BlobHeader.Flags(rawValue: reader.integer(UInt16.self))
        let nonceBytes = reader.bytes(count: XChaCha20Poly1305.nonceByteCount)
        let nonce = try! XChaCha20Poly1305.Nonce(bytes: nonceBytes + [UInt8](repeating: 0, count: XChaCha20Poly1305.nonceByteCount - nonceBytes.count))
        let written = BlobHeader(
            flags: flags,
            keyID: reader.integer(),
            sequence: reader.integer(),
            issuedAtMilliseconds: reader.integer(),
            expiresAtMilliseconds: reader.integer(),
            schemaVersion: reader.integer(),
            nonce: nonce)
        let tamperOffset = Int(reader.integer(UInt32.self))
        let tamperMask = reader.byte()
        let plaintext = Array(reader.remainder().prefix(BlobFormat.maximumPayloadSize))

        let blob = BlobFormat.seal(header: written, plaintext: plaintext, key: key, group: group, name: name)
        let header: BlobHeader
        do throws(VaultError) {
            header = try BlobHeader.parse(blob, subject: subject)
        } catch {
            try expect(!BlobHeader.Flags.known.isSuperset(of: flags) && error.code == .unsupportedFormat,
                       "a freshly sealed blob with flags 0x\(String(flags.rawValue, radix: 16)) was refused: \(error)")
            return
        }
        try expect(BlobHeader.Flags.known.isSuperset(of: flags), "a blob with unknown flags 0x\(String(flags.rawValue, radix: 16)) parsed")
        var expected = written
        expected.sealedLength = UInt32(plaintext.count + XChaCha20Poly1305.tagByteCount)
        if !flags.contains(.hasExpiry) { expected.expiresAtMilliseconds = 0 }
        try expect(header == expected, "the header came back as \(header), sealed as \(expected)")
        let opened: [UInt8]
        do throws(VaultError) {
            opened = try BlobFormat.open(blob, header: header, key: key, group: group, name: name, subject: subject)
        } catch {
            throw FuzzFinding("a freshly sealed blob did not open: \(error)")
        }
        try expect(opened == plaintext, "a sealed \(plaintext.count)-byte payload opened to \(opened.count) other bytes")
        try checkRefusedElsewhere(blob, header: header)
        try expect(Self.opens(Array(blob.dropLast())) == false, "a blob with its last byte cut off opened")
        if tamperMask != 0 {
            var tampered = blob
            let index = tamperOffset % tampered.count
            tampered[index] ^= tamperMask
            try expect(!Self.opens(tampered), "a blob opened after byte \(index) was xored with 0x\(String(tamperMask, radix: 16))")
        }
    }

    // MARK: Shared

    /// A genuine blob must not open under another record name or group (both are in the AAD).
    private static func checkRefusedElsewhere(_ blob: [UInt8], header: BlobHeader) throws(FuzzFinding) {
        for (otherGroup, otherName) in [(group, otherName), (otherGroup, name)] {
            let opened = try? BlobFormat.open(blob, header: header, key: key, group: otherGroup, name: otherName, subject: subject)
            try expect(opened == nil, "a blob sealed for \(group)/\(name) opened as \(otherGroup)/\(otherName)")
        }
    }

    /// Whether `blob` parses and opens under the fixed key, group and name.
    private static func opens(_ blob: [UInt8]) -> Bool {
        guard let header = try? BlobHeader.parse(blob, subject: subject) else { return false }
        return (try? BlobFormat.open(blob, header: header, key: key, group: group, name: name, subject: subject)) != nil
    }

    static func hex(_ text: String) -> [UInt8] {
        let digits = Array(text.utf8).compactMap { byte -> UInt8? in
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): return byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): return byte - UInt8(ascii: "a") + 10
            default: return nil
            }
        }
        return stride(from: 0, to: digits.count - 1, by: 2).map { digits[$0] << 4 | digits[$0 + 1] }
    }
}
