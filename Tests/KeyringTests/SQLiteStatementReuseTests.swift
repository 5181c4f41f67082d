@testable import Keyring
import XCTest

/// A connection finds a statement it prepared before by where the SQL's text is stored, and
/// confirms it by the text itself: a string freed and another built in its place, of the same
/// length, must get its own statement, never the previous one.
final class SQLiteStatementReuseTests: XCTestCase {
    private var connection: SQLiteConnection!

    override func setUpWithError() throws {
        connection = try SQLiteConnection(inMemory: ())
    }

    private func value(of sql: String) throws -> Int64 {
        try connection.integer(sql)
    }

    func testTextsBuiltOneAfterAnotherInTheSameStorageEachRunTheirOwnStatement() throws {
        for round in 0..<200 {
            // Same length every round, built and freed each time: the allocator tends to hand
            // the next one the same storage.
            let sql = "SELECT \(round % 10) AS the_value_this_round_selects"
            XCTAssertEqual(try value(of: sql), Int64(round % 10), sql)
        }
    }

    func testShortTextsHeldInlineEachRunTheirOwnStatement() throws {
        for round in 0..<50 {
            XCTAssertEqual(try value(of: "SELECT \(round % 7)"), Int64(round % 7))
        }
    }

    func testMoreStatementsThanAreKeptRecentStillRunTheirOwn() throws {
        let texts = (0..<40).map { "SELECT \($0) AS value_number_\($0)" }
        for pass in 0..<3 {
            for (number, sql) in texts.enumerated() {
                XCTAssertEqual(try value(of: sql), Int64(number), "pass \(pass): \(sql)")
            }
        }
    }
}
