import Foundation
import GroupSync
import GroupSyncTestKit
import InMemoryLogging
import Keyring
import Logging
import MetricsTestKit
import XCTest

/// A running session verifies the server on its configuration's schedule
/// (`SyncConfiguration.verificationInterval`; docs/SYNC.md, section 6, "Verifying the server"):
/// a row the server dropped is found and written back with nobody calling `verifyWithServer()`,
/// and what each verification found is counted, and logged when it found something.
final class ScheduledVerificationTests: SyncServerTestCase {
    override class var machines: Int { 3 }

    private var logs: InMemoryLogHandler!
    private var metrics: TestMetrics!
    private var writer: UbiquitousKeyValueStore!
    /// Machine 1's store, verifying every 100 ms or less.
    private var verifier: UbiquitousKeyValueStore!

    override func setUpWithError() throws {
        try super.setUpWithError()
        logs = InMemoryLogHandler()
        metrics = TestMetrics()
        writer = try sandbox.store(0, url: server.url)
        verifier = try store(verifyingEvery: .milliseconds(100))
    }

    /// Machine 1's keyring, reporting to this test's logs and metrics.
    private var observedKeyring: Keyring {
        var keyring = sandbox.keyrings[1]
        var logger = Logger(label: "test", factory: { [logs] _ in logs! })
        logger.logLevel = .trace
        keyring.logger = logger
        keyring.metricsFactory = metrics
        return keyring
    }

    /// The test's server, verified on a schedule of `interval`.
    private func configuration(verifyingEvery interval: Duration) throws -> SyncConfiguration {
        var configuration = SyncConfiguration(url: try SyncServerURL(server.url))
        configuration.verificationInterval = interval
        configuration.initialReconnectDelay = .milliseconds(10)
        return configuration
    }

    /// Machine 1's store, reporting to this test's logs and metrics, verifying on a schedule of
    /// `interval`.
    private func store(verifyingEvery interval: Duration) throws -> UbiquitousKeyValueStore {
        try SyncSandbox.store(keyring: observedKeyring, configuration: configuration(verifyingEvery: interval))
    }

    /// Writes `key` = `value` on the writer and brings the verifier up to date, with no session.
    private func write(_ value: String, forKey key: String) async throws {
        try writer.setValue(.string(value), forKey: key)
        try await writer.synchronizeWithServer()
        try await verifier.synchronizeWithServer()
    }

    private func counter(_ label: String) -> Int64 {
        (try? metrics.expectCounter(label).totalValue) ?? 0
    }

    /// Runs the verifier's session until `condition` holds (the bound only guards against a
    /// hang), then stops it.
    private func runVerifier(until condition: () -> Bool) async throws {
        verifier.start()
        _ = try await eventually(within: .seconds(60), condition)
        await verifier.stop()
    }

    private func lines(at level: Logger.Level) -> [InMemoryLogHandler.Entry] {
        logs.entries.filter { $0.level == level && $0.message.description.hasPrefix("sync server verif") }
    }

    func testARunningSessionFindsARowTheServerDroppedAndWritesItBack() async throws {
        try await write("kept", forKey: "dropped")
        try server.psql("DELETE FROM groupsync_entry")

        try await runVerifier { counter(SyncMetricLabel.verifications) >= 1 }

        XCTAssertEqual(verifier.status.refusals, ["notFound": 1])
        let fresh = try sandbox.store(2, url: server.url)
        try await fresh.synchronizeWithServer()
        XCTAssertEqual(fresh.string(forKey: "dropped"), "kept", "the session wrote the accepted row back")
    }

    func testASyncedRecordsSessionVerifiesOnItsScheduleToo() async throws {
        let writing = try sandbox.records(0, url: server.url)
        try writing.write(SyncedNote(text: "kept"), to: "note")
        try await writing.synchronizeWithServer()
        let reading = try SyncedRecords(
            group: SyncSandbox.group, keyring: observedKeyring, configuration: .some(configuration(verifyingEvery: .milliseconds(100))))
        try await reading.synchronizeWithServer()
        try server.psql("DELETE FROM groupsync_entry")

        reading.start()
        _ = try await eventually(within: .seconds(60)) { counter(SyncMetricLabel.verifications) >= 1 }
        await reading.stop()

        XCTAssertEqual(reading.status.refusals, ["notFound": 1])
        let fresh = try sandbox.records(2, url: server.url)
        try await fresh.synchronizeWithServer()
        XCTAssertEqual(try fresh.read(SyncedNote.self, from: "note")?.text, "kept", "the session wrote the accepted record back")
    }

    func testWhatAVerificationFindsIsCountedAndLoggedAtInfo() async throws {
        try await write("kept", forKey: "dropped")
        try server.psql("DELETE FROM groupsync_entry")

        try await runVerifier { counter(SyncMetricLabel.verificationFindings) >= 1 }

        XCTAssertEqual(counter(SyncMetricLabel.verificationFindings), 1, "the row written back is no finding of the verifications after")
        XCTAssertGreaterThanOrEqual(counter(SyncMetricLabel.verifications), 1)
        let findings = lines(at: .info)
        XCTAssertEqual(findings.count, 1, "\(findings)")
        XCTAssertEqual(findings.first?.metadata["missing"], "1")
        XCTAssertEqual(findings.first?.metadata["restored"], "1")
        XCTAssertEqual(findings.first?.metadata["group"], "\(SyncSandbox.group)")
    }

    func testACleanVerificationIsCountedAndLoggedOnlyAtDebug() async throws {
        try await write("value", forKey: "key")

        try await runVerifier { counter(SyncMetricLabel.verifications) >= 2 }

        XCTAssertEqual(counter(SyncMetricLabel.verificationFindings), 0)
        XCTAssertEqual(lines(at: .info).count, 0, "\(lines(at: .info))")
        XCTAssertGreaterThanOrEqual(lines(at: .debug).count, 2)
        XCTAssertEqual(lines(at: .debug).first?.metadata["entries_compared"], "1")
        XCTAssertEqual(verifier.status.refusals, [:])
    }

    func testReconnectingDoesNotMakeASessionVerifyBeforeItsScheduleFallsDue() async throws {
        try await write("value", forKey: "key")
        let store = try store(verifyingEvery: .seconds(3_600))
        store.start()
        for lost in 1...3 {
            _ = try await eventually(within: .seconds(60)) { store.status.connected }
            try server.psql("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE backend_type = 'client backend' AND pid <> pg_backend_pid()")
            _ = try await eventually(within: .seconds(60)) { counter(SyncMetricLabel.reconnects) >= lost }
        }
        _ = try await eventually(within: .seconds(60)) { store.status.connected }
        await store.stop()

        XCTAssertGreaterThanOrEqual(counter(SyncMetricLabel.reconnects), 3)
        XCTAssertEqual(counter(SyncMetricLabel.verifications), 0, "a fleet reconnecting to a restarted server would each read the whole store")
    }

    func testASessionVerifiesOnceADayUnlessToldOtherwise() throws {
        let configuration = SyncConfiguration(url: try SyncServerURL(server.url))

        XCTAssertEqual(configuration.verificationInterval, .seconds(86_400))
    }
}
