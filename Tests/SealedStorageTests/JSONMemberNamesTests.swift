import Foundation
import SealedStorage
import XCTest

/// Member names given twice in one object, found wherever the object is and however the names
/// are spelt (docs/SYNC.md, section 5): the texts readers disagree on.
final class JSONMemberNamesTests: XCTestCase {
    private func unique(_ text: String) -> Bool { JSONMemberNames.areUnique(in: Array(text.utf8)) }

    func testDistinctNamesAreUnique() {
        XCTAssertTrue(unique(#"{"key":"k","value":"AQI="}"#))
        XCTAssertTrue(unique(#" { "a" : [1, 2.5e3, true, false, null] , "b" : {} , "c" : [] } "#))
    }

    func testTheSameNameInTwoObjectsIsNoDuplicate() {
        XCTAssertTrue(unique(#"{"a":{"x":1},"b":{"x":2},"c":[{"x":3},{"x":4}]}"#))
    }

    func testANameGivenTwiceAtTheTopIsFound() {
        XCTAssertFalse(unique(#"{"key":"k","key":"j"}"#))
    }

    func testANameGivenTwiceDeepInsideIsFound() {
        XCTAssertFalse(unique(#"{"dict":{"a":[{"int":1},{"x":{"b":1,"b":2}}]}}"#))
    }

    func testNamesEqualOnceTheirEscapesAreUndoneAreOneName() {
        XCTAssertFalse(unique(#"{"key":1,"k\u0065y":2}"#))
        XCTAssertFalse(unique(#"{"a/b":1,"a\/b":2}"#))
        XCTAssertFalse(unique(#"{"😀":1,"\ud83d\ude00":2}"#))
    }

    /// As `JSONDecoder` compares keys: two spellings of `é` are one key to it.
    func testCanonicallyEquivalentNamesAreOneName() {
        XCTAssertFalse(unique("{\"caf\u{E9}\":1,\"cafe\u{301}\":2}"))
    }

    func testQuotesBracesAndEscapesInsideStringsDoNotMisleadIt() {
        XCTAssertTrue(unique(#"{"a":"}\",{\"a\":1","b":"\\","c":"[{"}"#))
    }

    func testAByteOrderMarkIsSkippedAsTheDecoderSkipsIt() {
        XCTAssertTrue(JSONMemberNames.areUnique(in: [0xEF, 0xBB, 0xBF] + Array(#"{"a":1}"#.utf8)))
        XCTAssertFalse(JSONMemberNames.areUnique(in: [0xEF, 0xBB, 0xBF] + Array(#"{"a":1,"a":2}"#.utf8)))
    }

    func testTextThatIsNotJSONIsNotCalledUnique() {
        for text in [#"{"a":1"#, #"{"a" 1}"#, #"{"a":"unterminated}"#, "", #"{"a":1} x"#, #"{"\u12"#] {
            XCTAssertFalse(unique(text), text)
        }
    }

    func testNestingDeeperThanTheLimitIsNotCalledUnique() {
        let depth = 600
        XCTAssertFalse(unique(String(repeating: "[", count: depth) + String(repeating: "]", count: depth)))
        XCTAssertTrue(unique(String(repeating: "[", count: 100) + String(repeating: "]", count: 100)))
    }
}
