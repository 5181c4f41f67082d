import SealedStorage
import XCTest

/// Specification: `Digest.blake2b256` is unkeyed BLAKE2b with a 32-byte output (RFC 7693).
final class DigestTests: XCTestCase {
    func testEmptyInputMatchesTheKnownDigest() {
        XCTAssertEqual(
            Hexadecimal.string(Digest.blake2b256([])),
            "0e5751c026e543b2e8ab2eb06099daa1d1e5df47778f7787faab45cdf12fe3a8")
    }

    func testABCMatchesTheKnownDigest() {
        XCTAssertEqual(
            Hexadecimal.string(Digest.blake2b256(Array("abc".utf8))),
            "bddd813c634239723171ef3fee98579b94964e3bb1cb3e427262c8c068d52319")
    }
}
