import SealedStorage
import XCTest

/// A key wrapped under an Argon2id-derived key opens with its passphrase only, and its stored
/// parameters can be neither altered nor inflated. (Minimum Argon2id cost: the cost is not
/// what these tests are about.)
final class PassphraseWrappedKeyTests: XCTestCase {
    private let passphrase = SecureBytes(copying: Array("correct horse battery staple".utf8))
    private let key = SymmetricKey()

    private func bytes(of key: SymmetricKey) -> [UInt8] { key.withUnsafeBytes { Array($0) } }

    private func wrapped() throws -> PassphraseWrappedKey {
        try PassphraseWrappedKey.wrap(key, passphrase: passphrase, parameters: .minimum)
    }

    func testTheRightPassphraseUnwrapsTheKey() throws {
        XCTAssertEqual(bytes(of: try wrapped().unwrap(passphrase: passphrase)), bytes(of: key))
    }

    func testAWrongPassphraseIsRefused() throws {
        XCTAssertThrowsError(try wrapped().unwrap(passphrase: SecureBytes(copying: Array("Correct horse battery staple".utf8)))) { error in
            XCTAssertEqual(error as? PassphraseWrappedKey.Failure, .wrongPassphrase)
        }
    }

    func testTheEncodedFormReadsBackAndUnwraps() throws {
        let encoded = try wrapped().encoded
        XCTAssertEqual(encoded.count, PassphraseWrappedKey.byteCount)
        XCTAssertEqual(bytes(of: try PassphraseWrappedKey(decoding: encoded).unwrap(passphrase: passphrase)), bytes(of: key))
    }

    /// The parameters are authenticated: changing them (here, one more pass) fails the unwrap.
    func testAlteredParametersAreRefused() throws {
        var encoded = try wrapped().encoded
        encoded[15] &+= 1
        XCTAssertThrowsError(try PassphraseWrappedKey(decoding: encoded).unwrap(passphrase: passphrase)) { error in
            XCTAssertEqual(error as? PassphraseWrappedKey.Failure, .wrongPassphrase)
        }
    }

    /// A planted file asking for 4 GiB of memory is refused before any derivation.
    func testParametersBeyondTheBoundAreRefusedBeforeDeriving() throws {
        var encoded = try wrapped().encoded
        encoded[19] = 0x01  // memory limit 2^32 + 8 KiB bytes, over the 1 GiB bound
        XCTAssertThrowsError(try PassphraseWrappedKey(decoding: encoded)) { error in
            XCTAssertEqual(error as? PassphraseWrappedKey.Failure, .parametersOutOfBounds)
        }
    }

    func testBytesOfAnotherFormatAreRefused() {
        XCTAssertThrowsError(try PassphraseWrappedKey(decoding: Array(repeating: 0, count: PassphraseWrappedKey.byteCount))) { error in
            XCTAssertEqual(error as? PassphraseWrappedKey.Failure, .malformed)
        }
    }

    func testAWrapWithLowerCostThanTheCurrentParametersNeedsAnUpgrade() throws {
        let wrapped = try wrapped()
        XCTAssertTrue(wrapped.needsUpgrade(to: .moderate))
        XCTAssertFalse(wrapped.needsUpgrade(to: .minimum))
    }
}
