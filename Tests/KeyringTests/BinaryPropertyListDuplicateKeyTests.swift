import Foundation
import XCTest

@testable import Keyring

/// Binary property lists built object by object, to write what no encoder writes: a
/// dictionary naming one key twice. Shared by the parser, entitlements and preferences tests
/// (namespaced: other suites share the module).
enum BinaryPlistFixture {
    /// The object of an ASCII string (marker 0x5, fewer than 256 characters).
    static func ascii(_ text: String) -> [UInt8] {
        marker(0x50, count: text.utf8.count) + Array(text.utf8)
    }

    /// The object of a UTF-16 (big-endian) string (marker 0x6, fewer than 256 units).
    static func utf16(_ text: String) -> [UInt8] {
        let units = Array(text.utf16)
        return marker(0x60, count: units.count) + units.flatMap { [UInt8($0 >> 8), UInt8($0 & 0xFF)] }
    }

    /// A marker with its count in the low nibble, or, from 15 on, in a following 1-byte integer.
    private static func marker(_ type: UInt8, count: Int) -> [UInt8] {
        count < 15 ? [type | UInt8(count)] : [type | 0x0F, 0x10, UInt8(count)]
    }

    static let trueObject: [UInt8] = [0x09]
    static let falseObject: [UInt8] = [0x08]

    /// An array object of the given object references (counts below 15).
    static func array(_ references: [UInt8]) -> [UInt8] {
        [0xA0 | UInt8(references.count)] + references
    }

    /// A dictionary object: its key references, then its value references (counts below 15).
    static func dictionary(keys: [UInt8], values: [UInt8]) -> [UInt8] {
        [0xD0 | UInt8(keys.count)] + keys + values
    }

    /// `bplist00` holding `objects` (object 0 is the root), with one-byte offsets and references.
    static func plist(_ objects: [[UInt8]]) -> Data {
        var bytes = Array("bplist00".utf8)
        var offsets: [UInt8] = []
        for object in objects {
            offsets.append(UInt8(bytes.count))
            bytes += object
        }
        let table = UInt64(bytes.count)
        bytes += offsets
        bytes += [0, 0, 0, 0, 0, 0, 1, 1]  // unused, sort version, offset size, reference size
        for value in [UInt64(objects.count), 0, table] {
            bytes += withUnsafeBytes(of: value.bigEndian, Array.init)
        }
        return Data(bytes)
    }

    /// `{ key: true, key: false }`, each `key` its own string object.
    static func dictionaryWithKeyTwice(_ key: String) -> Data {
        plist([dictionary(keys: [1, 2], values: [3, 4]), ascii(key), ascii(key), trueObject, falseObject])
    }
}

/// A binary property list whose dictionary names a key twice is refused, as the XML parser
/// refuses one: which of two contradictory values a reader keeps is up to the reader, so one
/// file would mean different things to different tools.
final class BinaryPropertyListDuplicateKeyTests: XCTestCase {
    private func refusal(_ data: Data, file: StaticString = #filePath, line: UInt = #line) -> String {
        do {
            let value = try PropertyListValue.parse(data)
            XCTFail("expected a refusal, got \(value)", file: file, line: line)
            return ""
        } catch {
            return "\(error)"
        }
    }

    func testTheFixtureWithDistinctKeysParses() throws {
        let data = BinaryPlistFixture.plist([
            BinaryPlistFixture.dictionary(keys: [1, 2], values: [3, 4]),
            BinaryPlistFixture.ascii("team"), BinaryPlistFixture.ascii("plan"), BinaryPlistFixture.trueObject, BinaryPlistFixture.falseObject,
        ])
        XCTAssertEqual(try PropertyListValue.parse(data), .dictionary(["team": .boolean(true), "plan": .boolean(false)]))
    }

    func testABinaryDictionaryWithAKeyTwiceIsRefusedLikeXML() {
        let reason = refusal(BinaryPlistFixture.dictionaryWithKeyTwice("team"))
        XCTAssertTrue(reason.contains("the key \"team\" appears twice in one dictionary"), reason)
    }

    func testABinaryDictionaryReferringToOneKeyObjectTwiceIsRefused() {
        let data = BinaryPlistFixture.plist([
            BinaryPlistFixture.dictionary(keys: [1, 1], values: [2, 3]),
            BinaryPlistFixture.ascii("team"), BinaryPlistFixture.trueObject, BinaryPlistFixture.falseObject,
        ])
        let reason = refusal(data)
        XCTAssertTrue(reason.contains("the key \"team\" appears twice in one dictionary"), reason)
    }

    func testAnASCIIKeyAndAUTF16KeyOfOneTextAreOneKey() {
        let data = BinaryPlistFixture.plist([
            BinaryPlistFixture.dictionary(keys: [1, 2], values: [3, 4]),
            BinaryPlistFixture.ascii("team"), BinaryPlistFixture.utf16("team"), BinaryPlistFixture.trueObject, BinaryPlistFixture.falseObject,
        ])
        let reason = refusal(data)
        XCTAssertTrue(reason.contains("the key \"team\" appears twice in one dictionary"), reason)
    }

    func testKeysEqualAsSwiftStringsAreOneKey() {
        // "é" precomposed and decomposed: one key to a Swift dictionary, and to the XML parser.
        let data = BinaryPlistFixture.plist([
            BinaryPlistFixture.dictionary(keys: [1, 2], values: [3, 4]),
            BinaryPlistFixture.utf16("caf\u{E9}"), BinaryPlistFixture.utf16("cafe\u{301}"), BinaryPlistFixture.trueObject, BinaryPlistFixture.falseObject,
        ])
        XCTAssertTrue(refusal(data).contains("appears twice in one dictionary"))
    }

    func testAKeyTwiceInANestedDictionaryIsRefused() {
        // [ { a: true, a: false } ]
        let data = BinaryPlistFixture.plist([
            BinaryPlistFixture.array([1]),
            BinaryPlistFixture.dictionary(keys: [2, 3], values: [4, 5]),
            BinaryPlistFixture.ascii("a"), BinaryPlistFixture.ascii("a"), BinaryPlistFixture.trueObject, BinaryPlistFixture.falseObject,
        ])
        XCTAssertTrue(refusal(data).contains("the key \"a\" appears twice in one dictionary"))
    }

    func testAKeyTwiceIsRefusedThroughTheBoundedParserOfOtherModules() {
        XCTAssertThrowsError(try BoundedPropertyList.parse(BinaryPlistFixture.dictionaryWithKeyTwice("theme")))
    }
}
