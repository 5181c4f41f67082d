import Foundation
@testable import GroupSync
import GroupSyncTestKit
import InMemoryLogging
import Keyring
import Logging
import MetricsTestKit
import XCTest

/// What a sync session reports through its keyring's logger and metrics factory: a server it
/// cannot reach, once at `.info` however long the outage, every attempt counted, and the
/// moment it is reachable again.
final class SyncDiagnosticsTests: SyncServerTestCase {
    private var logs: InMemoryLogHandler!
    private var metrics: TestMetrics!

    override func setUpWithError() throws {
        try super.setUpWithError()
        logs = InMemoryLogHandler()
        metrics = TestMetrics()
    }

    /// Machine 0's store syncing through `url`, reporting to this test's logs and metrics.
    private func store(url: String) throws -> UbiquitousKeyValueStore {
        var keyring = sandbox.keyrings[0]
        var logger = Logger(label: "test", factory: { [logs] _ in logs! })
        logger.logLevel = .trace
        keyring.logger = logger
        keyring.metricsFactory = metrics
        return try SyncSandbox.store(keyring: keyring, url: url)
    }

    private func lines(_ message: String) -> [InMemoryLogHandler.Entry] {
        logs.entries.filter { $0.message.description == message }
    }

    private var reconnects: Int64 {
        (try? metrics.expectCounter(SyncMetricLabel.reconnects).totalValue) ?? 0
    }

    private var catchUps: Int64 {
        (try? metrics.expectCounter(SyncMetricLabel.catchUps).totalValue) ?? 0
    }

    private var catchUpPages: Int64 {
        (try? metrics.expectCounter(SyncMetricLabel.catchUpPages).totalValue) ?? 0
    }

    private var snapshotsWritten: Int64 {
        (try? metrics.expectCounter(SyncMetricLabel.snapshotsWritten).totalValue) ?? 0
    }

    private var snapshotsRead: Int64 {
        (try? metrics.expectCounter(SyncMetricLabel.snapshotsRead).totalValue) ?? 0
    }

    /// Waits for `condition`; the bound only guards against a hang.
    private func wait(until condition: () -> Bool) async throws {
        _ = try await eventually(within: .seconds(60), condition)
    }

    func testAnUnreachableServerIsLoggedOnceAtInfoAndEveryAttemptIsCounted() async throws {
        let store = try store(url: "postgres://u:hunter2-secret@localhost/d?host=/nonexistent-directory")
        store.start()
        try await wait { reconnects >= 3 }
        await store.stop()

        let unreachable = lines("sync server unreachable; reconnecting after a backoff")
        XCTAssertGreaterThanOrEqual(reconnects, 3)
        XCTAssertEqual(unreachable.filter { $0.level == .info }.count, 1, "\(unreachable)")
        XCTAssertEqual(unreachable.filter { $0.level == .debug }.count, unreachable.count - 1)
        XCTAssertEqual(unreachable.first?.metadata["failures_in_a_row"], "1")
        XCTAssertEqual(unreachable.first?.metadata["group"], "\(SyncSandbox.group)")
    }

    func testNoLineNamesTheServersPassword() async throws {
        let store = try store(url: "postgres://u:hunter2-secret@localhost/d?host=/nonexistent-directory")
        store.start()
        try await wait { reconnects >= 1 }
        await store.stop()

        XCTAssertFalse(logs.entries.isEmpty)
        for entry in logs.entries {
            XCTAssertFalse("\(entry.message) \(entry.metadata)".contains("hunter2-secret"), "\(entry)")
        }
    }

    func testAServerBackAfterAnOutageIsLoggedAsReachableAgain() async throws {
        let store = try store(url: server.url)
        store.start()
        try await wait { store.status.connected }
        XCTAssertTrue(store.status.connected, "status: \(store.status)")

        try server.stop()
        try await wait { reconnects >= 1 }
        _ = try server.start()
        try await wait { !lines("sync server reachable again").isEmpty }
        await store.stop()

        let back = lines("sync server reachable again")
        XCTAssertEqual(back.count, 1, "\(logs.entries)")
        XCTAssertEqual(back.first?.level, .info)
    }

    /// A server that keeps a row above a write which this machine refuses (here a tampered
    /// one) makes every compare-and-swap of the write fail. After a round's last pass the
    /// session tries again after a pause (the reconnect backoff's, set to an hour here), not at
    /// once: a hostile server cannot keep a machine running rounds without end.
    func testAWriteTheServerKeepsOvertakingIsTriedAgainAfterAPauseNotAtOnce() async throws {
        let other = try sandbox.store(1, url: server.url)
        other.set("theirs", forKey: "theme")
        try await other.synchronizeWithServer()
        try tamperWithBlobs(announcing: false)
        var keyring = sandbox.keyrings[0]
        keyring.metricsFactory = metrics
        var configuration = SyncConfiguration(url: try SyncServerURL(server.url))
        configuration.initialReconnectDelay = .seconds(3600)
        configuration.maximumReconnectDelay = .seconds(3600)
        let store = try SyncSandbox.store(keyring: keyring, configuration: configuration)
        store.set("mine", forKey: "theme")
        store.start()
        // The first round's catch-up, then one after each of its passes.
        try await wait { catchUps >= Int64(1 + SyncRound.maximumPasses) }
        try await Task.sleep(for: .milliseconds(500))
        let settled = catchUps
        try await Task.sleep(for: .seconds(1))
        let later = catchUps
        await store.stop()
        XCTAssertEqual(later, settled, "rounds kept running after the last pass")
        XCTAssertEqual(store.status.pendingWrites, 1, "the write is kept to push")
    }

    func testAStoreStoppedWhileConnectedCountsNoReconnect() async throws {
        let store = try store(url: server.url)
        store.start()
        try await wait { store.status.connected }
        await store.stop()

        XCTAssertTrue(lines("sync server unreachable; reconnecting after a backoff").isEmpty, "\(logs.entries)")
        XCTAssertEqual(reconnects, 0)
    }

    func testAMachinesOwnWritesEchoedByItsNotificationsStartNoCatchUp() async throws {
        let store = try store(url: server.url)
        let elsewhere = try sandbox.store(1, url: server.url)
        let changes = store.externalChanges()
        store.start()
        elsewhere.start()
        let synced = await firstChange(changes, reason: .initialSyncChange)
        XCTAssertNotNil(synced)
        let afterFirstSync = catchUps

        for index in 0..<10 {
            store.set("mine \(index)", forKey: "own")
            try await wait { store.status.pendingWrites == 0 }
        }
        // Notifications reach a connection in order: once this machine caught up after the other
        // machine's write, every echo of its own writes before it was handled.
        elsewhere.set("theirs", forKey: "other")
        try await wait { store.string(forKey: "other") == "theirs" && catchUps > afterFirstSync }
        await store.stop()
        await elsewhere.stop()

        XCTAssertEqual(afterFirstSync, 1, "the first round catches up")
        XCTAssertEqual(store.string(forKey: "other"), "theirs")
        XCTAssertEqual(catchUps, afterFirstSync + 1, "one catch-up, for the other machine's write; none for the ten echoes")
    }

    func testAFirstSyncReadsPagesThatDoubleInRows() async throws {
        // One authentic row in the store's space, then 3,599 more rows of the same space under
        // other names: refused when judged, but paged like any other (3,600 rows in all).
        let writer = try sandbox.store(1, url: server.url)
        writer.set("first", forKey: "token")
        try await writer.synchronizeWithServer()
        try server.psql("""
            INSERT INTO groupsync_entry (space, name, sequence, change, blob)
            SELECT e.space, sha256(int4send(i)), e.sequence, nextval('groupsync_change'), e.blob
            FROM groupsync_entry AS e, generate_series(1, 3599) AS i
            """)
        let store = try store(url: server.url)

        try await store.synchronizeWithServer()

        XCTAssertEqual(store.string(forKey: "token"), "first")
        XCTAssertEqual(store.status.refusedCount, 3_599, "every row was read: \(store.status.refusals)")
        XCTAssertEqual(catchUpPages, 4, "pages of 500, 1,000 and 2,000 rows, then the last 100")
    }

    func testASnapshotWrittenIsCounted() async throws {
        let store = try store(url: server.url)
        for index in 0..<100 { store.set("value \(index)", forKey: "key-\(index)") }

        try await store.synchronizeWithServer()

        XCTAssertEqual(snapshotsWritten, 1)
        XCTAssertEqual(snapshotsRead, 0)
    }

    func testASnapshotTakenByAFreshMachineIsCountedWithTheOnePageAfterIt() async throws {
        let writer = try sandbox.store(1, url: server.url)
        for index in 0..<100 { writer.set("value \(index)", forKey: "key-\(index)") }
        try await writer.synchronizeWithServer()
        let store = try store(url: server.url)

        try await store.synchronizeWithServer()

        XCTAssertEqual(snapshotsRead, 1)
        XCTAssertEqual(catchUpPages, 1, "the rows after the snapshot: none, in one page")
        XCTAssertEqual(store.string(forKey: "key-42"), "value 42")
    }

    /// The page after a snapshot is asked for as soon as the snapshot arrives, before it is
    /// opened: when the snapshot is then refused, that page is dropped, counted, and the rows
    /// are read from the start.
    func testARefusedSnapshotsEarlyPageIsCountedAndTheRowsAreReadFromTheStart() async throws {
        let writer = try sandbox.store(1, url: server.url)
        for index in 0..<100 { writer.set("value \(index)", forKey: "key-\(index)") }
        try await writer.synchronizeWithServer()
        try server.psql(Self.tamperWithTheSnapshot)
        let store = try store(url: server.url)

        try await store.synchronizeWithServer()

        XCTAssertEqual(snapshotsRead, 0)
        XCTAssertEqual(catchUpPages, 2, "the page asked for with the refused snapshot, then the 100 rows from the start in one")
        XCTAssertEqual(store.string(forKey: "key-42"), "value 42")
    }

    /// The rows after a snapshot are at most about half the space (a snapshot is written once
    /// half its entries changed), and are read while the snapshot is taken: in pages of the
    /// largest size from the first, not from 500 rows up.
    func testTheRowsAfterASnapshotAreReadInPagesOfTheLargestSize() async throws {
        let writer = try sandbox.store(1, url: server.url)
        for index in 0..<100 { writer.set("value \(index)", forKey: "key-\(index)") }
        try await writer.synchronizeWithServer()
        // 4,100 rows after the snapshot, under other names: refused when judged, but paged.
        try server.psql("""
            INSERT INTO groupsync_entry (space, name, sequence, change, blob)
            SELECT e.space, sha256(int4send(i)), e.sequence, nextval('groupsync_change'), e.blob
            FROM (SELECT * FROM groupsync_entry LIMIT 1) AS e, generate_series(1, 4100) AS i
            """)
        let store = try store(url: server.url)

        try await store.synchronizeWithServer()

        XCTAssertEqual(snapshotsRead, 1)
        XCTAssertEqual(store.status.refusedCount, 4_100, "every row after the snapshot was read, once: \(store.status.refusals)")
        XCTAssertEqual(catchUpPages, 2, "a page of 4,000 rows, then the last 100")
        XCTAssertEqual(store.string(forKey: "key-42"), "value 42")
    }
}
