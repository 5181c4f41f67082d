import Foundation
@testable import GroupMessaging
import GroupVaultTestKit
import InMemoryLogging
import Keyring
import Logging
import MetricsTestKit
import XCTest

/// What a channel client reports through its keyring's logger and metrics factory: each
/// established connection it loses while open, and nothing when it is closed.
final class ChannelDiagnosticsTests: XCTestCase {
    private var sandbox: MessagingSandbox!
    private var logs: InMemoryLogHandler!
    private var metrics: TestMetrics!
    private var keyring: Keyring!

    override func setUpWithError() throws {
        sandbox = try MessagingSandbox()
        logs = InMemoryLogHandler()
        metrics = TestMetrics()
        keyring = sandbox.keyring
        var logger = Logger(label: "test", factory: { [logs] _ in logs! })
        logger.logLevel = .trace
        keyring.logger = logger
        keyring.metricsFactory = metrics
    }

    override func tearDown() { sandbox.remove() }

    private func socket() throws -> GroupIPCName {
        try GroupIPCName(.socket, "diagnostics", in: MessagingSandbox.group, keyring: sandbox.keyring)
    }

    private func startServer() async throws -> GroupChannelServer {
        try await GroupChannelServer.start(
            try socket(), keyring: sandbox.keyring, accepting: GroupMessageTypes([Ping.self]),
            handlers: .init(request: { message, _ in Pong(seq: (message as! Ping).seq + 1) }))
    }

    /// A client of ``socket()`` reporting through the test's logger and metrics, connected.
    private func connectedClient() async throws -> GroupChannelClient {
        let client = try GroupChannelClient(try socket(), keyring: keyring, accepting: GroupMessageTypes([Pong.self]))
        client.start()
        _ = try await client.connected()
        return client
    }

    private var lostLines: [InMemoryLogHandler.Entry] {
        logs.entries.filter { $0.message.description == "channel connection lost; reconnecting" }
    }

    private var reconnectsCounted: Int64 { metrics.counterTotal(label: ChannelMetricLabel.reconnects) }

    func testALostConnectionIsLoggedAndCountedAndTheClientReconnects() async throws {
        let server = try await startServer()
        let client = try await connectedClient()

        await server.close()
        // The client learns of the loss on its event loop, and logs it before it counts it: wait
        // for both, or the count may be read between the two. The bound only guards against a hang.
        let deadline = Date().addingTimeInterval(60)
        while (lostLines.isEmpty || reconnectsCounted == 0) && Date() < deadline {
            try await Task.sleep(for: .milliseconds(10))
        }

        XCTAssertEqual(lostLines.count, 1, "\(logs.entries)")
        XCTAssertEqual(lostLines.first?.level, .debug)
        XCTAssertEqual(lostLines.first?.metadata["group"]?.description, MessagingSandbox.group.rawValue)
        XCTAssertEqual(reconnectsCounted, 1)
        let restarted = try await startServer()
        let pong = try await client.request(Ping(seq: 1), timeout: .seconds(60))
        XCTAssertEqual((pong as? Pong)?.seq, 2, "the client reconnected to the new server")
        await client.close()
        await restarted.close()
    }

    func testClosingTheClientIsNeitherLoggedNorCountedAsALostConnection() async throws {
        let server = try await startServer()
        let client = try await connectedClient()

        await client.close()
        await server.close()

        XCTAssertEqual(lostLines.count, 0, "\(logs.entries)")
        XCTAssertEqual(reconnectsCounted, 0)
    }
}
