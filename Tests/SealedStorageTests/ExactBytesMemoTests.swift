@testable import SealedStorage
import XCTest

/// What `ExactBytesMemo` gives back: a result only for exactly the bytes it was remembered
/// with, split where they were split, and never more entries or larger inputs than its bounds.
final class ExactBytesMemoTests: XCTestCase {
    private let first: [UInt8] = Array("GVIT".utf8) + [1] + Array(repeating: 0xA5, count: 40)
    private let second: [UInt8] = [1] + Array(repeating: 0x5A, count: 300)

    private func remembering() -> ExactBytesMemo<Int64, String> {
        var memo = ExactBytesMemo<Int64, String>(capacity: 8, largestInput: 4_096)
        memo.remember("result", for: 7, first, second)
        return memo
    }

    func testTheResultIsFoundForTheBytesItWasRememberedWith() {
        XCTAssertEqual(remembering().result(for: 7, first, second), "result")
    }

    func testNothingIsFoundUnderAnotherKey() {
        XCTAssertNil(remembering().result(for: 8, first, second))
    }

    func testOneChangedByteOfTheFirstPartAnywhereFindsNothing() {
        let memo = remembering()
        for index in first.indices {
            var changed = first
            changed[index] ^= 0x01
            XCTAssertNil(memo.result(for: 7, changed, second), "byte \(index) of the first part")
        }
    }

    func testOneChangedByteOfTheSecondPartAnywhereFindsNothing() {
        let memo = remembering()
        for index in second.indices {
            var changed = second
            changed[index] ^= 0x80
            XCTAssertNil(memo.result(for: 7, first, changed), "byte \(index) of the second part")
        }
    }

    func testTheSameBytesSplitElsewhereBetweenTheTwoPartsFindNothing() {
        let joined = first + second
        let memo = remembering()
        XCTAssertNil(memo.result(for: 7, Array(joined.prefix(first.count + 1)), Array(joined.dropFirst(first.count + 1))))
        XCTAssertNil(memo.result(for: 7, Array(joined.prefix(first.count - 1)), Array(joined.dropFirst(first.count - 1))))
        XCTAssertNil(memo.result(for: 7, joined))
    }

    func testATruncatedOrExtendedInputFindsNothing() {
        let memo = remembering()
        XCTAssertNil(memo.result(for: 7, first, Array(second.dropLast())))
        XCTAssertNil(memo.result(for: 7, first, second + [0]))
    }

    func testRememberingUnderAKeyAgainReplacesWhatItHeld() {
        var memo = remembering()
        let rewritten: [UInt8] = [1] + Array(repeating: 0x33, count: 300)
        memo.remember("other", for: 7, first, rewritten)

        XCTAssertEqual(memo.result(for: 7, first, rewritten), "other")
        XCTAssertNil(memo.result(for: 7, first, second))
        XCTAssertEqual(memo.count, 1)
    }

    func testAnInputLargerThanTheLimitIsNotRemembered() {
        var memo = ExactBytesMemo<Int64, String>(capacity: 8, largestInput: 100)
        let large = [UInt8](repeating: 1, count: 101 - first.count)
        memo.remember("result", for: 1, first, large)

        XCTAssertNil(memo.result(for: 1, first, large))
        XCTAssertEqual(memo.count, 0)
    }

    func testTheMemoNeverHoldsMoreThanItsCapacity() {
        var memo = ExactBytesMemo<Int64, String>(capacity: 8, largestInput: 4_096)
        for key in 0..<Int64(8 * 3 + 1) {
            memo.remember("result \(key)", for: key, first, second)
            XCTAssertLessThanOrEqual(memo.count, 8)
        }
        XCTAssertEqual(memo.result(for: 24, first, second), "result 24", "the last is remembered")
    }

    func testBuffersOfTheSameBytesAreTheSame() {
        let bytes: [UInt8] = [1, 2, 3]
        let copy = Array(bytes)
        XCTAssertTrue(bytes.withUnsafeBytes { mine in copy.withUnsafeBytes { haveSameBytes(mine, $0) } })
        XCTAssertTrue(haveSameBytes(UnsafeRawBufferPointer(start: nil, count: 0), UnsafeRawBufferPointer(start: nil, count: 0)))
    }

    func testBuffersDifferingInOneByteOrInLengthAreNotTheSame() {
        let bytes: [UInt8] = [1, 2, 3]
        XCTAssertFalse(bytes.withUnsafeBytes { mine in [UInt8]([1, 2, 4]).withUnsafeBytes { haveSameBytes(mine, $0) } })
        XCTAssertFalse(bytes.withUnsafeBytes { mine in [UInt8]([1, 2]).withUnsafeBytes { haveSameBytes(mine, $0) } })
    }
}
