import SealedStorage
import XCTest

/// Specification: `OneTimeKeyBuffer` derives each one-time key (keyed BLAKE2b-256) into one
/// guarded buffer, hands it to its caller, and zeroes it before returning.
final class OneTimeKeyBufferTests: XCTestCase {
    private let longTermKey = try! SymmetricKey(bytes: (0..<32).map { UInt8($0) })
    private let message = Array("frame(journal) frame(label) frame(salt)".utf8)

    func testTheKeyIsTheKeyedBLAKE2bOfTheMessage() {
        let buffer = OneTimeKeyBuffer()

        let derived = buffer.withKey(derivedFrom: message, under: longTermKey) { Array($0) }

        XCTAssertEqual(derived, Digest.keyedBLAKE2b256(message, key: longTermKey))
    }

    func testAPoly1305TagMadeWithTheBufferIsTheTagUnderTheSameKeyHeldAsASymmetricKey() throws {
        let buffer = OneTimeKeyBuffer()
        let body = Array("a journal record".utf8)

        let tag = buffer.withKey(derivedFrom: message, under: longTermKey) { key in
            body.withUnsafeBytes { OneTimeAuthenticator.tag($0, oneTimeKeyBytes: key) }
        }

        let held = try SymmetricKey(bytes: Digest.keyedBLAKE2b256(message, key: longTermKey))
        XCTAssertEqual(tag, body.withUnsafeBytes { OneTimeAuthenticator.tag($0, oneTimeKey: held) })
        XCTAssertTrue(buffer.withKey(derivedFrom: message, under: longTermKey) { key in
            body.withUnsafeBytes { OneTimeAuthenticator.isValid(tag, of: $0, oneTimeKeyBytes: key) }
        })
    }

    /// The buffer outlives the call (it is the object's), so its bytes can be read after it:
    /// the key is gone from them.
    func testTheKeyIsZeroedOnceTheCallReturns() {
        let buffer = OneTimeKeyBuffer()

        let address = buffer.withKey(derivedFrom: message, under: longTermKey) { $0 }

        XCTAssertEqual(Array(address), [UInt8](repeating: 0, count: 32))
    }
}
