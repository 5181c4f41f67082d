import GroupSync
import GroupSyncTestKit
import Vault
import XCTest

/// A page the server returns must lie after where it was asked to start: a server that returns
/// rows at or below that point would have a catch-up or a verification ask for the same page
/// for ever. Such a page ends the round with a `server` error instead (docs/SYNC.md, section
/// 6, "Pages that do not move on").
final class ServerPageOrderTests: SyncServerTestCase {
    private struct Note: VaultRecord, Equatable {
        static let schemaVersion: UInt32 = 1
        var index: Int
    }

    /// More records than the largest page holds (4,000 rows, which pages double up to), so that
    /// a page that does not move on is full every time and the reader asks again.
    private static let records = 4_100

    private var writer: SyncedRecords!
    private var reader: SyncedRecords!

    override func setUpWithError() throws {
        try super.setUpWithError()
        writer = try sandbox.records(0, url: server.url)
        reader = try sandbox.records(1, url: server.url)
    }

    /// The reader holds one record; then the writer pushes ``records`` more, for the reader's
    /// next catch-up or verification to read in several pages.
    private func writeMoreThanTheLargestPage() async throws {
        try writer.write(Note(index: -1), to: "first")
        try await writer.synchronizeWithServer()
        try await reader.synchronizeWithServer()
        for index in 0..<Self.records { try writer.write(Note(index: index), to: "note-\(index)") }
        try await writer.synchronizeWithServer()
    }

    /// Makes `>` between two values of `type` always true for the server's user, as an operator
    /// who can change the server could: every `change > $2` (or `name > $2`) of a page's query
    /// then holds, and the same first page comes back however far a reader has read.
    private func makeGreaterThanAlwaysTrue(between type: String) throws {
        try server.psql("""
            CREATE FUNCTION public.always_greater(\(type), \(type)) RETURNS boolean LANGUAGE sql IMMUTABLE AS 'SELECT true';
            CREATE OPERATOR public.> (LEFTARG = \(type), RIGHTARG = \(type), FUNCTION = public.always_greater);
            ALTER ROLE groupsync SET search_path = public, pg_catalog;
            """)
    }

    func testACatchUpPageOfRowsAtOrBelowItsStartEndsTheRoundAsAServerError() async throws {
        try await writeMoreThanTheLargestPage()
        try makeGreaterThanAlwaysTrue(between: "bigint")

        do {
            try await reader.synchronizeWithServer()
            XCTFail("a page that does not move on must end the round")
        } catch {
            XCTAssertEqual(error.code, .server, "\(error)")
            XCTAssertTrue(error.description.contains("at or below"), "\(error)")
        }
    }

    func testAVerificationPageOfNamesAtOrBelowItsStartEndsTheVerificationAsAServerError() async throws {
        try await writeMoreThanTheLargestPage()
        try await reader.synchronizeWithServer()
        try makeGreaterThanAlwaysTrue(between: "bytea")

        do {
            _ = try await reader.verifyWithServer()
            XCTFail("a page that does not move on must end the verification")
        } catch {
            XCTAssertEqual(error.code, .server, "\(error)")
            XCTAssertTrue(error.description.contains("at or below"), "\(error)")
        }
    }
}
