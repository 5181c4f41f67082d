@testable import SealedStorage
import XCTest

/// What `UntrustedText.printable` shows of text that came from outside.
final class UntrustedTextTests: XCTestCase {
    func testC0ControlsAndDeleteAreEscaped() {
        XCTAssertEqual(UntrustedText.printable("a\u{1b}[31mb\nc\u{7f}"), "a\\u{1b}[31mb\\u{a}c\\u{7f}")
    }

    func testC1ControlsAreEscaped() {
        // U+009B is a one-character control sequence introducer on many terminals.
        XCTAssertEqual(UntrustedText.printable("a\u{9b}31mb\u{85}c"), "a\\u{9b}31mb\\u{85}c")
    }

    func testBidirectionalOverridesAndIsolatesAreEscaped() {
        // "txt.exe" shown reversed as "exe.txt" by a right-to-left override.
        XCTAssertEqual(UntrustedText.printable("report\u{202e}txt.exe"), "report\\u{202e}txt.exe")
        XCTAssertEqual(UntrustedText.printable("\u{2066}a\u{2069}\u{2067}b\u{2068}"), "\\u{2066}a\\u{2069}\\u{2067}b\\u{2068}")
    }

    func testZeroWidthCharactersAreEscaped() {
        XCTAssertEqual(UntrustedText.printable("ad\u{200b}min\u{feff}"), "ad\\u{200b}min\\u{feff}")
    }

    func testLineAndParagraphSeparatorsAreEscaped() {
        XCTAssertEqual(UntrustedText.printable("one\u{2028}two\u{2029}three"), "one\\u{2028}two\\u{2029}three")
    }

    func testVisibleTextIsShownAsItIs() {
        let visible = "group.com.example — Grüße, 名前, ✓ 🔑 a b"
        XCTAssertEqual(UntrustedText.printable(visible), visible)
    }

    func testTextPastTheLimitIsCutWithAnEllipsis() {
        XCTAssertEqual(UntrustedText.printable("abcdef", limit: 4), "abcd…")
        XCTAssertEqual(UntrustedText.printable("abcd", limit: 4), "abcd")
    }
}
