import Foundation
import XCTest

@testable import Keyring

/// GroupVault's own XML property list parser reads what Xcode and Foundation write, with the
/// XML features a hand-edited file may use, and refuses the rest with the line at fault.
final class XMLPropertyListParserTests: XCTestCase {
    private func parse(_ xml: String) throws -> PropertyListValue {
        try PropertyListValue.parse(Data(xml.utf8))
    }

    private func refusal(_ xml: String, file: StaticString = #filePath, line: UInt = #line) -> String {
        do {
            let value = try parse(xml)
            XCTFail("expected a refusal, got \(value)", file: file, line: line)
            return ""
        } catch {
            return "\(error)"
        }
    }

    func testEveryValueTypeReadsLikeFoundationWritesIt() throws {
        let date = Date(timeIntervalSince1970: 1_700_000_000)
        let original: [String: Any] = [
            "string": "a < b & c", "integer": -42, "real": 1.5, "true": true, "false": false,
            "date": date, "data": Data([0, 1, 2, 255]), "array": ["x", 7], "dict": ["inner": "value"],
        ]
        let xml = try PropertyListSerialization.data(fromPropertyList: original, format: .xml, options: 0)
        XCTAssertEqual(try PropertyListValue.parse(xml), .dictionary([
            "string": .string("a < b & c"), "integer": .integer(-42), "real": .real(1.5),
            "true": .boolean(true), "false": .boolean(false), "date": .date(date),
            "data": .data(Data([0, 1, 2, 255])), "array": .array([.string("x"), .integer(7)]),
            "dict": .dictionary(["inner": .string("value")]),
        ]))
    }

    func testCommentsProcessingInstructionsAndCDATAAreNotContent() throws {
        let xml = """
            \u{FEFF}<?xml version="1.0"?><!-- before --><!DOCTYPE plist [ <!ENTITY e "x"> ]>
            <plist version="1.0"><?pi data?><dict><!-- <key>hidden</key> -->
            <key>k<!-- c --></key><string>a<![CDATA[<b>&amp;]]>c<?pi?></string></dict></plist>
            """
        XCTAssertEqual(try parse(xml), .dictionary(["k": .string("a<b>&amp;c")]))
    }

    func testPredefinedEntitiesAndCharacterReferencesAreExpanded() throws {
        XCTAssertEqual(try parse("<string>&lt;&gt;&amp;&quot;&apos;&#65;&#x1F600;</string>"), .string("<>&\"'A\u{1F600}"))
    }

    /// Entities declared in a DOCTYPE are never expanded, so none can multiply ("billion laughs").
    func testDeclaredEntitiesAreRefused() {
        let reason = refusal("<!DOCTYPE plist [<!ENTITY lol \"lol\">]><string>&lol;</string>")
        XCTAssertTrue(reason.contains("&lol; is not one of"), reason)
    }

    func testDuplicateKeysAreRefusedAsAContradiction() {
        let reason = refusal("<dict><key>team</key><string>A</string><key>team</key><string>B</string></dict>")
        XCTAssertTrue(reason.contains("the key \"team\" appears twice"), reason)
    }

    func testRefusalNamesTheLine() {
        let reason = refusal("<plist>\n<dict>\n<key>a</key>\n<integer>twelve</integer>\n</dict>\n</plist>")
        XCTAssertTrue(reason.contains("line 4"), reason)
        XCTAssertTrue(reason.contains("is not a 64-bit signed integer"), reason)
    }

    func testMismatchedClosingTagIsRefused() {
        let reason = refusal("<array><string>x</array>")
        XCTAssertTrue(reason.contains("<string> is closed by </array>"), reason)
    }

    func testElementInsideAStringIsRefused() {
        let reason = refusal("<string>a<b/>c</string>")
        XCTAssertTrue(reason.contains("an element inside <string>"), reason)
    }

    func testUnclosedCommentIsRefused() {
        let reason = refusal("<array><!-- never closed</array>")
        XCTAssertTrue(reason.contains("a comment is not closed"), reason)
    }

    func testImpossibleDateIsRefused() {
        let reason = refusal("<date>2023-02-29T00:00:00Z</date>")
        XCTAssertTrue(reason.contains("is not a date"), reason)
    }

    func testContentAfterTheRootIsRefused() {
        let reason = refusal("<plist><string>a</string></plist><string>b</string>")
        XCTAssertTrue(reason.contains("content after the property list"), reason)
    }

    func testMoreValuesThanTheLimitAreRefused() {
        let items = String(repeating: "<true/>", count: PropertyListValue.maximumValues)
        let reason = refusal("<array>\(items)</array>")
        XCTAssertTrue(reason.contains("holds more than \(PropertyListValue.maximumValues) values"), reason)
    }
}
