import Foundation
import SharedDefaults
import XCTest

/// Every property-list type reads back as written, in this process and in a fresh view of the
/// suite (which decodes what was sealed, as another process would).
final class SharedDefaultsRoundTripTests: XCTestCase {
    private var sandbox: DefaultsSandbox!

    override func setUpWithError() throws { sandbox = try DefaultsSandbox() }
    override func tearDown() { sandbox.remove() }

    private func assertRoundTrip(_ value: SharedDefaults.Value, file: StaticString = #filePath, line: UInt = #line) throws {
        let writer = try sandbox.defaults()
        try writer.set(value, forKey: "key")
        XCTAssertEqual(try writer.value(forKey: "key"), value, "same object", file: file, line: line)
        XCTAssertEqual(try sandbox.defaults().value(forKey: "key"), value, "fresh view", file: file, line: line)
    }

    func testBooleansRoundTrip() throws {
        try assertRoundTrip(.bool(true))
        try assertRoundTrip(.bool(false))
    }

    func testIntegersRoundTripAtTheirExtremes() throws {
        for value in [0, 1, -1, Int.max, Int.min] { try assertRoundTrip(.integer(value)) }
    }

    func testRealsRoundTripExactlyIncludingNonFinite() throws {
        for value in [0.0, -0.0, 1.5, 0.1, .pi, .leastNonzeroMagnitude, .greatestFiniteMagnitude, .infinity, -.infinity] {
            try assertRoundTrip(.real(value))
        }
        let writer = try sandbox.defaults()
        try writer.set(Double.nan, forKey: "nan")
        XCTAssertTrue(try sandbox.defaults().double(forKey: "nan").isNaN)
    }

    func testStringsRoundTripWithAnyUnicode() throws {
        for value in ["", "plain", "emoji 🧪", "quote \" backslash \\ newline \n nul \u{0}", String(repeating: "ü", count: 1000)] {
            try assertRoundTrip(.string(value))
        }
    }

    func testDataRoundTrips() throws {
        try assertRoundTrip(.data(Data()))
        try assertRoundTrip(.data(Data((0...255).map(UInt8.init))))
    }

    func testDatesRoundTripToTheSubMillisecond() throws {
        try assertRoundTrip(.date(Date(timeIntervalSinceReferenceDate: 0)))
        try assertRoundTrip(.date(Date(timeIntervalSinceReferenceDate: 722_000_000.123456)))
        try assertRoundTrip(.date(Date(timeIntervalSince1970: -1_000_000_000.5)))
    }

    func testURLsRoundTrip() throws {
        try assertRoundTrip(.url(URL(string: "https://example.com/a?b=c#d")!))
        try assertRoundTrip(.url(URL(fileURLWithPath: "/tmp/some file")))
    }

    func testNestedArraysAndDictionariesRoundTrip() throws {
        try assertRoundTrip(.array([]))
        try assertRoundTrip(.dictionary([:]))
        try assertRoundTrip(.array([.integer(1), .real(1), .bool(true), .string("1"), .array([.dictionary(["a": .data(Data([1]))])])]))
        try assertRoundTrip(.dictionary(["theme": .string("dark"), "refresh": .integer(30), "nested": .dictionary(["when": .date(Date(timeIntervalSinceReferenceDate: 1))])]))
    }

    func testIntegerRealAndBooleanStayDistinct() throws {
        let writer = try sandbox.defaults()
        try writer.set(1, forKey: "int")
        try writer.set(1.0, forKey: "real")
        try writer.set(true, forKey: "bool")
        let reader = try sandbox.defaults()
        XCTAssertEqual(try reader.value(forKey: "int"), .integer(1))
        XCTAssertEqual(try reader.value(forKey: "real"), .real(1))
        XCTAssertEqual(try reader.value(forKey: "bool"), .bool(true))
    }

    func testFoundationValuesAreConvertedAsUserDefaultsAcceptsThem() throws {
        let writer = try sandbox.defaults()
        let date = Date(timeIntervalSinceReferenceDate: 5)
        try writer.set(["a": [1, 2.5, "x", true, Data([9]), date] as [Any]] as [String: Any], forKey: "mixed")
        let stored = try sandbox.defaults().value(forKey: "mixed")
        XCTAssertEqual(stored, .dictionary(["a": .array([.integer(1), .real(2.5), .string("x"), .bool(true), .data(Data([9])), .date(date)])]))
    }

    func testKeysAreAnyUnicodeUpToTheLimit() throws {
        let writer = try sandbox.defaults()
        let keys = ["k", "with/slash", "../dots", "spaces and\ttabs", "ключ", String(repeating: "x", count: SharedDefaults.maximumKeyLength)]
        for (index, key) in keys.enumerated() { try writer.set(index + 1, forKey: key) }
        let reader = try sandbox.defaults()
        for (index, key) in keys.enumerated() { XCTAssertEqual(reader.integer(forKey: key), index + 1, key) }
    }
}
