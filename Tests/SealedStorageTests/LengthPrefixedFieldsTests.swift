import SealedStorage
import XCTest

/// The framing of every keyed-hash and additional-data message of the keyring and the ledger,
/// pinned byte for byte here, independently of the formats that use it.
final class LengthPrefixedFieldsTests: XCTestCase {
    func testAFieldIsItsByteCountAsABigEndianUInt32ThenItsBytes() {
        var message: [UInt8] = []
        message.appendLengthPrefixed([0xAA, 0xBB, 0xCC] as [UInt8])

        XCTAssertEqual(message, [0, 0, 0, 3, 0xAA, 0xBB, 0xCC])
    }

    func testAnEmptyFieldIsFourZeroBytes() {
        var message: [UInt8] = [0x01]
        message.appendLengthPrefixed([UInt8]())

        XCTAssertEqual(message, [0x01, 0, 0, 0, 0])
    }

    func testTextIsFramedAsItsUTF8() {
        var message: [UInt8] = []
        message.appendLengthPrefixed("é/x")

        XCTAssertEqual(message, [0, 0, 0, 4, 0xC3, 0xA9, 0x2F, 0x78])
    }

    func testTextIsFramedAsTheSameBytesWhetherNativeOrBridged() {
        // A substring's copy and a string built from bytes may not be stored the same way;
        // withUTF8 must reach the same UTF-8 either way.
        let native = "service name"
        let built = String(decoding: Array("service name".utf8), as: UTF8.self)
        let sliced = String("a service name".dropFirst(2))
        var first: [UInt8] = [], second: [UInt8] = [], third: [UInt8] = []
        first.appendLengthPrefixed(native)
        second.appendLengthPrefixed(built)
        third.appendLengthPrefixed(sliced)

        XCTAssertEqual(first, [0, 0, 0, 12] + Array("service name".utf8))
        XCTAssertEqual(second, first)
        XCTAssertEqual(third, first)
    }

    func testFramingKeepsAdjacentFieldsApart() {
        var ab: [UInt8] = [], a: [UInt8] = []
        ab.appendLengthPrefixed("ab")
        ab.appendLengthPrefixed("c")
        a.appendLengthPrefixed("a")
        a.appendLengthPrefixed("bc")

        XCTAssertNotEqual(ab, a)
    }

    func testALengthAbove255UsesTheHigherBytes() {
        var message: [UInt8] = []
        message.appendLengthPrefixed([UInt8](repeating: 7, count: 0x0102))

        XCTAssertEqual(Array(message.prefix(4)), [0, 0, 1, 2])
        XCTAssertEqual(message.count, 4 + 0x0102)
    }

    func testIntegersAreAppendedMostSignificantByteFirst() {
        var message: [UInt8] = []
        message.appendBigEndian(UInt64(0x0102_0304_0506_0708))
        message.appendBigEndian(Int64(-2))
        message.appendBigEndian(UInt32(9))

        XCTAssertEqual(message, [1, 2, 3, 4, 5, 6, 7, 8] + [0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFE] + [0, 0, 0, 9])
    }
}
