import Foundation
@_spi(Benchmarks) @testable import GroupMessaging
import XCTest

/// What the CBOR reader refuses (docs/MESSAGING.md, "Body formats"), each with the reason and
/// the byte offset it reports; and that its errors name places, never values.
final class MessageCBORRefusalTests: XCTestCase {
    func testIndefiniteLengthsAreRefused() {
        assertCBORRefused(hexBytes("5f42010243030405ff"), as: Data.self, "indefinite length", at: 0)
        assertCBORRefused(hexBytes("7f657374726561646d696e67ff"), as: String.self, "indefinite length", at: 0)
        assertCBORRefused(hexBytes("9fff"), as: [Int].self, "indefinite length", at: 0)
        assertCBORRefused(hexBytes("a1616" + "1" + "9f01ff"), as: [String: [Int]].self, "indefinite length", at: 3)
        assertCBORRefused(hexBytes("bf616101ff"), as: [String: Int].self, "indefinite length", at: 0)
    }

    func testTagsAreRefused() {
        assertCBORRefused(hexBytes("c11a514b67b0"), as: Double.self, "a tag", at: 0)
        assertCBORRefused(hexBytes("c249010000000000000000"), as: UInt64.self, "a tag", at: 0)
    }

    func testSimpleValuesOtherThanFalseTrueAndNullAreRefused() {
        assertCBORRefused(hexBytes("f0"), as: Bool.self, "simple value", at: 0)
        assertCBORRefused(hexBytes("f8ff"), as: Bool.self, "simple value", at: 0)
    }

    func testUndefinedIsRefused() {
        assertCBORRefused(hexBytes("f7"), as: Int?.self, "undefined", at: 0)
    }

    func testABreakOutsideAnIndefiniteItemIsRefused() {
        assertCBORRefused(hexBytes("ff"), as: Int?.self, "a break", at: 0)
    }

    func testReservedAdditionalInformationIsRefused() {
        assertCBORRefused(hexBytes("1c"), as: Int.self, "reserved", at: 0)
        assertCBORRefused(hexBytes("fc"), as: Double.self, "reserved", at: 0)
    }

    func testIntegerHeadsNotInTheirShortestFormAreRefused() {
        assertCBORRefused(hexBytes("1817"), as: Int.self, "shortest form", at: 0)
        assertCBORRefused(hexBytes("1900ff"), as: Int.self, "shortest form", at: 0)
        assertCBORRefused(hexBytes("1a0000ffff"), as: Int.self, "shortest form", at: 0)
        assertCBORRefused(hexBytes("1b00000000ffffffff"), as: Int.self, "shortest form", at: 0)
        assertCBORRefused(hexBytes("3800"), as: Int.self, "shortest form", at: 0)
    }

    func testLengthHeadsNotInTheirShortestFormAreRefused() {
        assertCBORRefused(hexBytes("780161"), as: String.self, "shortest form", at: 0)
        assertCBORRefused(hexBytes("580101"), as: Data.self, "shortest form", at: 0)
        assertCBORRefused(hexBytes("980101"), as: [Int].self, "shortest form", at: 0)
        assertCBORRefused(hexBytes("b800"), as: [String: Int].self, "shortest form", at: 0)
    }

    func testBytesAfterTheItemAreRefused() {
        assertCBORRefused(hexBytes("0102"), as: Int.self, "1 bytes after the body's item", at: 1)
        assertCBORRefused(hexBytes("a0a0"), as: [String: Int].self, "after the body's item", at: 1)
    }

    func testNestingDeeperThanTheLimitIsRefused() throws {
        let depth = CBORItemReader.maximumDepth
        // [[[ ... [] ... ]]]: one array per level.
        let allowed = [UInt8](repeating: 0x81, count: depth - 1) + [0x80]
        XCTAssertNoThrow(try decodeCBOR(AnyNesting.self, allowed))
        assertCBORRefused([UInt8](repeating: 0x81, count: depth) + [0x80], as: AnyNesting.self, "nested deeper than \(depth)", at: depth)
    }

    func testADeclaredLengthBeyondTheBytesLeftIsRefusedBeforeAnythingIsAllocated() {
        assertCBORRefused(hexBytes("5bffffffffffffffff"), as: Data.self, "runs past the end", at: 0)
        assertCBORRefused(hexBytes("7a0001000061"), as: String.self, "runs past the end", at: 0)
        assertCBORRefused(hexBytes("9bffffffffffffffff"), as: [Int].self, "runs past the end", at: 0)
        assertCBORRefused(hexBytes("bb7fffffffffffffff"), as: [String: Int].self, "runs past the end", at: 0)
        assertCBORRefused(hexBytes("a2616101"), as: [String: Int].self, "runs past the end", at: 0)
    }

    func testABodyEndingInsideAnItemIsRefused() {
        assertCBORRefused([], as: Int.self, "ends inside an item", at: 0)
        assertCBORRefused(hexBytes("19ff"), as: Int.self, "ends inside an item's head", at: 1)
        assertCBORRefused(hexBytes("fb3ff1"), as: Double.self, "ends inside an item's head", at: 1)
    }

    func testMapKeysThatAreNotTextAreRefused() {
        assertCBORRefused(hexBytes("a10102"), as: [Int: Int].self, "not a text string", at: 1)
    }

    func testAMapKeyThatAppearsTwiceIsRefused() {
        assertCBORRefused(hexBytes("a2616101616102"), as: [String: Int].self, "appears twice", at: 4)
    }

    func testTextThatIsNotUTF8IsRefused() {
        assertCBORRefused(hexBytes("62c328"), as: String.self, "not UTF-8", at: 0)
        assertCBORRefused(hexBytes("63eda080"), as: String.self, "not UTF-8", at: 0)  // a lone surrogate
        assertCBORRefused(hexBytes("a162ff0001"), as: [String: Int].self, "not UTF-8", at: 1)
    }

    func testAnIntegerOutsideTheRequestedTypeIsRefused() {
        assertCBORRefused(hexBytes("18c8"), as: Int8.self, "out of the range of Int8", at: 0)
        assertCBORRefused(hexBytes("20"), as: UInt.self, "out of the range of UInt", at: 0)
        assertCBORRefused(hexBytes("1bffffffffffffffff"), as: Int64.self, "out of the range of Int64", at: 0)
        assertCBORRefused(hexBytes("3bffffffffffffffff"), as: Int64.self, "out of the range of Int64", at: 0)
    }

    func testAFloatIsNotReadAsAnInteger() {
        assertCBORRefused(hexBytes("f93c00"), as: Int.self, "a floating-point number where Int was expected", at: 0)
    }

    func testANumberAFloatCannotHoldExactlyIsRefusedRatherThanRounded() {
        assertCBORRefused(hexBytes("fb3ff199999999999a"), as: Float.self, "Float cannot hold exactly", at: 0)
        assertCBORRefused(hexBytes("1a01000001"), as: Float.self, "Float cannot hold exactly", at: 0)
        assertCBORRefused(hexBytes("1b0020000000000001"), as: Double.self, "Double cannot hold exactly", at: 0)
    }

    func testADecimalNotInItsCanonicalFormIsRefused() {
        assertCBORRefused([0x64] + Array("1.50".utf8), as: Decimal.self, "canonical form", at: 0)
        assertCBORRefused([0x63] + Array("NaN".utf8), as: Decimal.self, "canonical form", at: 0)
    }

    func testErrorsNameTheCodingPathAndTheOffsetButNoValue() {
        struct Inner: Codable { var count: UInt8 }
        struct Outer: GroupMessage {
            static let messageType = "test.outer"
            var tag: String
            var inner: Inner
        }
        // {"tag": "5ecret", "inner": {"count": 300}}
        let body = hexBytes("a2637461676635656372657465696e6e6572a165636f756e7419012c")
        XCTAssertThrowsError(try GroupMessageTypes([Outer.self]).decode(name: Outer.messageType, body: Data(body), format: .cbor)) { error in
            let reason = (error as? ChannelProtocolError)?.reason ?? "\(error)"
            XCTAssertEqual((error as? ChannelProtocolError)?.kind, .undecodableMessage)
            XCTAssertTrue(reason.contains("inner.count"), reason)
            XCTAssertTrue(reason.contains("at byte 25"), reason)
            XCTAssertFalse(reason.contains("300") || reason.contains("5ecret"), reason)
        }
    }

    func testStructuralErrorsNameThePathOfTheRefusedItem() {
        // {"list": [1, <tag>]}
        XCTAssertThrowsError(try decodeCBOR([String: [Int]].self, hexBytes("a1646c69737482" + "01" + "c101"))) { error in
            guard case DecodingError.dataCorrupted(let context) = error else { return XCTFail("\(error)") }
            XCTAssertEqual(context.codingPath.map { $0.intValue.map { "[\($0)]" } ?? $0.stringValue }, ["list", "[1]"])
            XCTAssertEqual(cborCause(of: error)?.offset, 8)
        }
    }
}

/// Arrays nested to any depth, ending in an empty one.
private struct AnyNesting: Decodable {
    init(from decoder: any Decoder) throws {
        var array = try decoder.unkeyedContainer()
        while !array.isAtEnd { _ = try array.decode(AnyNesting.self) }
    }
}
