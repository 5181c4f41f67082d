import Foundation
import XCTest

@testable import Keyring

/// The read path's text rules, written without Foundation so a process that only reads a record
/// never loads it, accept and refuse what Foundation's `CharacterSet` and case-insensitive
/// compare did.
final class FoundationFreeTextTests: XCTestCase {
    func testWhitespaceIsExactlyFoundationsWhitespacesAndNewlinesInTheBasicPlane() {
        // Every character Foundation counts as whitespace or newline is below U+10000.
        for value in UInt32(0)...0xFFFF {
            guard let scalar = Unicode.Scalar(value) else { continue }
            XCTAssertEqual(
                scalar.isWhitespaceOrNewline, CharacterSet.whitespacesAndNewlines.contains(scalar),
                "U+\(String(value, radix: 16, uppercase: true))")
        }
    }

    func testTrimmingRemovesWhatFoundationTrims() {
        for text in ["", " ", "locked", " \t locked\r\n", "\u{200B}\u{3000}unlocked\u{2029}\u{85}", "a b", "\n\u{A0}x\u{A0}y\u{A0}\n"] {
            XCTAssertEqual(text.trimmingWhitespaceAndNewlines(), text.trimmingCharacters(in: .whitespacesAndNewlines), text.debugDescription)
        }
    }

    func testCaseInsensitiveEqualityFoldsCaseIncludingMultiScalarFoldings() {
        XCTAssertTrue("Straße".equalsIgnoringCase("STRASSE"))
        XCTAssertTrue("\u{1E9E}".equalsIgnoringCase("ss"))
        XCTAssertTrue("ΣΊΣΥΦΟΣ".equalsIgnoringCase("σίσυφος"))
        XCTAssertTrue("\u{FB00}".equalsIgnoringCase("FF"))
        XCTAssertFalse("api".equalsIgnoringCase("apis"))
    }

    func testCaseInsensitiveEqualityDoesNotNormalize() {
        // `.literal`: a precomposed letter is not its decomposed form.
        XCTAssertFalse("\u{E9}".equalsIgnoringCase("e\u{301}"))
        XCTAssertFalse("\u{130}".equalsIgnoringCase("i"))
        XCTAssertFalse("\u{131}".equalsIgnoringCase("i"))
    }

    func testCaseInsensitiveEqualityHoldsForEveryPairFoundationCallsEqual() {
        // Each scalar of the scripts with case below U+2C00 against its case mappings.
        for value in UInt32(0)...0x2BFF {
            guard let scalar = Unicode.Scalar(value) else { continue }
            let text = String(scalar)
            let properties = scalar.properties
            for other in [properties.lowercaseMapping, properties.uppercaseMapping, properties.titlecaseMapping, "i", "s"] {
                let foundation = text.compare(other, options: [.caseInsensitive, .literal]) == .orderedSame
                if foundation {
                    XCTAssertTrue(text.equalsIgnoringCase(other), "U+\(String(value, radix: 16, uppercase: true)) against \(other.debugDescription)")
                }
            }
        }
    }
}
