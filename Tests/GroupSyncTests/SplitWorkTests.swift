import Foundation
import GroupSyncCore
import SealedStorage
import XCTest

/// Specification of how a first sync's rows and a snapshot's entries are split over the cores:
/// contiguous shares of at least a minimum, worked on one thread each, their results joined in
/// the items' order.
final class SplitWorkTests: XCTestCase {
    /// The shares `SplitWork` made of `count` items, in the order their first items come.
    private func shares(of count: Int, minimumPerWorker: Int) -> [ArraySlice<Int>] {
        let seen = Locked<[ArraySlice<Int>]>([])
        _ = SplitWork.map(Array(0..<count), minimumPerWorker: minimumPerWorker) { share in
            seen.withLock { $0.append(share) }
            return Array(share)
        }
        return seen.withLock { $0 }.sorted { ($0.first ?? 0) < ($1.first ?? 0) }
    }

    func testResultsComeInTheItemsOrder() {
        let items = Array(0..<1_000)

        let results = SplitWork.map(items, minimumPerWorker: 10) { share in share.map { $0 * 3 } }

        XCTAssertEqual(results, items.map { $0 * 3 })
    }

    func testFewerItemsThanTwoMinimumSharesMakeOneShare() {
        let made = shares(of: 19, minimumPerWorker: 10)

        XCTAssertEqual(made, [ArraySlice(0..<19)])
    }

    func testSharesCoverEveryItemOnceInContiguousRunsOfAtLeastTheMinimum() {
        let made = shares(of: 1_000, minimumPerWorker: 10)

        XCTAssertEqual(made.flatMap { $0 }, Array(0..<1_000))
        XCTAssertTrue(made.allSatisfy { $0.count >= 10 }, "\(made.map(\.count))")
        XCTAssertEqual(made.count, min(ProcessInfo.processInfo.activeProcessorCount, 100))
    }
}
