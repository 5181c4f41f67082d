import GroupVaultTestKit
import SealedStorage
import XCTest

/// Specification of the AEAD: what seals opens, and nothing else does.
final class XChaCha20Poly1305Tests: XCTestCase {
    /// A random key, nonce, plaintext and additional data from `rng`.
    private struct Sample {
        let key: SymmetricKey
        let nonce: XChaCha20Poly1305.Nonce
        let plaintext: [UInt8]
        let additionalData: [UInt8]
        let sealed: [UInt8]

        init(using rng: inout SeededGenerator, plaintextCount: Int = 37) throws {
            key = try SymmetricKey(bytes: rng.bytes(count: 32))
            nonce = try XChaCha20Poly1305.Nonce(bytes: rng.bytes(count: 24))
            plaintext = rng.bytes(count: plaintextCount)
            additionalData = rng.bytes(count: 11)
            sealed = XChaCha20Poly1305.seal(plaintext, using: key, nonce: nonce, authenticating: additionalData)
        }

        func open(_ bytes: [UInt8], nonce: XChaCha20Poly1305.Nonce? = nil, additionalData: [UInt8]? = nil) throws(CryptoFailure) -> [UInt8] {
            try XChaCha20Poly1305.open(bytes, using: key, nonce: nonce ?? self.nonce, authenticating: additionalData ?? self.additionalData)
        }
    }

    /// The failure `body` throws, or `nil` if it succeeds.
    private func failure(_ body: () throws(CryptoFailure) -> [UInt8]) -> CryptoFailure? {
        do {
            _ = try body()
            return nil
        } catch {
            return error
        }
    }

    func testSealedDataOpensToThePlaintext() throws {
        var rng = SeededGenerator()
        let sample = try Sample(using: &rng)

        XCTAssertEqual(try sample.open(sample.sealed), sample.plaintext, rng.describe)
        XCTAssertEqual(sample.sealed.count, sample.plaintext.count + XChaCha20Poly1305.tagByteCount, rng.describe)
    }

    func testSealedDataWithinALargerArrayOpensWhereItLies() throws {
        var rng = SeededGenerator()
        let sample = try Sample(using: &rng)
        let surrounded = rng.bytes(count: 72) + sample.sealed + rng.bytes(count: 5)

        let opened = try XChaCha20Poly1305.open(
            surrounded[72..<(72 + sample.sealed.count)], using: sample.key, nonce: sample.nonce, authenticating: sample.additionalData)

        XCTAssertEqual(opened, sample.plaintext, rng.describe)
    }

    func testEmptyPlaintextRoundTrips() throws {
        var rng = SeededGenerator()
        let sample = try Sample(using: &rng, plaintextCount: 0)

        XCTAssertEqual(try sample.open(sample.sealed), [], rng.describe)
    }

    func testEverySingleBitFlipOfCiphertextOrTagFailsAuthentication() throws {
        var rng = SeededGenerator()
        let sample = try Sample(using: &rng)

        for bit in 0..<(sample.sealed.count * 8) {
            var altered = sample.sealed
            altered[bit / 8] ^= 1 << UInt8(bit % 8)
            XCTAssertEqual(failure { () throws(CryptoFailure) in try sample.open(altered) }, .authenticationFailed, "bit \(bit), \(rng.describe)")
        }
    }

    func testEverySingleBitFlipOfAdditionalDataFailsAuthentication() throws {
        var rng = SeededGenerator()
        let sample = try Sample(using: &rng)

        for bit in 0..<(sample.additionalData.count * 8) {
            var altered = sample.additionalData
            altered[bit / 8] ^= 1 << UInt8(bit % 8)
            XCTAssertEqual(
                failure { () throws(CryptoFailure) in try sample.open(sample.sealed, additionalData: altered) },
                .authenticationFailed, "bit \(bit), \(rng.describe)")
        }
    }

    func testMissingOrExtraAdditionalDataFailsAuthentication() throws {
        var rng = SeededGenerator()
        let sample = try Sample(using: &rng)

        for altered in [[], sample.additionalData + [0], Array(sample.additionalData.dropLast())] {
            XCTAssertEqual(
                failure { () throws(CryptoFailure) in try sample.open(sample.sealed, additionalData: altered) },
                .authenticationFailed, "additional data of \(altered.count) bytes, \(rng.describe)")
        }
    }

    func testEverySingleBitFlipOfTheNonceFailsAuthentication() throws {
        var rng = SeededGenerator()
        let sample = try Sample(using: &rng)

        for bit in 0..<(XChaCha20Poly1305.nonceByteCount * 8) {
            var bytes = sample.nonce.bytes
            bytes[bit / 8] ^= 1 << UInt8(bit % 8)
            let altered = try XChaCha20Poly1305.Nonce(bytes: bytes)
            XCTAssertEqual(
                failure { () throws(CryptoFailure) in try sample.open(sample.sealed, nonce: altered) },
                .authenticationFailed, "bit \(bit), \(rng.describe)")
        }
    }

    func testAnotherKeyFailsAuthentication() throws {
        var rng = SeededGenerator()
        let sample = try Sample(using: &rng)
        let otherKey = SymmetricKey()

        XCTAssertEqual(
            failure { () throws(CryptoFailure) in
                try XChaCha20Poly1305.open(sample.sealed, using: otherKey, nonce: sample.nonce, authenticating: sample.additionalData)
            },
            .authenticationFailed, rng.describe)
    }

    func testEveryTruncationIsRefused() throws {
        var rng = SeededGenerator()
        let sample = try Sample(using: &rng)

        for length in 0..<sample.sealed.count {
            let expected: CryptoFailure = length < XChaCha20Poly1305.tagByteCount ? .ciphertextTooShort(length) : .authenticationFailed
            XCTAssertEqual(
                failure { () throws(CryptoFailure) in try sample.open(Array(sample.sealed.prefix(length))) },
                expected, "length \(length), \(rng.describe)")
        }
    }

    func testAppendedBytesAreRefused() throws {
        var rng = SeededGenerator()
        let sample = try Sample(using: &rng)

        XCTAssertEqual(failure { () throws(CryptoFailure) in try sample.open(sample.sealed + [0]) }, .authenticationFailed, rng.describe)
    }

    func testSealingTwiceWithFreshNoncesGivesDifferentCiphertexts() throws {
        let key = SymmetricKey()
        let plaintext = Array("same message".utf8)

        let first = XChaCha20Poly1305.seal(plaintext, using: key, nonce: .random(), authenticating: [])
        let second = XChaCha20Poly1305.seal(plaintext, using: key, nonce: .random(), authenticating: [])

        XCTAssertNotEqual(first, second)
    }

    /// draft-irtf-cfrg-xchacha-03, appendix A.3.1 (AEAD_XChaCha20_Poly1305).
    func testDraftXChaChaAppendixA31VectorSealsAndOpens() throws {
        let key = try SymmetricKey(bytes: Hexadecimal.bytes("808182838485868788898a8b8c8d8e8f909192939495969798999a9b9c9d9e9f"))
        let nonce = try XChaCha20Poly1305.Nonce(bytes: Hexadecimal.bytes("404142434445464748494a4b4c4d4e4f5051525354555657"))
        let additionalData = Hexadecimal.bytes("50515253c0c1c2c3c4c5c6c7")
        let plaintext = Array("Ladies and Gentlemen of the class of '99: If I could offer you only one tip for the future, sunscreen would be it.".utf8)
        let ciphertext = Hexadecimal.bytes("""
            bd6d179d3e83d43b9576579493c0e939572a1700252bfaccbed2902c21396cbb
            731c7f1b0b4aa6440bf3a82f4eda7e39ae64c6708c54c216cb96b72e1213b452
            2f8c9ba40db5d945b11b69b982c1bb9e3f3fac2bc369488f76b2383565d3fff9
            21f9664c97637da9768812f615c68b13b52e
            """)
        let tag = Hexadecimal.bytes("c0875924c1c7987947deafd8780acf49")

        let sealed = XChaCha20Poly1305.seal(plaintext, using: key, nonce: nonce, authenticating: additionalData)

        XCTAssertEqual(Hexadecimal.string(sealed), Hexadecimal.string(ciphertext + tag))
        XCTAssertEqual(try XChaCha20Poly1305.open(ciphertext + tag, using: key, nonce: nonce, authenticating: additionalData), plaintext)
    }

    func testKeyOfTheWrongSizeIsRefused() {
        for size in [0, 16, 31, 33, 64] {
            XCTAssertThrowsError(try SymmetricKey(bytes: [UInt8](repeating: 1, count: size))) { error in
                XCTAssertEqual(error as? CryptoFailure, .invalidKeySize(size))
            }
        }
    }

    func testNonceOfTheWrongSizeIsRefused() {
        for size in [0, 12, 23, 25] {
            XCTAssertThrowsError(try XChaCha20Poly1305.Nonce(bytes: [UInt8](repeating: 1, count: size))) { error in
                XCTAssertEqual(error as? CryptoFailure, .invalidNonceSize(size))
            }
        }
    }
}
