#if canImport(Glibc)
import Glibc
#endif
import Foundation
import GroupVaultTestKit
import InMemoryLogging
import Keyring
import Logging
import MetricsTestKit
import Vault
import XCTest

/// What a vault reports through its keyring's logger and metrics factory: the refusals a
/// "treat as absent" read swallows, write latency, reads inside the expiry allowance; never a
/// secret, and nothing at all by default.
final class VaultDiagnosticsTests: VaultTestCase {
    private var logs: InMemoryLogHandler!
    private var metrics: TestMetrics!
    private var vault: Vault!

    override func setUpWithError() throws {
        try super.setUpWithError()
        logs = InMemoryLogHandler()
        metrics = TestMetrics()
        var keyring = sandbox.keyring
        var logger = Logger(label: "test", factory: { [logs] _ in logs! })
        logger.logLevel = .trace
        keyring.logger = logger
        keyring.metricsFactory = metrics
        vault = try Vault(keyring: keyring, group: VaultSandbox.group, clock: sandbox.clock.source)
    }

    private func tamper(_ name: String) throws {
        var blob = try sandbox.blob(name, in: vault)
        blob[blob.count - 5] ^= 0x01
        try sandbox.place(blob, as: name, in: vault)
    }

    func testARefusalReadIfValidSwallowsIsLoggedAtInfoWithItsReason() throws {
        try vault.write(AuthState.signedIn, to: "auth-state")
        try tamper("auth-state")

        XCTAssertNil(vault.readIfValid(AuthState.self, from: "auth-state"))

        let info = logs.entries.filter { $0.level == .info }
        XCTAssertEqual(info.map(\.message.description), ["record refused; read as absent"])
        XCTAssertEqual(info.first?.metadata["reason"], "authenticationFailed")
        XCTAssertEqual(info.first?.metadata["record"], "auth-state")
    }

    func testRefusalsAreCountedByReason() throws {
        try vault.write(AuthState.signedIn, to: "auth-state")
        try tamper("auth-state")
        _ = vault.readIfValid(AuthState.self, from: "auth-state")
        XCTAssertThrowsError(try vault.read(AuthState.self, from: "auth-state"))

        XCTAssertEqual(metrics.counterTotal(label: VaultMetricLabel.refusals, dimensions: [("reason", "authenticationFailed")]), 2)
    }

    func testARecordNeverWrittenIsNeitherCountedNorLogged() throws {
        XCTAssertNil(vault.readIfValid(AuthState.self, from: "auth-state"))

        XCTAssertEqual(metrics.counterTotal(label: VaultMetricLabel.refusals), 0)
        XCTAssertEqual(logs.entries.filter { $0.level >= .debug }.map(\.message.description), [])
    }

    func testEachWriteRecordsItsDurationWithItsDurability() throws {
        try vault.write(AuthState.signedIn, to: "auth-state")
        try vault.write(AuthState.signedInAgain, to: "auth-state")

        let timer = try metrics.expectTimer(VaultMetricLabel.writeDuration, [("durability", "full")])
        XCTAssertEqual(timer.values.count, 2)
        XCTAssertTrue(timer.values.allSatisfy { $0 > 0 }, "\(timer.values)")
    }

    func testAReadInsideTheExpiryAllowanceIsLoggedAtDebug() throws {
        try vault.write(AuthState.signedIn, to: "auth-state", expiresAt: TestClock.start.addingTimeInterval(10))
        sandbox.clock.advance(by: 30)   // expired 20 s ago, within the 60 s allowance

        XCTAssertEqual(try vault.read(AuthState.self, from: "auth-state"), AuthState.signedIn)

        let entry = logs.entries.first { $0.message.description == "record read within the clock-skew allowance after its expiry" }
        XCTAssertEqual(entry?.level, .debug)
        XCTAssertEqual(entry?.metadata["expired_ms_ago"], "20000")
    }

    func testNoLogLineOrMetricCarriesTheRecordsContents() throws {
        let secret = "display-name-that-must-not-leak"
        try vault.write(AuthState(isAuthenticated: true, displayName: secret, tokenDigest: "3f2a"), to: "auth-state")
        _ = try vault.read(AuthState.self, from: "auth-state")
        try tamper("auth-state")
        _ = vault.readIfValid(AuthState.self, from: "auth-state")

        XCTAssertFalse(logs.entries.isEmpty, "the test must have produced log lines to check")
        for entry in logs.entries {
            XCTAssertFalse("\(entry.message) \(entry.metadata)".contains(secret), "\(entry)")
        }
    }

    func testAWriteThatWaitedForAnotherProcesssLockSaysSo() async throws {
        try vault.write(AuthState.signedIn, to: "auth-state")
        let lock = vault.locksDirectory.appending("auth-state.lock")
        let holder = try FixtureProcess(["hold-lock", lock.string])
        while !holder.standardOutput.contains("locked") { try await Task.sleep(for: .milliseconds(10)) }
        let vault = vault!
        let writing = Task { try vault.write(AuthState.signedInAgain, to: "auth-state") }
        // Arrangement, not a threshold: hold the lock well past the one-second mark the
        // vault reports from, then let the write through.
        try await Task.sleep(for: .seconds(2))
        holder.kill(SIGKILL)
        holder.wait()
        _ = try await writing.value

        let entry = logs.entries.first { $0.message.description == "waited for a lock held by another process of the group" }
        XCTAssertEqual(entry?.level, .info)
        XCTAssertEqual(entry?.metadata["record"], "auth-state")
    }

    func testAKeyringWithoutALoggerLogsNothingAndStillWorks() throws {
        let quiet = try Vault(keyring: Keyring(identity: sandbox.keyring.identity, home: sandbox.keyring.home), group: VaultSandbox.group, clock: sandbox.clock.source)
        try quiet.write(AuthState.signedIn, to: "auth-state")
        try tamper("auth-state")
        XCTAssertNil(quiet.readIfValid(AuthState.self, from: "auth-state"))
        XCTAssertTrue(logs.entries.isEmpty, "the default logger discards; nothing reached this test's handler")
    }
}
