import GroupSyncTestKit
import XCTest

/// A throw-away PostgreSQL server and a sandbox of machines, started before each test and
/// removed after it: the arrangement every suite that syncs through a server shares.
class SyncServerTestCase: XCTestCase {
    /// How many machines the sandbox has; a suite that needs more overrides it.
    class var machines: Int { 2 }

    var server: PostgresServer!
    var sandbox: SyncSandbox!

    override func setUpWithError() throws {
        try super.setUpWithError()
        server = try PostgresServer()
        try server.start()
        sandbox = try SyncSandbox(machines: Self.machines)
    }

    override func tearDown() {
        server?.remove()
        sandbox?.remove()
        super.tearDown()
    }
}
