@testable import SealedStorage
import XCTest

/// What `OldestFirstTable` holds: never more than its capacity, the key set first dropped to
/// make room, a value set again keeping its key's place, a removed key gone from the order.
final class OldestFirstTableTests: XCTestCase {
    /// A full table of three: keys 1, 2 and 3, set in that order, each holding its own number.
    private func full() -> OldestFirstTable<Int, Int> {
        var table = OldestFirstTable<Int, Int>(capacity: 3)
        for key in 1...3 { table.set(key, for: key) }
        return table
    }

    func testEveryValueIsHeldWhileTheTableIsNotOverFull() {
        let table = full()
        XCTAssertEqual([1, 2, 3].map { table[$0] }, [1, 2, 3])
        XCTAssertEqual(table.count, 3)
    }

    func testANewKeyBeyondTheCapacityDropsTheKeySetFirst() {
        var table = full()
        table.set(4, for: 4)
        XCTAssertNil(table[1])
        XCTAssertEqual([2, 3, 4].map { table[$0] }, [2, 3, 4])
        XCTAssertEqual(table.count, 3)
    }

    func testAValueSetAgainReplacesItsValueAndKeepsItsKeysPlace() {
        var table = full()
        table.set(10, for: 1)
        XCTAssertEqual(table[1], 10)
        XCTAssertEqual(table.count, 3)
        table.set(4, for: 4)
        XCTAssertNil(table[1], "key 1 was still the oldest: setting it again does not make it newer")
        XCTAssertEqual(table[2], 2)
    }

    func testARemovedKeyLeavesRoomWithoutDroppingAnother() {
        var table = full()
        table.remove(2)
        XCTAssertNil(table[2])
        table.set(4, for: 4)
        XCTAssertEqual([1, 3, 4].map { table[$0] }, [1, 3, 4])
        XCTAssertEqual(table.count, 3)
    }

    func testARemovedKeySetAgainIsTheNewest() {
        var table = full()
        table.remove(1)
        table.set(1, for: 1)
        table.set(4, for: 4)
        XCTAssertNil(table[2], "key 2 became the oldest once key 1 left the order")
        XCTAssertEqual([1, 3, 4].map { table[$0] }, [1, 3, 4])
    }

    func testRemovingAnAbsentKeyChangesNothing() {
        var table = full()
        table.remove(9)
        XCTAssertEqual([1, 2, 3].map { table[$0] }, [1, 2, 3])
        XCTAssertEqual(table.count, 3)
    }
}
