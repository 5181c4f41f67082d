@testable import GroupSync
import GroupSyncTestKit
import NIOCore
import PostgresNIO
import XCTest

/// `RowColumns` reads a row's columns from left to right, each as the type asked for, and
/// refuses what `row.decode((A, B, ...).self)` refuses: a missing column, a `NULL` where a value
/// is required.
final class RowColumnsTests: SyncServerTestCase {
    /// The one row of `sql`, read on a connection of its own.
    private func row(_ sql: String) async throws -> PostgresRow {
        let server = try await ServerConnection.open(SyncConfiguration(url: try SyncServerURL(self.server.url)))
        addTeardownBlock { await server.close() }
        var found: [PostgresRow] = []
        for try await row in try await server.connection.query(PostgresQuery(unsafeSQL: sql), logger: Logger(label: "test")) { found.append(row) }
        return try XCTUnwrap(found.first)
    }

    func testColumnsAreReadInOrderEachAsItsType() async throws {
        var columns = RowColumns(try await row("SELECT 7::bigint, '\\x0102'::bytea, NULL::bigint"))

        XCTAssertEqual(try columns.next(Int64.self), 7)
        XCTAssertEqual(try columns.next(ByteBuffer.self), ByteBuffer(bytes: [1, 2]))
        XCTAssertNil(try columns.next(Int64?.self))
    }

    func testAColumnPastTheLastIsMissingData() async throws {
        var columns = RowColumns(try await row("SELECT 7::bigint"))
        _ = try columns.next(Int64.self)

        XCTAssertThrowsError(try columns.next(Int64.self)) { error in
            XCTAssertEqual(error as? PostgresDecodingError.Code, .missingData)
        }
    }

    func testANullWhereAValueIsRequiredIsRefused() async throws {
        var columns = RowColumns(try await row("SELECT NULL::bigint"))

        XCTAssertThrowsError(try columns.next(Int64.self))
    }
}
