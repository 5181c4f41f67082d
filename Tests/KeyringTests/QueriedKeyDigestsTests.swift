@testable import Keyring
import XCTest

/// What the table of queried key hashes gives back: a digest only for exactly the key it was
/// remembered for, byte for byte, and never more than its bound.
final class QueriedKeyDigestsTests: XCTestCase {
    private let digest: [UInt8] = Array(repeating: 0xD1, count: 32)

    private func remembering() -> QueriedKeyDigests {
        var digests = QueriedKeyDigests()
        digests.insert(digest, group: "group.a", service: "api", account: "me", isSynchronizable: false)
        return digests
    }

    func testTheDigestIsFoundForTheKeyItWasRememberedFor() {
        XCTAssertEqual(remembering().digest(group: "group.a", service: "api", account: "me", isSynchronizable: false), digest)
    }

    func testAKeyDifferingInAnyOneFieldFindsNothing() {
        let digests = remembering()
        XCTAssertNil(digests.digest(group: "group.b", service: "api", account: "me", isSynchronizable: false))
        XCTAssertNil(digests.digest(group: "group.a", service: "API", account: "me", isSynchronizable: false))
        XCTAssertNil(digests.digest(group: "group.a", service: "api", account: "you", isSynchronizable: false))
        XCTAssertNil(digests.digest(group: "group.a", service: "api", account: "me", isSynchronizable: true))
    }

    func testAnAccountEqualToSwiftButOtherBytesFindsNothing() {
        var digests = QueriedKeyDigests()
        digests.insert(digest, group: "group.a", service: "api", account: "caf\u{E9}", isSynchronizable: false)

        XCTAssertNil(digests.digest(group: "group.a", service: "api", account: "cafe\u{301}", isSynchronizable: false))
    }

    func testTheTableNeverHoldsMoreThanItsCapacity() {
        var digests = QueriedKeyDigests()
        for index in 0...QueriedKeyDigests.capacity * 3 {
            digests.insert(digest, group: "group.a", service: "api", account: "account-\(index)", isSynchronizable: false)
            XCTAssertLessThanOrEqual(digests.count, QueriedKeyDigests.capacity)
        }
        XCTAssertEqual(digests.digest(group: "group.a", service: "api", account: "account-\(QueriedKeyDigests.capacity * 3)", isSynchronizable: false), digest)
    }

    // MARK: Byte-for-byte text

    func testStringsOfTheSameBytesHaveTheSameUTF8() {
        XCTAssertTrue("service".hasSameUTF8(as: String("a service".dropFirst(2))))
        XCTAssertTrue("".hasSameUTF8(as: ""))
    }

    func testCanonicallyEquivalentStringsOfOtherBytesDoNotHaveTheSameUTF8() {
        XCTAssertFalse("caf\u{E9}".hasSameUTF8(as: "cafe\u{301}"))
        // Equal in length, other bytes: a dot above and a dot below, in either order.
        XCTAssertFalse("\u{1E0B}\u{0323}".hasSameUTF8(as: "\u{1E0D}\u{0307}"))
    }

    func testStringsDifferingInOneByteOrInLengthDoNotHaveTheSameUTF8() {
        XCTAssertFalse("account-1".hasSameUTF8(as: "account-2"))
        XCTAssertFalse("account".hasSameUTF8(as: "account-"))
    }
}
