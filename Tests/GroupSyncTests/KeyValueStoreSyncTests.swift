import Foundation
import GroupSync
import GroupSyncTestKit
import Keyring
import XCTest

/// The ubiquitous key-value store between machines through a real PostgreSQL server.
final class KeyValueStoreSyncTests: XCTestCase {
    private var server: PostgresServer!
    private var sandbox: SyncSandbox!

    override func setUpWithError() throws {
        server = try PostgresServer()
        try server.start()
        sandbox = try SyncSandbox(machines: 2)
    }

    override func tearDown() {
        server?.remove()
        sandbox?.remove()
    }

    func testAWriteOnOneMachineIsReadOnAnother() async throws {
        let writer = try sandbox.store(0, url: server.url)
        let reader = try sandbox.store(1, url: server.url)
        let changes = reader.externalChanges()
        writer.start()
        reader.start()
        writer.set("dark", forKey: "theme")
        let arrived = await waitForChange(changes) { reader.string(forKey: "theme") == "dark" }
        await writer.stop()
        await reader.stop()
        XCTAssertTrue(arrived, "status: \(reader.status)")
        XCTAssertEqual(reader.string(forKey: "theme"), "dark")
    }
}
