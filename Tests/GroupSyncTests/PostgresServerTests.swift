import GroupSyncTestKit
import XCTest

/// The test servers themselves (``PostgresServer``): every test's server is a copy of one
/// template cluster per process, so nothing a test does to its server may reach another's.
final class PostgresServerTests: XCTestCase {
    private let countTheFirstServersTable = "SELECT count(*) FROM pg_tables WHERE tablename = 'written_by_the_first_server'"

    func testAServerCopiedFromTheTemplateHoldsNothingAnEarlierServerWrote() throws {
        let first = try PostgresServer(), second = try PostgresServer()
        defer { first.remove(); second.remove() }
        // The first start makes the template (when no test before made it); the table is
        // written after, so a copy that shared the first server's files would show it.
        try first.start()
        try first.psql("CREATE TABLE written_by_the_first_server (id int)")
        try second.start()

        XCTAssertEqual(try second.value(countTheFirstServersTable), "0")
        XCTAssertEqual(try first.value(countTheFirstServersTable), "1")
    }

    func testAServerCopiedFromTheTemplateHasTheGroupsyncDatabase() throws {
        let server = try PostgresServer()
        defer { server.remove() }
        try server.start()

        XCTAssertEqual(try server.value("SELECT current_database()"), "groupsync")
    }
}
