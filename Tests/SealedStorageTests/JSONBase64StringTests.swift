import Foundation
import GroupVaultTestKit
import SealedStorage
import XCTest

/// The reader of base64 JSON strings that the item rows' and synced entries' fast paths share:
/// what it decodes is what `JSONDecoder` decodes, and anything it does not decide it says so.
final class JSONBase64StringTests: XCTestCase {
    /// Scans `json` (a whole JSON string, quotes included) from just after its opening quote.
    private func scan(_ json: String) -> JSONBase64String.Scan {
        Array(json.utf8).withUnsafeBufferPointer { JSONBase64String.scan($0, contentsFrom: 1) }
    }

    func testAStringWithoutEscapesDecodesAndNamesItsClosingQuote() {
        XCTAssertEqual(scan(#""AAEC" tail"#), .decoded(Data([0, 1, 2]), closingQuote: 5))
    }

    func testEscapedSlashesAreSlashes() {
        // 0xFB 0xFF 0xFF is "+///" in base64.
        XCTAssertEqual(scan(#""+\/\/\/""#), .decoded(Data([0xFB, 0xFF, 0xFF]), closingQuote: 8))
    }

    func testAnEmptyStringIsNoBytes() {
        XCTAssertEqual(scan(#""""#), .decoded(Data(), closingQuote: 1))
    }

    func testAnyOtherEscapeIsLeftToTheCaller() {
        XCTAssertEqual(scan(#""AA\u0045C""#), .otherEscape)
        XCTAssertEqual(scan(#""AA\nEC""#), .otherEscape)
        XCTAssertEqual(scan(#""AA\"EC""#), .otherEscape)
    }

    func testContentsThatAreNotBase64AreInvalid() {
        XCTAssertEqual(scan(#""AAE""#), .invalid, "a length that is not a multiple of four")
        XCTAssertEqual(scan(#""AA EC""#), .invalid, "a space")
        XCTAssertEqual(scan("\"AA\u{1}EC\""), .invalid, "a control character")
    }

    func testAStringWithoutAClosingQuoteIsInvalid() {
        XCTAssertEqual(scan(#""AAEC"#), .invalid)
        XCTAssertEqual(scan(#""AA\/"#), .invalid)
    }

    func testWhatJSONEncoderWritesDecodesAsJSONDecoderDecodesIt() throws {
        var generator = SeededGenerator()
        for _ in 0..<200 {
            let data = Data((0..<Int.random(in: 0...64, using: &generator)).map { _ in UInt8.random(in: 0...255, using: &generator) })
            let json = String(decoding: try JSONEncoder().encode(data), as: UTF8.self)

            let expected = try JSONDecoder().decode(Data.self, from: Data(json.utf8))

            XCTAssertEqual(scan(json), .decoded(expected, closingQuote: json.utf8.count - 1), "seed \(generator.seed): \(json)")
        }
    }
}
