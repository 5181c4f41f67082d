import Foundation
import Keyring
import XCTest

/// Specification of the stored keyset: a keyset that breaks its invariants is refused when
/// read, even though it authenticated, so a bug or a forged writer cannot make two keys primary
/// or bring a retired key back.
final class KeysetDecodingTests: XCTestCase {
    private let keyBase64 = Data(repeating: 0xAB, count: 32).base64EncodedString()

    /// The JSON of a keyset with `keys` (each `[id, status, hasBytes]`), as SealedDocument stores it.
    private func json(version: Int = 1, _ keys: [(UInt32, String, Bool)]) -> Data {
        let entries = keys.map { id, status, hasBytes in
            let key = hasBytes ? #","key":"\#(keyBase64)""# : ""
            let retired = status == "retired" ? #","retiredAt":1700000100"# : ""
            return #"{"descriptor":{"id":\#(id),"createdAt":1700000000,"status":"\#(status)"\#(retired)}\#(key)}"#
        }
        return Data(#"{"version":\#(version),"keys":[\#(entries.joined(separator: ","))]}"#.utf8)
    }

    private func decode(_ data: Data) throws -> Keyset {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .secondsSince1970
        return try decoder.decode(Keyset.self, from: data)
    }

    func testWellFormedKeysetDecodes() throws {
        let keyset = try decode(json([(1, "retired", false), (2, "active", true), (3, "primary", true)]))

        XCTAssertEqual(keyset.descriptors.map(\.id), [1, 2, 3])
        XCTAssertEqual(keyset.primary?.descriptor.id, 3)
        XCTAssertNil(keyset.entry(id: 1)?.key)
    }

    func testEncodedKeysetDecodesToAnEqualKeyset() throws {
        var keyset = Keyset()
        _ = keyset.rotate(now: Date(timeIntervalSince1970: 1_700_000_000))
        _ = keyset.rotate(now: Date(timeIntervalSince1970: 1_700_000_001))
        keyset.retire(id: 1, now: Date(timeIntervalSince1970: 1_700_000_002))
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .secondsSince1970

        XCTAssertEqual(try decode(try encoder.encode(keyset)), keyset)
    }

    func testTwoPrimaryKeysAreRefused() {
        XCTAssertThrowsError(try decode(json([(1, "primary", true), (2, "primary", true)])))
    }

    func testKeysetWithoutPrimaryIsRefused() {
        XCTAssertThrowsError(try decode(json([(1, "active", true)])))
    }

    func testRetiredKeyWithBytesIsRefused() {
        XCTAssertThrowsError(try decode(json([(1, "retired", true), (2, "primary", true)])))
    }

    func testKeyWithoutBytesThatIsNotRetiredIsRefused() {
        XCTAssertThrowsError(try decode(json([(1, "active", false), (2, "primary", true)])))
    }

    func testDuplicateIdsAreRefused() {
        XCTAssertThrowsError(try decode(json([(1, "active", true), (1, "primary", true)])))
    }

    func testKeyIdZeroIsRefused() {
        XCTAssertThrowsError(try decode(json([(0, "primary", true)])))
    }

    func testUnknownVersionIsRefused() {
        XCTAssertThrowsError(try decode(json(version: 2, [(1, "primary", true)])))
    }

    func testKeyOfTheWrongLengthIsRefused() {
        let short = Data(json([(1, "primary", true)])).replacingBase64Key(keyBase64, with: Data(repeating: 1, count: 31).base64EncodedString())

        XCTAssertThrowsError(try decode(short))
    }
}

private extension Data {
    func replacingBase64Key(_ key: String, with replacement: String) -> Data {
        Data(String(decoding: self, as: UTF8.self).replacingOccurrences(of: key, with: replacement).utf8)
    }
}
