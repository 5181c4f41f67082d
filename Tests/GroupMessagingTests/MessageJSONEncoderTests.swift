import Foundation
@_spi(Benchmarks) @testable import GroupMessaging
import GroupVaultTestKit
import XCTest

/// The channel's JSON encoder against Foundation's `JSONEncoder`: whatever it writes,
/// `JSONDecoder` reads back as the value encoded, and as the same JSON `JSONEncoder` writes.
final class MessageJSONEncoderTests: XCTestCase {
    private enum Shape: Codable, Equatable {
        case circle(radius: Double)
        case polygon([Int], closed: Bool)
        case empty
    }

    private class Base: Codable {
        var name = "base"
    }

    private final class Derived: Base, @unchecked Sendable {
        var extra: [UInt8] = [1, 2, 3]
        override init() { super.init() }
        required init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            extra = try container.decode([UInt8].self, forKey: .extra)
            try super.init(from: container.superDecoder())
        }
        private enum CodingKeys: String, CodingKey { case extra }
        override func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(extra, forKey: .extra)
            try super.encode(to: container.superEncoder())
        }
    }

    private struct Everything: Codable, Equatable {
        var int = Int.min
        var int8 = Int8.min
        var uint64 = UInt64.max
        var uint8 = UInt8.max
        var doubles: [Double] = [0, -0.0, 0.1, 1, -1.5, 1e300, .leastNonzeroMagnitude, .greatestFiniteMagnitude]
        var float: Float = 3.25
        var flags = [true, false]
        var missing: String? = nil
        var present: String? = "here"
        var nested: [[String]] = [[], ["a"], ["b", "c"]]
        var table: [String: [Int]] = ["x": [1], "": []]
        var numbered: [Int: String] = [1: "one", -2: "minus two"]
        var date = Date(timeIntervalSinceReferenceDate: 123_456_789.125)
        var data = Data([0, 1, 2, 254, 255])
        var url = URL(string: "https://example.com/a%20b?q=1#f")!
        var decimal = Decimal(string: "12345.6789")!
        var shapes: [Shape] = [.circle(radius: 2.5), .polygon([1, 2, 3], closed: true), .empty]
    }

    private func assertSameAsJSONEncoder<Value: Codable & Equatable>(_ value: Value, _ message: String = "", file: StaticString = #filePath, line: UInt = #line) throws {
        let ours = Data(try MessageJSONEncoder.encode(value))
        XCTAssertEqual(try JSONDecoder().decode(Value.self, from: ours), value, message, file: file, line: line)
        let foundation = try JSONEncoder().encode(value)
        let parsedOurs = try JSONSerialization.jsonObject(with: ours, options: .fragmentsAllowed) as AnyObject
        let parsedFoundation = try JSONSerialization.jsonObject(with: foundation, options: .fragmentsAllowed) as AnyObject
        XCTAssertTrue((parsedOurs as! NSObject).isEqual(parsedFoundation), "\(message) ours: \(String(decoding: ours, as: UTF8.self)) JSONEncoder: \(String(decoding: foundation, as: UTF8.self))", file: file, line: line)
    }

    func testEveryKindOfValueDecodesBackAsJSONEncodersWould() throws {
        try assertSameAsJSONEncoder(Everything())
    }

    func testSubclassEncodedThroughItsSuperEncoderDecodesBack() throws {
        let value = Derived()
        value.name = "derived"
        let decoded = try JSONDecoder().decode(Derived.self, from: Data(try MessageJSONEncoder.encode(value)))
        XCTAssertEqual(decoded.name, "derived")
        XCTAssertEqual(decoded.extra, [1, 2, 3])
    }

    func testRandomStringsWithEveryCharacterThatNeedsEscapingDecodeBack() throws {
        var random = SeededGenerator()
        // Control characters, the two escaped printables, a slash, DEL, and multi-byte scalars.
        let alphabet: [Unicode.Scalar] = (0..<0x20).map { Unicode.Scalar($0)! }
            + ["\"", "\\", "/", "a", "Z", " ", "\u{7F}", "é", "€", "\u{FFFF}", "😀", "\u{2028}"]
        for _ in 0..<200 {
            var text = String.UnicodeScalarView()
            for _ in 0..<Int.random(in: 0...100, using: &random) { text.append(alphabet.randomElement(using: &random)!) }
            try assertSameAsJSONEncoder([String(text): String(text)], random.describe)
        }
    }

    func testEveryByteBelowSpaceAndEveryEscapedPrintableIsEscapedAtEveryPositionOfARun() throws {
        // The writer skips eight bytes at a time: an escape must be found at any offset in a word.
        let specials: [Unicode.Scalar] = (0..<0x20).map { Unicode.Scalar($0)! } + ["\"", "\\"]
        for special in specials {
            for position in 0..<17 {
                var text = String(repeating: "a", count: 17)
                text.unicodeScalars.replaceSubrange(
                    text.unicodeScalars.index(text.unicodeScalars.startIndex, offsetBy: position)...text.unicodeScalars.index(text.unicodeScalars.startIndex, offsetBy: position),
                    with: [special])
                try assertSameAsJSONEncoder(text, "U+\(String(special.value, radix: 16)) at \(position)")
            }
        }
    }

    /// The channel's bytes for strings are `JSONEncoder`'s with `.withoutEscapingSlashes`
    /// exactly (the default `JSONEncoder` writes `/` as `\/`, the same JSON value).
    func testStringsAreWrittenByteForByteAsJSONEncoderWithoutEscapingSlashesWritesThem() throws {
        let controls = String(String.UnicodeScalarView((0..<0x20).map { Unicode.Scalar(UInt8($0)) }))
        let value = ["a/b \"q\" \\ \u{7F} é 😀 \(controls)": ["x/y", "\u{2028}", controls]]
        let encoder = JSONEncoder()
        encoder.outputFormatting = .withoutEscapingSlashes
        XCTAssertEqual(String(decoding: try MessageJSONEncoder.encode(value), as: UTF8.self), String(decoding: try encoder.encode(value), as: UTF8.self))
    }

    func testNonFiniteNumbersAreRefusedAsJSONEncoderRefusesThem() {
        for value in [Double.nan, .infinity, -.infinity] {
            XCTAssertThrowsError(try MessageJSONEncoder.encode(["x": value])) { error in
                guard case EncodingError.invalidValue = error else { return XCTFail("\(error)") }
            }
        }
    }

    func testKeyEncodedTwiceKeepsItsLastValueInItsFirstPlace() throws {
        struct Twice: Encodable {
            enum Keys: String, CodingKey { case a, b }
            func encode(to encoder: any Encoder) throws {
                var container = encoder.container(keyedBy: Keys.self)
                try container.encode(1, forKey: .a)
                try container.encode(2, forKey: .b)
                try container.encode(3, forKey: .a)
            }
        }
        XCTAssertEqual(String(decoding: try MessageJSONEncoder.encode(Twice()), as: UTF8.self), #"{"a":3,"b":2}"#)
    }

    func testValueThatEncodesNothingIsAnEmptyObject() throws {
        struct Nothing: Encodable { func encode(to encoder: any Encoder) throws {} }
        XCTAssertEqual(String(decoding: try MessageJSONEncoder.encode([Nothing()]), as: UTF8.self), "[{}]")
    }
}
