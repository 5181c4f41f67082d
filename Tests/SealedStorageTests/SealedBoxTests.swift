import GroupVaultTestKit
import SealedStorage
import XCTest

/// Specification of `SealedBox`: the one owner of `format | nonce | ciphertext | tag`. Its bytes
/// are those the keyring wrote by hand before it existed, and reading never traps.
final class SealedBoxTests: XCTestCase {
    private let document = SealedBox.Format(magic: "GVKD", version: 1)
    private let row = SealedBox.Format(version: 1)

    /// A random key, nonce, plaintext and additional data from `rng`, sealed in a box of `format`.
    private struct Sample {
        let key: SymmetricKey
        let nonce: XChaCha20Poly1305.Nonce
        let plaintext: [UInt8]
        let additionalData: [UInt8]
        let box: SealedBox

        init(_ format: SealedBox.Format, using rng: inout SeededGenerator, plaintextCount: Int = 37) throws {
            key = try SymmetricKey(bytes: rng.bytes(count: 32))
            nonce = try XChaCha20Poly1305.Nonce(bytes: rng.bytes(count: 24))
            plaintext = rng.bytes(count: plaintextCount)
            additionalData = rng.bytes(count: 11)
            box = SealedBox.seal(plaintext, format: format, using: key, nonce: nonce, authenticating: additionalData)
        }
    }

    /// The malformation `bytes` are read as, or `nil` if they are a box of `formats`.
    private func malformation(_ bytes: [UInt8], _ formats: [SealedBox.Format]) -> SealedBox.Malformation? {
        do {
            _ = try SealedBox(combined: bytes, formats: formats)
            return nil
        } catch {
            return error
        }
    }

    // MARK: Layout

    func testCombinedIsFormatThenNonceThenTheAEADsCiphertextAndTag() throws {
        var rng = SeededGenerator()
        let sample = try Sample(document, using: &rng)

        // The layout SealedDocument, ItemTable, KeysetTable and the sealed master secret built by hand.
        let byHand = Array("GVKD".utf8) + [1] + sample.nonce.bytes
            + XChaCha20Poly1305.seal(sample.plaintext, using: sample.key, nonce: sample.nonce, authenticating: sample.additionalData)
        XCTAssertEqual(sample.box.combined, byHand, rng.describe)
    }

    func testViewsAreTheNonceCiphertextAndTagOfTheCombinedBytes() throws {
        var rng = SeededGenerator()
        let sample = try Sample(document, using: &rng)
        let combined = sample.box.combined

        XCTAssertEqual(sample.box.nonce, sample.nonce, rng.describe)
        XCTAssertEqual(Array(sample.box.ciphertext), Array(combined[29..<(29 + sample.plaintext.count)]), rng.describe)
        XCTAssertEqual(Array(sample.box.tag), Array(combined.suffix(16)), rng.describe)
        XCTAssertEqual(sample.box.plaintextByteCount, sample.plaintext.count, rng.describe)
        XCTAssertEqual(combined.count, SealedBox.byteCount(format: document, plaintextByteCount: sample.plaintext.count), rng.describe)
    }

    func testCombinedBytesReadBackAsTheSameBox() throws {
        var rng = SeededGenerator()
        let sample = try Sample(document, using: &rng)

        XCTAssertEqual(try SealedBox(combined: sample.box.combined, format: document), sample.box, rng.describe)
    }

    // MARK: Opening

    func testASealedBoxOpensToItsPlaintext() throws {
        var rng = SeededGenerator()
        let sample = try Sample(row, using: &rng)

        let read = try SealedBox(combined: sample.box.combined, format: row)

        XCTAssertEqual(try read.open(using: sample.key, authenticating: sample.additionalData), sample.plaintext, rng.describe)
    }

    func testAnEmptyPlaintextRoundTrips() throws {
        var rng = SeededGenerator()
        let sample = try Sample(row, using: &rng, plaintextCount: 0)

        XCTAssertEqual(sample.box.combined.count, 1 + 24 + 16, rng.describe)
        XCTAssertEqual(try sample.box.open(using: sample.key, authenticating: sample.additionalData), [], rng.describe)
    }

    func testEverySingleBitFlipAfterTheFormatFailsAuthentication() throws {
        var rng = SeededGenerator()
        let sample = try Sample(row, using: &rng)

        for bit in (row.byteCount * 8)..<(sample.box.combined.count * 8) {
            var altered = sample.box.combined
            altered[bit / 8] ^= 1 << UInt8(bit % 8)
            let box = try SealedBox(combined: altered, format: row)
            XCTAssertThrowsError(try box.open(using: sample.key, authenticating: sample.additionalData), "bit \(bit), \(rng.describe)") { error in
                XCTAssertEqual(error as? CryptoFailure, .authenticationFailed)
            }
        }
    }

    func testOtherAdditionalDataOrAnotherKeyFailsAuthentication() throws {
        var rng = SeededGenerator()
        let sample = try Sample(row, using: &rng)

        XCTAssertThrowsError(try sample.box.open(using: sample.key, authenticating: sample.additionalData + [0])) { error in
            XCTAssertEqual(error as? CryptoFailure, .authenticationFailed)
        }
        XCTAssertThrowsError(try sample.box.open(using: SymmetricKey(), authenticating: sample.additionalData)) { error in
            XCTAssertEqual(error as? CryptoFailure, .authenticationFailed)
        }
    }

    func testASealedKeyOpensIntoAnEqualKey() throws {
        let sealing = SymmetricKey()
        let secret = SymmetricKey()

        let box = SealedBox.seal(secret, format: row, using: sealing, authenticating: [7])

        XCTAssertEqual(box.plaintextByteCount, 32)
        XCTAssertTrue(try box.openKey(using: sealing, authenticating: [7]).constantTimeEquals(secret))
        XCTAssertEqual(try box.open(using: sealing, authenticating: [7]), secret.exportedBytes())
    }

    func testOpeningAKeyFromABoxOfAnotherSizeIsRefusedBeforeAuthentication() throws {
        let sealing = SymmetricKey()
        let box = SealedBox.seal([UInt8](repeating: 1, count: 31), format: row, using: sealing, authenticating: [])

        XCTAssertThrowsError(try box.openKey(using: SymmetricKey(), authenticating: [])) { error in
            XCTAssertEqual(error as? CryptoFailure, .invalidKeySize(31))
        }
    }

    func testOpeningAKeyWithTheWrongKeyFailsAuthentication() throws {
        let box = SealedBox.seal(SymmetricKey(), format: row, using: SymmetricKey(), authenticating: [])

        XCTAssertThrowsError(try box.openKey(using: SymmetricKey(), authenticating: [])) { error in
            XCTAssertEqual(error as? CryptoFailure, .authenticationFailed)
        }
    }

    // MARK: Reading untrusted bytes

    func testEveryLengthShorterThanFormatNonceAndTagIsTruncatedNotACrash() {
        let minimum = 5 + 24 + 16
        for length in 0..<minimum {
            let bytes = Array("GVKD".utf8) + [1] + [UInt8](repeating: 0xA5, count: minimum)
            XCTAssertEqual(
                malformation(Array(bytes.prefix(length)), [document]), .truncated(byteCount: length, minimum: minimum), "length \(length)")
        }
        XCTAssertNil(malformation(Array("GVKD".utf8) + [1] + [UInt8](repeating: 0, count: 40), [document]))
    }

    func testAnotherMagicIsForeign() {
        let bytes = Array("GVKX".utf8) + [1] + [UInt8](repeating: 0, count: 40)

        XCTAssertEqual(malformation(bytes, [document]), .foreignMagic)
    }

    func testAnUnknownVersionIsReportedWithItsValue() {
        let bytes = Array("GVKD".utf8) + [9] + [UInt8](repeating: 0, count: 40)

        XCTAssertEqual(malformation(bytes, [document]), .unknownVersion(9))
    }

    func testABoxOfSeveralAcceptedFormatsSaysWhichItIs() throws {
        let formats = [SealedBox.Format(version: 1), SealedBox.Format(version: 2)]
        let key = SymmetricKey()
        let sealed = SealedBox.seal([1, 2, 3], format: formats[1], using: key, authenticating: [])

        let read = try SealedBox(combined: sealed.combined, formats: formats)

        XCTAssertEqual(read.format, formats[1])
        XCTAssertEqual(malformation([3] + [UInt8](repeating: 0, count: 40), formats), .unknownVersion(3))
    }
}
