import GroupSyncTestKit
import XCTest

/// A throw-away PostgreSQL server and a sandbox of machines, started before each test and
/// removed after it: the arrangement every suite that syncs through a server shares.
class SyncServerTestCase: SyncSandboxTestCase {
    override class var machines: Int { 2 }

    var server: PostgresServer!

    override func setUpWithError() throws {
        server = try PostgresServer()
        try server.start()
        try super.setUpWithError()
    }

    override func tearDown() {
        server?.remove()
        super.tearDown()
    }
}
