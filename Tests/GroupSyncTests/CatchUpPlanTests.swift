@testable import GroupSync
import GroupSyncCore
import GroupSyncTestKit
import PostgresNIO
import XCTest

/// Every connection turns bitmap scans off and prices a random page at 1.1 sequential ones for
/// its session (docs/SYNC.md, section 6, "Session settings"), so that a catch-up page reads the
/// `(space, change)` index in order and stops at its limit, whatever statistics the server has
/// gathered; without them, the planner reads every row of the space for each page, or the whole
/// table and a sort for the large page after a snapshot.
final class CatchUpPlanTests: SyncServerTestCase {
    private static let space = [UInt8](repeating: 0x5A, count: 32)
    private let logger = Logger(label: "test")

    private func connect(id: Int = 1) async throws -> ServerConnection {
        let connection = try await ServerConnection.open(SyncConfiguration(url: try SyncServerURL(server.url)), id: id)
        addTeardownBlock { await connection.close() }
        return connection
    }

    /// `SHOW name` in `connection`'s session.
    private func setting(_ name: String, on connection: ServerConnection) async throws -> String? {
        var value: String?
        for try await found in try await connection.connection.query(PostgresQuery(unsafeSQL: "SHOW \(name)"), logger: logger).decode(String.self) {
            value = found
        }
        return value
    }

    /// Sets `name` to `value` for `connection`'s session, as the connection's first statement
    /// sets GroupSync's settings.
    private func set(_ name: String, to value: String, on connection: ServerConnection) async throws {
        try await connection.connection.query(PostgresQuery(unsafeSQL: "SELECT set_config('\(name)', '\(value)', false)"), logger: logger)
    }

    /// The plan of `sql` with `bindings` on `connection`, as `EXPLAIN` prints it (planned for
    /// those values, as an unnamed statement is).
    private func plan(of sql: String, _ bindings: PostgresBindings, on connection: ServerConnection) async throws -> String {
        var lines: [String] = []
        let explain = PostgresQuery(unsafeSQL: "EXPLAIN " + sql, binds: bindings)
        for try await line in try await connection.connection.query(explain, logger: logger).decode(String.self) {
            lines.append(line)
        }
        return lines.joined(separator: "\n")
    }

    /// The plan of a catch-up page after change 500 on `connection`.
    private func pagePlan(on connection: ServerConnection) async throws -> String {
        try await plan(of: PageStatement.sql, try PageStatement(space: Self.space, after: 500, limit: .standard).makeBindings(), on: connection)
    }

    func testAConnectionThatCreatesTheSchemaTurnsBitmapScansOff() async throws {
        let connection = try await connect()

        let value = try await setting("enable_bitmapscan", on: connection)
        XCTAssertEqual(value, "off")
    }

    func testAConnectionToACurrentSchemaTurnsBitmapScansOff() async throws {
        _ = try await connect()
        let second = try await connect(id: 2)

        let value = try await setting("enable_bitmapscan", on: second)
        XCTAssertEqual(value, "off")
    }

    func testACatchUpPageOnATableWithoutStatisticsReadsTheIndexInOrder() async throws {
        let connection = try await connect()
        // Ten thousand rows of one space that the server has never analysed (autovacuum off for
        // the table, so that it cannot gather statistics during the test).
        _ = try server.psql("""
            ALTER TABLE groupsync_entry SET (autovacuum_enabled = false);
            INSERT INTO groupsync_entry (space, name, sequence, change, blob)
            SELECT decode(repeat('5a', 32), 'hex'), sha256(int4send(i)), 1, nextval('groupsync_change'), decode(repeat('ab', 100), 'hex')
            FROM generate_series(1, 10000) AS i;
            """)

        // At PostgreSQL's default cost of a random page, so that this setting alone decides
        // (the session's cheaper random page also favours the index here).
        try await set("random_page_cost", to: "4", on: connection)
        let plan = try await pagePlan(on: connection)
        // The same query with bitmap scans allowed again: the arrangement must be one where the
        // setting decides, or this test shows nothing.
        try await set("enable_bitmapscan", to: "on", on: connection)
        let planWithBitmapScans = try await pagePlan(on: connection)

        XCTAssertTrue(plan.contains("Index Scan using groupsync_entry_by_change"), plan)
        XCTAssertFalse(plan.contains("Bitmap"), plan)
        XCTAssertTrue(planWithBitmapScans.contains("Bitmap Heap Scan"), "the planner no longer picks a bitmap scan here; this test no longer shows the setting's effect:\n\(planWithBitmapScans)")
    }

    /// The plan of a first sync's catch-up after a snapshot: the rows after change 8,000, in one
    /// page of the largest size, sent unnamed as a connection's first catch-up is.
    private func catchUpAfterASnapshotPlan(on connection: ServerConnection) async throws -> String {
        let statement = ChangesStatement(space: Self.space, after: 8_000, limit: CatchUpPageLimit(rows: CatchUpPageLimit.largestRows, bytes: CatchUpPageLimit.standard.bytes))
        return try await plan(of: ChangesStatement.sql, try statement.makeBindings(), on: connection)
    }

    func testAConnectionPricesARandomPageReadAsTheCacheServesIt() async throws {
        let connection = try await connect()

        let value = try await setting("random_page_cost", on: connection)
        XCTAssertEqual(value, "1.1")
    }

    func testTheCatchUpAfterASnapshotOnAnAnalysedTableReadsTheIndexInOrder() async throws {
        let connection = try await connect()
        // Ten thousand rows of one space, analysed: the planner knows that the rows after the
        // snapshot are a fifth of the table.
        _ = try server.psql("""
            INSERT INTO groupsync_entry (space, name, sequence, change, blob)
            SELECT decode(repeat('5a', 32), 'hex'), sha256(int4send(i)), 1, nextval('groupsync_change'), decode(repeat('ab', 280), 'hex')
            FROM generate_series(1, 10000) AS i;
            ANALYZE groupsync_entry;
            """)

        let plan = try await catchUpAfterASnapshotPlan(on: connection)
        // The same query at PostgreSQL's default cost of a random page: the arrangement must be
        // one where the setting decides, or this test shows nothing.
        try await set("random_page_cost", to: "4", on: connection)
        let planAtTheDefaultCost = try await catchUpAfterASnapshotPlan(on: connection)

        XCTAssertTrue(plan.contains("Index Scan using groupsync_entry_by_change"), plan)
        XCTAssertFalse(plan.contains("Seq Scan on groupsync_entry"), plan)
        XCTAssertTrue(planAtTheDefaultCost.contains("Seq Scan on groupsync_entry"), "the planner no longer reads the whole table here at the default cost; this test no longer shows the setting's effect:\n\(planAtTheDefaultCost)")
    }
}
