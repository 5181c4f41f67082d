import Foundation
import GroupVaultTestKit
import XCTest

/// `vaultcli notify` and `vaultcli channel`, run as a user runs them: the built executable.
final class MessagingCommandTests: XCTestCase {
    private var directory: TemporaryDirectory!
    private var children: [FixtureProcess] = []

    override func setUpWithError() throws {
        directory = try TemporaryDirectory(prefix: "gmc")
        try Data("""
            <?xml version="1.0" encoding="UTF-8"?>
            <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
            <plist version="1.0"><dict>
            <key>com.apple.security.application-groups</key><array><string>group.com.example.cli</string></array>
            </dict></plist>
            """.utf8).write(to: directory.url.appendingPathComponent("App.entitlements"))
    }

    override func tearDown() {
        children.forEach { $0.kill(SIGKILL); $0.wait() }
        directory.remove()
    }

    private var environment: [String: String] {
        [
            "GROUPVAULT_HOME": directory.url.appendingPathComponent("h").path,
            "GROUPVAULT_ENTITLEMENTS": directory.url.appendingPathComponent("App.entitlements").path,
            "GROUPVAULT_TEAM_ID": "ABCDE12345",
            "GROUPVAULT_BUNDLE_ID": "com.example.cli",
        ]
    }

    private func start(_ arguments: [String]) throws -> FixtureProcess {
        let child = try FixtureProcess(arguments, environment: environment, executable: "vaultcli")
        children.append(child)
        return child
    }

    /// Waits (bounded, as a guard against hanging) until `process` printed a line containing `text`.
    private func awaitOutput(_ text: String, in process: FixtureProcess) throws {
        let deadline = Date().addingTimeInterval(60)
        while !process.standardOutput.contains(text) {
            guard Date() < deadline else { throw FixtureTimeout(message: "no \(text): \(process.standardOutput) \(process.standardError)") }
            usleep(5_000)
        }
    }

    func testNotifyWatchPrintsAJSONLineForAPost() throws {
        let watcher = try start(["notify", "watch", "com.example.cli.changed", "--group", "group.com.example.cli", "--count", "1", "--json"])
        try awaitOutput("\"event\":\"watching\"", in: watcher)
        let post = try FixtureProcess.run(["notify", "post", "com.example.cli.changed", "--group", "group.com.example.cli", "--json"], environment: environment, executable: "vaultcli")
        XCTAssertEqual(post.status, 0, post.errors)
        XCTAssertTrue(post.output.contains("\"event\":\"posted\""), post.output)
        XCTAssertEqual(watcher.wait(), 0, watcher.standardError)
        XCTAssertTrue(watcher.standardOutput.contains("{\"event\":\"woken\",\"group\":\"group.com.example.cli\",\"name\":\"com.example.cli.changed\"}"), watcher.standardOutput)
    }

    func testChannelPingIsAnsweredByChannelServeWhichSeesThePingersPid() throws {
        let server = try start(["channel", "serve", "--group", "group.com.example.cli", "--json"])
        try awaitOutput("\"event\":\"listening\"", in: server)
        let ping = try start(["channel", "ping", "--group", "group.com.example.cli", "--count", "3", "--json"])
        XCTAssertEqual(ping.wait(), 0, ping.standardError)
        let pongs = ping.standardOutput.split(separator: "\n").filter { $0.contains("\"event\":\"pong\"") }
        XCTAssertEqual(pongs.count, 3, ping.standardOutput)
        XCTAssertTrue(pongs.allSatisfy { $0.contains("\"seenPID\":\(ping.pid)") }, ping.standardOutput)
        try awaitOutput("\"event\":\"connected\"", in: server)
        XCTAssertTrue(server.standardOutput.contains("\"pid\":\(ping.pid),"), server.standardOutput)
    }

    func testAPeersHostileMessageTypeReachesChannelServesOutputInert() throws {
        // A member sends a message type holding a screen clear, a one-byte CSI, a bidi override
        // and a newline: the operator's terminal must see escapes, one line per event.
        let hostile = "k\u{1B}[2J\u{9B}31m\u{202E}\nforged line"
        for json in [false, true] {
            let server = try start(["channel", "serve", "--group", "group.com.example.cli", "--name", "hostile"] + (json ? ["--json"] : []))
            try awaitOutput("listening", in: server)
            let attacker = try FixtureProcess(
                ["channel-attack", "--group", "group.com.example.cli", "--name", "hostile", "--kind", "unknown-type", "--type", hostile],
                environment: environment, executable: "GroupMessagingFixture")
            children.append(attacker)
            XCTAssertEqual(attacker.wait(), 0, attacker.standardError)
            try awaitOutput("unknownMessageType", in: server)
            server.kill(SIGKILL)
            server.wait()
            let output = server.standardOutput + server.standardError
            for character in ["\u{1B}", "\u{9B}", "\u{202E}"] {
                XCTAssertFalse(output.contains(character), "json: \(json): \(output.debugDescription)")
            }
            XCTAssertFalse(output.split(separator: "\n").contains { $0.hasPrefix("forged line") }, output.debugDescription)
        }
    }

    func testChannelPingWithoutServerFailsAfterItsTimeoutWithAHint() throws {
        let ping = try FixtureProcess.run(["channel", "ping", "--group", "group.com.example.cli", "--timeout", "0.2"], environment: environment, executable: "vaultcli")
        XCTAssertNotEqual(ping.status, 0)
        XCTAssertTrue(ping.errors.contains("vaultcli channel serve"), ping.errors)
    }

    func testChannelPingRefusesATimeoutThatIsNotAPositiveNumberOfSeconds() throws {
        for timeout in ["nan", "inf", "-1", "0"] {
            let ping = try FixtureProcess.run(["channel", "ping", "--group", "group.com.example.cli", "--timeout=\(timeout)"], environment: environment, executable: "vaultcli")
            XCTAssertEqual(ping.status, 2, "--timeout \(timeout) is a usage error: \(ping.errors)")
            XCTAssertTrue(ping.errors.contains("--timeout"), "--timeout \(timeout): \(ping.errors)")
        }
    }
}
