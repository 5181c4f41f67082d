import Foundation
import GroupSync
import GroupSyncTestKit
import XCTest

/// A store pointed at another server is another account (docs/SYNC.md, section 10): it forgets
/// what it synced and says which keys it dropped, as Apple's store does when the user signs in
/// to another iCloud account.
final class AccountChangeTests: SyncServerTestCase {
    private var otherServer: PostgresServer!

    override func setUpWithError() throws {
        try super.setUpWithError()
        otherServer = try PostgresServer()
        try otherServer.start()
    }

    override func tearDown() {
        otherServer?.remove()
        super.tearDown()
    }

    /// Machine 0 synced `theme` through the first server and refused one tampered row there.
    private func machine0AfterSyncingWithTheFirstServer() async throws {
        let store = try sandbox.store(0, url: server.url)
        store.set("dark", forKey: "theme")
        try await store.synchronizeWithServer()
        let other = try sandbox.store(1, url: server.url)
        other.set("tampered", forKey: "note")
        try await other.synchronizeWithServer()
        try tamperWithBlobs(of: .newest)
        try await store.synchronizeWithServer()
        XCTAssertEqual(store.status.refusals, ["authenticationFailed": 1], "the arrangement must refuse one row")
    }

    func testAStorePointedAtAnotherServerDropsWhatItSyncedAndSaysWhichKeys() async throws {
        try await machine0AfterSyncingWithTheFirstServer()
        let moved = try sandbox.store(0, url: otherServer.url)
        let changes = moved.externalChanges()
        try await moved.synchronizeWithServer()
        let change = await firstChange(changes, reason: .accountChange)
        XCTAssertEqual(change?.changedKeys, ["theme"])
        XCTAssertNil(moved.string(forKey: "theme"))
    }

    func testRefusalCountsAreKeptAcrossAnAccountChange() async throws {
        try await machine0AfterSyncingWithTheFirstServer()
        let moved = try sandbox.store(0, url: otherServer.url)
        try await moved.synchronizeWithServer()
        XCTAssertEqual(moved.status.refusals, ["authenticationFailed": 1])
    }
}
