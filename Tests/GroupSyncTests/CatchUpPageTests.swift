@testable import GroupSync
import GroupSyncCore
import GroupSyncTestKit
import XCTest

/// A catch-up query's page is bounded in rows and in bytes (docs/SYNC.md, "Protocol", step 2):
/// it stops at the first row that starts past the byte bound, yet never comes back empty while
/// rows remain.
final class CatchUpPageTests: SyncServerTestCase {
    private static let space = [UInt8](repeating: 0x5A, count: 32)

    /// A connection to the test's server (which `setUpWithError` starts), closed before it
    /// stops. Connecting creates the schema, so it comes before any row is stored.
    private func connect() async throws -> ServerConnection {
        let connection = try await ServerConnection.open(SyncConfiguration(url: try SyncServerURL(server.url)))
        addTeardownBlock { await connection.close() }
        return connection
    }

    /// Stores one row per size, in that order of change, with blobs of those many bytes.
    private func storeRows(ofSizes sizes: [Int]) throws {
        for (index, size) in sizes.enumerated() {
            try server.psql("""
                INSERT INTO groupsync_entry (space, name, sequence, change, blob)
                VALUES ('\\x\(String(repeating: "5a", count: 32))', sha256('\(index)'::bytea), 1, nextval('groupsync_change'), decode(repeat('ab', \(size)), 'hex'))
                """)
        }
    }

    func testAPageStopsAtTheFirstRowThatStartsPastItsBytes() async throws {
        let connection = try await connect()
        try storeRows(ofSizes: [100, 100, 100, 100, 100])
        let limit = CatchUpPageLimit(rows: 500, bytes: 250)

        let page = try await connection.rows(space: Self.space, after: 0, within: limit)

        XCTAssertEqual(page.map(\.blob.count), [100, 100, 100], "the rows starting at 0, 100 and 200 bytes; the next starts at 300")
        XCTAssertTrue(limit.isFull(page))
    }

    func testThePageAfterACutPageTakesTheRest() async throws {
        let connection = try await connect()
        try storeRows(ofSizes: [100, 100, 100, 100, 100])
        let limit = CatchUpPageLimit(rows: 500, bytes: 250)
        let first = try await connection.rows(space: Self.space, after: 0, within: limit)

        let second = try await connection.rows(space: Self.space, after: first.map(\.change).max() ?? 0, within: limit)

        XCTAssertEqual(second.map(\.blob.count), [100, 100])
        XCTAssertFalse(limit.isFull(second), "200 bytes in 2 rows is short of both bounds: the last page")
    }

    func testARowLargerThanThePageComesAlone() async throws {
        let connection = try await connect()
        try storeRows(ofSizes: [1_000, 10])

        let page = try await connection.rows(space: Self.space, after: 0, within: CatchUpPageLimit(rows: 500, bytes: 250))

        XCTAssertEqual(page.map(\.blob.count), [1_000])
    }

    func testAPageStopsAtItsRowCount() async throws {
        let connection = try await connect()
        try storeRows(ofSizes: [10, 10, 10, 10])
        let limit = CatchUpPageLimit(rows: 3, bytes: 4 << 20)

        let page = try await connection.rows(space: Self.space, after: 0, within: limit)

        XCTAssertEqual(page.count, 3)
        XCTAssertTrue(limit.isFull(page))
    }

    func testTheFirstQueryOfACatchUpKeepsTheSameBounds() async throws {
        let connection = try await connect()
        try storeRows(ofSizes: [100, 100, 100, 100, 100])

        let (lastChange, page) = try await connection.changes(space: Self.space, after: 0, within: CatchUpPageLimit(rows: 500, bytes: 250))

        XCTAssertEqual(page.map(\.blob.count), [100, 100, 100])
        XCTAssertEqual(lastChange, 5, "the counter is read whatever the page holds")
    }
}
