@testable import GroupSync
import XCTest

/// The page after a full page may hold twice the rows, up to a bound, and never more bytes
/// (docs/SYNC.md, "Protocol", step 2).
final class CatchUpPageLimitTests: XCTestCase {
    func testTheNextPageHoldsTwiceTheRowsAndTheSameBytes() {
        let next = CatchUpPageLimit.standard.next()

        XCTAssertEqual(next, CatchUpPageLimit(rows: 1_000, bytes: 4 << 20))
    }

    func testPagesStopGrowingAtTheLargestRowCount() {
        var limit = CatchUpPageLimit.standard
        for _ in 0..<20 { limit = limit.next() }

        XCTAssertEqual(limit, CatchUpPageLimit(rows: CatchUpPageLimit.largestRows, bytes: 4 << 20))
    }

    func testALimitAlreadyLargerThanTheLargestRowCountKeepsItsRows() {
        let limit = CatchUpPageLimit(rows: 50_000, bytes: 1 << 20)

        XCTAssertEqual(limit.next(), limit)
    }
}
