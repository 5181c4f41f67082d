import GroupVaultTestKit
import SealedStorage
import XCTest

/// Specification: secret bytes never reach printed text, however a value is printed.
final class SecretRedactionTests: XCTestCase {
    /// Every way Swift turns `value` into text.
    private func everyPrintedForm<Value>(of value: Value) -> [String: String] {
        var dumped = ""
        dump(value, to: &dumped)
        return [
            "String(describing:)": String(describing: value),
            "String(reflecting:)": String(reflecting: value),
            "interpolation": "\(value)",
            "dump": dumped,
        ]
    }

    /// Fails if any form names `secret` in lowercase or uppercase hexadecimal.
    private func assertNoForm(of value: some Any, reveals secret: [UInt8], _ rng: SeededGenerator, line: UInt = #line) {
        let hex = Hexadecimal.string(secret)
        for (name, text) in everyPrintedForm(of: value) {
            XCTAssertFalse(text.contains(hex) || text.contains(hex.uppercased()), "\(name) reveals the secret: \(text); \(rng.describe)", line: line)
        }
    }

    func testSymmetricKeyNeverPrintsItsBytes() throws {
        var rng = SeededGenerator()
        let bytes = rng.bytes(count: 32)
        let key = try SymmetricKey(bytes: bytes)

        assertNoForm(of: key, reveals: bytes, rng)
        XCTAssertEqual(key.description, "SymmetricKey(256 bits, redacted)")
        XCTAssertEqual(key.debugDescription, key.description)
    }

    func testSecureBytesNeverPrintsItsBytes() {
        var rng = SeededGenerator()
        let bytes = rng.bytes(count: 48)
        let secure = SecureBytes(copying: bytes)

        assertNoForm(of: secure, reveals: bytes, rng)
        XCTAssertEqual(secure.description, "SecureBytes(48 bytes, redacted)")
    }

    func testSecureBytesHoldsExactlyWhatWasCopied() {
        var rng = SeededGenerator()
        let bytes = rng.bytes(count: 48)

        let secure = SecureBytes(copying: bytes)

        XCTAssertEqual(secure.count, 48, rng.describe)
        XCTAssertEqual(secure.withUnsafeBytes { Array($0) }, bytes, rng.describe)
    }

    func testSecureBytesCompareByContent() {
        var rng = SeededGenerator()
        let bytes = rng.bytes(count: 32)
        var other = bytes
        other[31] ^= 1

        XCTAssertTrue(SecureBytes(copying: bytes).constantTimeEquals(SecureBytes(copying: bytes)), rng.describe)
        XCTAssertFalse(SecureBytes(copying: bytes).constantTimeEquals(SecureBytes(copying: other)), rng.describe)
        XCTAssertFalse(SecureBytes(copying: bytes).constantTimeEquals(SecureBytes(copying: bytes.dropLast())), rng.describe)
    }

    func testCryptoFailuresNeverPrintKeyOrMessageBytes() throws {
        var rng = SeededGenerator()
        let keyBytes = rng.bytes(count: 32)
        let plaintext = rng.bytes(count: 32)
        let key = try SymmetricKey(bytes: keyBytes)
        var sealed = XChaCha20Poly1305.seal(plaintext, using: key, nonce: .random(), authenticating: [])
        sealed[0] ^= 1

        do {
            _ = try XChaCha20Poly1305.open(sealed, using: key, nonce: .random(), authenticating: [])
            XCTFail("an altered message opened; \(rng.describe)")
        } catch {
            for secret in [keyBytes, plaintext, sealed] {
                assertNoForm(of: error, reveals: secret, rng)
            }
        }
    }
}
