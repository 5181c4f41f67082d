import Foundation
import Keyring
import SealedStorage
import Vault
import XCTest

/// The documented worked example (docs/FORMAT.md, "Worked example") and the structural checks
/// of the header parser.
final class BlobFormatTests: XCTestCase {
    // The one hard-coded result in this suite: the documented test vector. It was produced
    // independently of this code, from the format description, with libsodium called directly.
    static let workedExampleHex =
        "47565242010100020000000100000000000000010000018bcfe568000000018bd01c5680000000010100000000"
        + "00003c404142434445464748494a4b4c4d4e4f5051525354555657af1b6119a3901577f6bae6d3cabe5fb0d3"
        + "decce63f7b3ae92b44892d6c6a57f97598760b31b0be648dc79131fe598e8ee9b837159f990d2d53170e07"

    static let group = GroupIdentifier(rawValue: "group.com.example.shared")!
    static let name = try! RecordName(validating: "auth-state")
    static let payload = Array(#"{"displayName":"Ada","isAuthenticated":true}"#.utf8)

    static func workedExampleKey() throws -> SymmetricKey {
        try SymmetricKey(bytes: (0x00..<0x20).map { UInt8($0) })
    }

    static func workedExampleHeader() throws -> BlobHeader {
        BlobHeader(
            flags: [.hasExpiry],
            keyID: 1,
            sequence: 1,
            issuedAtMilliseconds: 1_700_000_000_000,
            expiresAtMilliseconds: 1_700_003_600_000,
            schemaVersion: 1,
            nonce: try XChaCha20Poly1305.Nonce(bytes: (0x40..<0x58).map { UInt8($0) }))
    }

    static func workedExampleBlob() throws -> [UInt8] {
        BlobFormat.seal(header: try workedExampleHeader(), plaintext: payload, key: try workedExampleKey(), group: group, name: name)
    }

    static func hex(_ bytes: [UInt8]) -> String {
        bytes.map { String(format: "%02x", $0) }.joined()
    }

    // MARK: Worked example

    func testWorkedExampleSealsToTheDocumentedBytes() throws {
        XCTAssertEqual(Self.hex(try Self.workedExampleBlob()), Self.workedExampleHex)
    }

    func testWorkedExampleInFormatDocumentIsTheTestedVector() throws {
        let document = URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("docs/FORMAT.md")
        let text = try String(contentsOf: document, encoding: .utf8)
        // The document wraps the hex over several lines inside a fenced block marked "blob".
        let block = try XCTUnwrap(text.components(separatedBy: "```text blob\n").dropFirst().first?.components(separatedBy: "```").first)
        XCTAssertEqual(block.filter { !$0.isWhitespace }, Self.workedExampleHex)
    }

    func testWorkedExampleOpensToItsPayload() throws {
        let blob = try Self.workedExampleBlob()
        let header = try BlobHeader.parse(blob, subject: "example")

        let plaintext = try BlobFormat.open(blob, header: header, key: Self.workedExampleKey(), group: Self.group, name: Self.name, subject: "example")

        XCTAssertEqual(plaintext, Self.payload)
    }

    func testWorkedExampleParsesToItsHeaderFields() throws {
        var expected = try Self.workedExampleHeader()
        expected.sealedLength = UInt32(Self.payload.count + XChaCha20Poly1305.tagByteCount)

        XCTAssertEqual(try BlobHeader.parse(try Self.workedExampleBlob(), subject: "example"), expected)
    }

    func testAdditionalDataIsHeaderThenLengthPrefixedGroupAndName() throws {
        let header = Array(try Self.workedExampleBlob()[0..<BlobHeader.byteCount])

        let additional = BlobFormat.additionalData(header: header, group: Self.group, name: Self.name)

        let group = Array(Self.group.rawValue.utf8)
        let name = Array("auth-state".utf8)
        XCTAssertEqual(additional, header + [0, UInt8(group.count)] + group + [0, UInt8(name.count)] + name)
    }

    // MARK: Structure

    func modified(_ change: (inout [UInt8]) -> Void) throws -> [UInt8] {
        var blob = try Self.workedExampleBlob()
        change(&blob)
        return blob
    }

    func assertParseRefused(_ code: VaultError.Code, _ blob: [UInt8], file: StaticString = #filePath, line: UInt = #line) {
        assertRefused(code, file: file, line: line) { () throws(VaultError) in try BlobHeader.parse(blob, subject: "example") }
    }

    func testEmptyBlobIsMalformed() {
        assertParseRefused(.malformed, [])
    }

    func testBlobShorterThanTheHeaderIsMalformed() throws {
        assertParseRefused(.malformed, Array(try Self.workedExampleBlob()[0..<40]))
    }

    func testWrongMagicIsMalformed() throws {
        assertParseRefused(.malformed, try modified { $0[0] = UInt8(ascii: "X") })
    }

    func testUnknownFormatVersionIsUnsupportedFormat() throws {
        assertParseRefused(.unsupportedFormat, try modified { $0[4] = 2 })
    }

    func testUnknownVersionIsReportedEvenWhenTheRestIsShort() {
        assertParseRefused(.unsupportedFormat, BlobFormat.magic + [9])
    }

    func testUnknownAlgorithmIsUnsupportedFormat() throws {
        assertParseRefused(.unsupportedFormat, try modified { $0[5] = 2 })
    }

    func testUnknownFlagIsUnsupportedFormat() throws {
        assertParseRefused(.unsupportedFormat, try modified { $0[7] |= 0x04 })
    }

    func testUnknownPayloadEncodingIsUnsupportedFormat() throws {
        assertParseRefused(.unsupportedFormat, try modified { $0[40] = 2 })
    }

    func testNonZeroReservedByteIsMalformed() throws {
        assertParseRefused(.malformed, try modified { $0[42] = 1 })
    }

    func testExpiryWithoutItsFlagIsMalformed() throws {
        assertParseRefused(.malformed, try modified { $0[7] &= ~0x02 })
    }

    func testDeclaredLengthBelowTheTagIsMalformed() throws {
        assertParseRefused(.malformed, try modified { $0[44...47] = [0, 0, 0, 15] })
    }

    func testDeclaredLengthOverTheLimitIsMalformed() throws {
        assertParseRefused(.malformed, try modified { $0[44...47] = [0xff, 0xff, 0xff, 0xff] })
    }

    func testMissingLastByteIsMalformed() throws {
        assertParseRefused(.malformed, try modified { $0.removeLast() })
    }

    func testTrailingByteIsMalformed() throws {
        assertParseRefused(.malformed, try modified { $0.append(0) })
    }

    func testEncodedHeaderParsesBack() throws {
        var header = try Self.workedExampleHeader()
        header.flags = [.tombstone]
        header.expiresAtMilliseconds = 0
        header.issuedAtMilliseconds = -5
        header.sequence = .max
        header.sealedLength = UInt32(XChaCha20Poly1305.tagByteCount)

        let blob = header.encoded() + [UInt8](repeating: 0, count: XChaCha20Poly1305.tagByteCount)

        XCTAssertEqual(try BlobHeader.parse(blob, subject: "example"), header)
    }
}
