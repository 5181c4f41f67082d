import Foundation
import GroupSync
import XCTest

/// Apple's limits on a store that two machines, each within them, merged past them
/// (docs/SYNC.md, "Quota"): every value is kept, observers are told with a quota-violation
/// change, and writes that do not make the store larger are taken.
final class KeyValueStoreQuotaTests: SyncServerTestCase {
    /// 600,012 bytes as its JSON: one is within the 1 MB quota, two are not (and it seals
    /// within an entry's 1 MB).
    private let large = Data(repeating: 1, count: 450_000)

    /// Machine 0 writes `large` as "first", machine 1 as "second", and both sync: machine 0
    /// last, so it takes "second" in as a server change. Returns both stores and machine 0's
    /// changes, observed from before its writes.
    private func twoMachinesMergedOverTheSize() async throws -> (UbiquitousKeyValueStore, UbiquitousKeyValueStore, AsyncStream<UbiquitousChange>) {
        let first = try sandbox.store(0, url: server.url)
        let second = try sandbox.store(1, url: server.url)
        let changes = first.externalChanges()
        try first.setValue(.data(large), forKey: "first")
        try second.setValue(.data(large), forKey: "second")
        try await first.synchronizeWithServer()
        try await second.synchronizeWithServer()
        try await first.synchronizeWithServer()
        return (first, second, changes)
    }

    func testMachinesMergedOverTheSizeKeepEveryValueAndAreToldOfTheViolation() async throws {
        let (first, second, changes) = try await twoMachinesMergedOverTheSize()

        let violation = await firstChange(changes, reason: .quotaViolationChange)
        XCTAssertEqual(violation?.changedKeys, ["second"], "the keys of the change that broke the quota")
        for store in [first, second] {
            XCTAssertEqual(store.data(forKey: "first"), large)
            XCTAssertEqual(store.data(forKey: "second"), large)
        }
    }

    func testAStoreMergedOverTheSizeRefusesAWriteThatGrowsIt() async throws {
        let (first, _, _) = try await twoMachinesMergedOverTheSize()

        XCTAssertThrowsError(try first.setValue(.string("x"), forKey: "third")) { error in
            XCTAssertEqual((error as? SyncError)?.code, .quota, "\(error)")
        }
        XCTAssertNil(first.object(forKey: "third"))
    }

    func testAStoreMergedOverTheSizeTakesAWriteThatShrinksItWhileStillOver() async throws {
        let (first, _, _) = try await twoMachinesMergedOverTheSize()
        let smaller = Data(repeating: 2, count: 375_000)  // 1.1 MB in all after it

        XCTAssertNoThrow(try first.setValue(.data(smaller), forKey: "first"))
        XCTAssertNoThrow(try first.setValue(nil, forKey: "second"))

        XCTAssertEqual(first.data(forKey: "first"), smaller)
        XCTAssertNil(first.object(forKey: "second"))
    }

    func testMachinesMergedOverTheKeyCountAreToldAndTakeOnlyWritesThatAddNoKey() async throws {
        let first = try sandbox.store(0, url: server.url)
        let second = try sandbox.store(1, url: server.url)
        let changes = first.externalChanges()
        let half = UbiquitousStoreLimits.maximumKeyCount / 2 + 1
        for index in 0..<half {
            try first.setValue(.bool(true), forKey: "first-\(index)")
            try second.setValue(.bool(true), forKey: "second-\(index)")
        }
        try await first.synchronizeWithServer()
        try await second.synchronizeWithServer()
        try await first.synchronizeWithServer()

        // The catch-up takes machine 1's keys in pages: the first page that leaves the store
        // over the count is the first one reported.
        let violation = await firstChange(changes, reason: .quotaViolationChange)
        XCTAssertFalse(violation?.changedKeys.isEmpty ?? true)
        XCTAssertEqual(violation?.changedKeys.filter { !$0.hasPrefix("second-") }, [], "only the keys that came in")
        XCTAssertEqual(first.dictionaryRepresentation.count, 2 * half, "every value is kept")
        XCTAssertNoThrow(try first.setValue(.bool(false), forKey: "second-0"), "replacing a value adds no key")
        XCTAssertThrowsError(try first.setValue(.bool(true), forKey: "third")) { error in
            XCTAssertEqual((error as? SyncError)?.code, .quota, "\(error)")
        }
    }
}
