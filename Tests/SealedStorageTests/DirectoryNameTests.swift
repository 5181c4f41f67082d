@testable import SealedStorage
import XCTest

/// A name given to a directory handle must be one path component: never empty, `.` or `..`,
/// and without `/` or NUL. Everything else is a name, whatever its bytes.
final class DirectoryNameTests: XCTestCase {
    func testEmptyDotAndDotDotAreNoNames() {
        for name in ["", ".", ".."] {
            XCTAssertFalse(DirectoryHandle.isOneComponent(name), "\"\(name)\"")
        }
    }

    func testASlashOrANULAnywhereIsNoName() {
        for name in ["/", "a/b", "/a", "a/", "../a", "a\u{0}b", "\u{0}", "record.gvr\u{0}"] {
            XCTAssertFalse(DirectoryHandle.isOneComponent(name), name.debugDescription)
        }
    }

    func testOtherNamesAreNamesWhateverTheirBytes() {
        let journal = "s-" + String(repeating: "ab", count: 16) + ".journal"
        for name in ["a", "...", ".hidden", "a.", "..a", "caf\u{E9}", "\u{1F511}", journal, String(repeating: "x", count: 255)] {
            XCTAssertTrue(DirectoryHandle.isOneComponent(name), name)
        }
    }
}
