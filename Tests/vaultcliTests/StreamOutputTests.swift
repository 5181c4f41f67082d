import Foundation
import GroupVaultTestKit
import XCTest

/// The streaming commands in text mode with standard output a pipe (not a terminal): each
/// line arrives as it happens, and none is lost when the process is killed.
final class StreamOutputTests: VaultCLITestCase {
    func testNotifyWatchInTextModeWritesEachLineAtOnce() throws {
        let watcher = try FixtureProcess(["notify", "watch", "com.example.changed", "--group", group], environment: environment, executable: "vaultcli")
        try awaitOutput("watching", in: watcher)
        let post = try vaultcli("notify", "post", "com.example.changed", "--group", group)
        XCTAssertEqual(post.output, "posted com.example.changed in \(group)\n")
        try awaitOutput("woken", in: watcher)
        watcher.kill(SIGKILL)
        watcher.wait()
        XCTAssertEqual(watcher.standardOutput, "watching com.example.changed in \(group)\nwoken com.example.changed in \(group)\n")
    }

    func testChannelServeInTextModeSaysItIsListeningAtOnce() throws {
        let server = try FixtureProcess(["channel", "serve", "--group", group], environment: environment, executable: "vaultcli")
        defer { server.kill(SIGKILL); server.wait() }
        try awaitOutput("listening", in: server)
        XCTAssertTrue(server.standardOutput.hasPrefix("listening /"), server.standardOutput)
        XCTAssertTrue(server.standardOutput.hasSuffix("/vaultcli\n"), server.standardOutput)
    }
}
