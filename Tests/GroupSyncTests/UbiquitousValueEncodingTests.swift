import Foundation
import GroupVaultTestKit
import XCTest
@testable import GroupSync

/// A key-value store value is sealed as `JSONEncoder` with sorted keys writes it (docs/SYNC.md,
/// section 5): strings, integers, Booleans and data are written without it, byte for byte the
/// same; the other kinds go to it.
final class UbiquitousValueEncodingTests: XCTestCase {
    private func jsonEncoderBytes(_ value: UbiquitousValue) throws -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return Array(try encoder.encode(value))
    }

    private func assertEncodedAsJSONEncoderEncodes(_ value: UbiquitousValue, _ message: String = "", file: StaticString = #filePath, line: UInt = #line) throws {
        XCTAssertEqual(try value.encoded(), try jsonEncoderBytes(value), "\(value) \(message)", file: file, line: line)
    }

    func testStringsWithEveryKindOfEscapeAreEncodedAsJSONEncoderEncodesThem() throws {
        for text in ["", "dark", "a/b", "quote \" and \\ backslash", "\n\r\t\u{8}\u{C}", "\u{0}\u{1F}\u{7F}", "é € 😀 \u{2028}"] {
            try assertEncodedAsJSONEncoderEncodes(.string(text))
        }
    }

    func testIntegersAtTheirLimitsAreEncodedAsJSONEncoderEncodesThem() throws {
        for number: Int64 in [0, 1, -1, 42, .max, .min] {
            try assertEncodedAsJSONEncoderEncodes(.int(number))
        }
    }

    func testBooleansAreEncodedAsJSONEncoderEncodesThem() throws {
        try assertEncodedAsJSONEncoderEncodes(.bool(true))
        try assertEncodedAsJSONEncoderEncodes(.bool(false))
    }

    func testDataWhoseBase64HoldsSlashesAndPaddingIsEncodedAsJSONEncoderEncodesIt() throws {
        for bytes in [[], [0xff], [0xff, 0xfe], [0xff, 0xfe, 0xfd], (0...255).map { UInt8($0) }] as [[UInt8]] {
            try assertEncodedAsJSONEncoderEncodes(.data(Data(bytes)))
        }
    }

    func testSeededRandomStringsAndDataAreEncodedAsJSONEncoderEncodesThem() throws {
        var random = SeededGenerator()
        let alphabet: [Unicode.Scalar] = ["\"", "\\", "/", "\n", "\u{1}", "\u{1F}", "a", "b", " ", "\u{7F}", "é", "€", "😀"]
        for round in 0..<500 {
            var text = String.UnicodeScalarView()
            for _ in 0..<Int.random(in: 0...40, using: &random) { text.append(alphabet.randomElement(using: &random)!) }
            try assertEncodedAsJSONEncoderEncodes(.string(String(text)), "round \(round), \(random.describe)")
            try assertEncodedAsJSONEncoderEncodes(.data(Data(random.bytes(count: Int.random(in: 0...100, using: &random)))), "round \(round), \(random.describe)")
        }
    }

    func testDoublesDatesAndContainersStillGoThroughJSONEncoder() throws {
        let values: [UbiquitousValue] = [
            .double(1.5), .double(.nan), .double(-.infinity), .date(Date(timeIntervalSinceReferenceDate: 12.25)),
            .array([.string("a/b"), .int(1)]), .dictionary(["b": .bool(true), "a": .data(Data([1, 2]))]),
        ]
        for value in values { try assertEncodedAsJSONEncoderEncodes(value) }
    }
}
