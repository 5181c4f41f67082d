import Dispatch
import Foundation
import GroupSync
import GroupSyncTestKit
import SealedStorage
import XCTest

/// A session's start: it connects while its state adopts the server (on a fresh home, the
/// state's first write), and a start whose state cannot be written leaves no connection behind
/// (docs/ARCHITECTURE.md, "A session connects while its state adopts the server").
final class SessionStartTests: SyncServerTestCase {
    // MARK: Arrangement

    /// The server's client connections, other than the one asking.
    private func clientConnections() throws -> Int {
        let count = try server.value("SELECT count(*) FROM pg_stat_activity WHERE backend_type = 'client backend' AND pid <> pg_backend_pid()")
        return try XCTUnwrap(Int(count), "psql printed \(count)")
    }

    // MARK: Connecting while the state is written

    func testTheServerSeesTheSessionsConnectionWhileItsStateIsBeingWritten() async throws {
        let store = try sandbox.store(0, url: server.url)
        let changes = store.externalChanges()
        XCTAssertEqual(try clientConnections(), 0)
        let holding = Locked(false)
        let release = DispatchSemaphore(value: 0)
        FileLayerDriver.with { driver in
            // The fresh home's first state write is held at its rename until the test lets it go.
            driver.run(before: .step(.rename)) {
                holding.withLock { $0 = true }
                _ = release.wait(timeout: .now() + 60)
            }
            // The session's task inherits the driver, so its state write meets the action.
            store.start()
        }
        let held = try await eventually { holding.withLock { $0 } }
        let connectedWhileHeld = try await eventually { try clientConnections() > 0 }
        release.signal()
        let synced = await firstChange(changes, reason: .initialSyncChange)
        await store.stop()

        XCTAssertTrue(held, "the session's start never wrote its state")
        XCTAssertTrue(connectedWhileHeld, "the session connected only after its state was written")
        XCTAssertNotNil(synced, "the session did not finish its first sync once its state was written")
    }

    // MARK: A state that cannot be written

    func testAStartWhoseStateCannotBeWrittenLeavesNoConnectionOpen() async throws {
        let store = try sandbox.store(0, url: server.url)

        try await FaultInjection.withProcessWideFault(.fail(.ioError), at: .step(.rename)) {
            store.start()
            let failed = try await eventually { store.status.lastError != nil }
            XCTAssertTrue(failed, "the session's start did not fail")
            await store.stop()
        }

        let closed = try await eventually { try clientConnections() == 0 }
        XCTAssertTrue(closed, "a connection opened while the state failed to be written is still open")
    }
}
