import Dispatch
@testable import SealedStorage
import XCTest

/// `Locked`: state shared between threads, changed only under its lock. CI also runs these
/// under ThreadSanitizer, where threads meeting at the lock must not be reported as a race.
final class LockedTests: XCTestCase {
    func testIncrementsFromManyThreadsAtOnceAreAllCounted() {
        let counter = Locked(0)
        // Many threads, each taking the lock many times, so that they meet at it often: the
        // contended hand-over is the case ThreadSanitizer must see.
        DispatchQueue.concurrentPerform(iterations: 8) { _ in
            for _ in 0..<2_000 { counter.withLock { $0 += 1 } }
        }
        XCTAssertEqual(counter.withLock { $0 }, 16_000)
    }

    func testWithLockReturnsWhatTheBodyReturns() {
        let names = Locked(["a", "b"])
        let count = names.withLock { names -> Int in
            names.append("c")
            return names.count
        }
        XCTAssertEqual(count, 3)
    }

    func testAThrowingBodyLeavesItsChangesAndReleasesTheLock() {
        struct Refusal: Error {}
        let value = Locked(1)
        XCTAssertThrowsError(try value.withLock { (number: inout Int) throws(Refusal) in
            number = 2
            throw Refusal()
        })
        // Had the lock stayed held, this would never return.
        XCTAssertEqual(value.withLock { $0 }, 2)
    }
}
