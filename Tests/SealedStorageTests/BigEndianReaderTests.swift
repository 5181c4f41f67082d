import SealedStorage
import XCTest

/// `BigEndianReader` reads back what `appendBigEndian` and `appendLengthPrefixed` write, from
/// the front, and a read past the end returns `nil` without consuming anything.
final class BigEndianReaderTests: XCTestCase {
    func testIntegersOfEveryWidthAreReadMostSignificantByteFirst() {
        var reader = BigEndianReader([0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08, 0x09, 0x0A, 0x0B, 0x0C, 0x0D, 0x0E, 0x0F])

        XCTAssertEqual(reader.integer(UInt8.self), 0x01)
        XCTAssertEqual(reader.integer(UInt16.self), 0x0203)
        XCTAssertEqual(reader.integer(UInt32.self), 0x0405_0607)
        XCTAssertEqual(reader.integer(UInt64.self), 0x0809_0A0B_0C0D_0E0F)
        XCTAssertTrue(reader.isAtEnd)
    }

    func testASignedIntegerIsReadAsTwosComplement() {
        var bytes: [UInt8] = []
        bytes.appendBigEndian(Int64(-2))
        var reader = BigEndianReader(bytes)

        XCTAssertEqual(reader.integer(Int64.self), -2)
    }

    func testWhatTheAppendingSideWroteIsReadBack() {
        var bytes: [UInt8] = []
        bytes.appendBigEndian(UInt32(7))
        bytes.appendLengthPrefixed([1, 2, 3])
        bytes.appendLengthPrefixed("é")
        var reader = BigEndianReader(bytes)

        XCTAssertEqual(reader.integer(UInt32.self), 7)
        XCTAssertEqual(reader.lengthPrefixed().map(Array.init), [1, 2, 3])
        XCTAssertEqual(reader.lengthPrefixed().map(Array.init), Array("é".utf8))
        XCTAssertTrue(reader.isAtEnd)
    }

    func testReadingStartsAtTheOffsetGiven() {
        var reader = BigEndianReader([0xFF, 0xFF, 0x00, 0x2A], from: 2)

        XCTAssertEqual(reader.integer(UInt16.self), 42)
    }

    func testAnIntegerPastTheEndIsNilAndConsumesNothing() {
        var reader = BigEndianReader([0x01, 0x02, 0x03])

        XCTAssertNil(reader.integer(UInt32.self))
        XCTAssertEqual(Array(reader.remaining), [0x01, 0x02, 0x03])
    }

    func testBytesPastTheEndOrANegativeCountAreNilAndConsumeNothing() {
        var reader = BigEndianReader([0x01, 0x02])

        XCTAssertNil(reader.bytes(3))
        XCTAssertNil(reader.bytes(-1))
        XCTAssertEqual(reader.bytes(2).map(Array.init), [0x01, 0x02])
    }

    func testALengthPrefixedFieldCutShortIsNilAndConsumesNothingNotEvenItsLength() {
        var bytes: [UInt8] = []
        bytes.appendLengthPrefixed([1, 2, 3])
        var reader = BigEndianReader(Array(bytes.dropLast()))

        XCTAssertNil(reader.lengthPrefixed())
        XCTAssertEqual(reader.remaining.count, bytes.count - 1)
    }

    func testALengthPrefixWithNothingAfterItIsAnEmptyField() {
        var reader = BigEndianReader([0, 0, 0, 0])

        XCTAssertEqual(reader.lengthPrefixed().map(Array.init), [])
        XCTAssertTrue(reader.isAtEnd)
    }
}
