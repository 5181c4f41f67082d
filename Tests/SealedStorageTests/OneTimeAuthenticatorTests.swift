import SealedStorage
import XCTest

/// Specification: `OneTimeAuthenticator` is Poly1305 (RFC 8439, section 2.5), its tag checked in
/// constant time.
final class OneTimeAuthenticatorTests: XCTestCase {
    /// RFC 8439, section 2.5.2: the key and message of the worked example.
    private let key = try! SymmetricKey(bytes: Hexadecimal.bytes(
        "85d6be7857556d337f4452fe42d506a8 0103808afb0db2fd4abff6af4149f51b"))
    private let message = Array("Cryptographic Forum Research Group".utf8)
    private let rfcTag = Hexadecimal.bytes("a8061dc1305136c6c22b8baf0c0127a9")

    func testTheTagOfTheRFCExampleIsTheRFCTag() {
        let tag = message.withUnsafeBytes { OneTimeAuthenticator.tag($0, oneTimeKey: key) }

        XCTAssertEqual(tag, rfcTag)
    }

    func testTheRFCTagIsValidForTheRFCMessage() {
        XCTAssertTrue(message.withUnsafeBytes { OneTimeAuthenticator.isValid(rfcTag, of: $0, oneTimeKey: key) })
    }

    func testATagIsInvalidForAMessageWithOneByteChanged() {
        var altered = message
        altered[0] ^= 1

        XCTAssertFalse(altered.withUnsafeBytes { OneTimeAuthenticator.isValid(rfcTag, of: $0, oneTimeKey: key) })
    }

    func testATagWithOneByteChangedIsInvalid() {
        var tag = rfcTag
        tag[15] ^= 0x80

        XCTAssertFalse(message.withUnsafeBytes { OneTimeAuthenticator.isValid(tag, of: $0, oneTimeKey: key) })
    }

    func testATagOfTheWrongLengthIsInvalid() {
        XCTAssertFalse(message.withUnsafeBytes { OneTimeAuthenticator.isValid(rfcTag.dropLast(), of: $0, oneTimeKey: key) })
        XCTAssertFalse(message.withUnsafeBytes { OneTimeAuthenticator.isValid(rfcTag + [0], of: $0, oneTimeKey: key) })
    }
}
