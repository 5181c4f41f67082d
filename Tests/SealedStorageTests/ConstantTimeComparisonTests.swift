import SealedStorage
import XCTest

/// `constantTimeEquals(_:_:)` is equality of bytes; its constant time is libsodium's
/// (`sodium_memcmp`), not something a test can observe without timing.
final class ConstantTimeComparisonTests: XCTestCase {
    private let tag: [UInt8] = Array(0..<32)

    func testTheSameBytesAreEqual() {
        XCTAssertTrue(constantTimeEquals(tag, Array(tag)))
    }

    func testBytesDifferingInTheLastByteAreUnequal() {
        var forged = tag
        forged[31] ^= 0x01

        XCTAssertFalse(constantTimeEquals(tag, forged))
    }

    func testBytesDifferingInTheFirstByteAreUnequal() {
        var forged = tag
        forged[0] ^= 0x80

        XCTAssertFalse(constantTimeEquals(forged, tag))
    }

    func testAPrefixIsUnequalToTheWhole() {
        XCTAssertFalse(constantTimeEquals(Array(tag.prefix(16)), tag))
        XCTAssertFalse(constantTimeEquals(tag, []))
    }

    func testNoBytesEqualNoBytes() {
        XCTAssertTrue(constantTimeEquals([], []))
    }
}
