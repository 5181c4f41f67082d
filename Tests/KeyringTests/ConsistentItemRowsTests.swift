@testable import Keyring
import XCTest

/// What the table of rows found consistent remembers: a row only with the exact bytes it was
/// found consistent with, and never more than its bounds.
final class ConsistentItemRowsTests: XCTestCase {
    private let additionalData: [UInt8] = Array("GVIT".utf8) + [1] + Array(repeating: 0xA5, count: 40)
    private let sealed: [UInt8] = [1] + Array(repeating: 0x5A, count: 300)

    private func remembering() -> ConsistentItemRows {
        var rows = ConsistentItemRows()
        rows.insert(id: 7, additionalData: additionalData, sealed: sealed)
        return rows
    }

    func testARowIsFoundWithTheBytesItWasRememberedWith() {
        XCTAssertTrue(remembering().contain(id: 7, additionalData: additionalData, sealed: sealed))
    }

    func testARowIsNotFoundUnderAnotherID() {
        XCTAssertFalse(remembering().contain(id: 8, additionalData: additionalData, sealed: sealed))
    }

    func testOneChangedByteOfTheAdditionalDataAnywhereIsNotFound() {
        let rows = remembering()
        for index in additionalData.indices {
            var changed = additionalData
            changed[index] ^= 0x01
            XCTAssertFalse(rows.contain(id: 7, additionalData: changed, sealed: sealed), "byte \(index) of the additional data")
        }
    }

    func testOneChangedByteOfTheSealedBytesAnywhereIsNotFound() {
        let rows = remembering()
        for index in sealed.indices {
            var changed = sealed
            changed[index] ^= 0x80
            XCTAssertFalse(rows.contain(id: 7, additionalData: additionalData, sealed: changed), "byte \(index) of the sealed bytes")
        }
    }

    func testTheSameBytesSplitElsewhereBetweenTheTwoPartsAreNotFound() {
        let joined = additionalData + sealed
        let rows = remembering()
        XCTAssertFalse(rows.contain(id: 7, additionalData: Array(joined.prefix(additionalData.count + 1)), sealed: Array(joined.dropFirst(additionalData.count + 1))))
        XCTAssertFalse(rows.contain(id: 7, additionalData: Array(joined.prefix(additionalData.count - 1)), sealed: Array(joined.dropFirst(additionalData.count - 1))))
    }

    func testATruncatedOrExtendedRowIsNotFound() {
        let rows = remembering()
        XCTAssertFalse(rows.contain(id: 7, additionalData: additionalData, sealed: Array(sealed.dropLast())))
        XCTAssertFalse(rows.contain(id: 7, additionalData: additionalData, sealed: sealed + [0]))
    }

    func testRememberingARowAgainReplacesItsBytes() {
        var rows = remembering()
        let rewritten: [UInt8] = [1] + Array(repeating: 0x33, count: 300)
        rows.insert(id: 7, additionalData: additionalData, sealed: rewritten)

        XCTAssertTrue(rows.contain(id: 7, additionalData: additionalData, sealed: rewritten))
        XCTAssertFalse(rows.contain(id: 7, additionalData: additionalData, sealed: sealed))
        XCTAssertEqual(rows.count, 1)
    }

    func testARowLargerThanTheLimitIsNotRemembered() {
        var rows = ConsistentItemRows()
        let large = [UInt8](repeating: 1, count: ConsistentItemRows.largestRememberedRow - additionalData.count + 1)
        rows.insert(id: 1, additionalData: additionalData, sealed: large)

        XCTAssertFalse(rows.contain(id: 1, additionalData: additionalData, sealed: large))
        XCTAssertEqual(rows.count, 0)
    }

    func testTheTableNeverHoldsMoreThanItsCapacity() {
        var rows = ConsistentItemRows()
        for id in 0..<Int64(ConsistentItemRows.capacity * 3 + 1) {
            rows.insert(id: id, additionalData: additionalData, sealed: sealed)
            XCTAssertLessThanOrEqual(rows.count, ConsistentItemRows.capacity)
        }
        XCTAssertTrue(rows.contain(id: Int64(ConsistentItemRows.capacity * 3), additionalData: additionalData, sealed: sealed), "the last row is remembered")
    }
}
