import Foundation
import GroupSync
import GroupSyncTestKit
import GroupVaultTestKit
import XCTest

/// `vaultcli sync` run as the built executable, one home per machine, against the test's
/// server: the arrangement `SyncCommandTests` and `SyncRecordsCommandTests` share.
class SyncCommandTestCase: SyncServerTestCase {
    private var entitlements: URL!
    private var watchers: [FixtureProcess] = []

    override func setUpWithError() throws {
        try super.setUpWithError()
        entitlements = sandbox.directory.url.appendingPathComponent("App.entitlements")
        try Data("""
            <plist version="1.0"><dict>
              <key>com.apple.security.application-groups</key><array><string>\(SyncSandbox.group)</string></array>
              <key>com.apple.developer.ubiquity-kvstore-identifier</key><string>$(TeamIdentifierPrefix)com.example.sync</string>
            </dict></plist>
            """.utf8).write(to: entitlements)
    }

    override func tearDownWithError() throws {
        for watcher in watchers {
            watcher.kill(SIGKILL)
            watcher.wait()
        }
        try super.tearDownWithError()
    }

    /// The server's URL with a password the socket ignores, to show it is never printed.
    var urlWithPassword: String { server.url.replacingOccurrences(of: "groupsync@", with: "groupsync:hunter2-secret@") }

    /// Machine `machine`'s environment: its home, the entitlements and the identity they expand with.
    func environment(_ machine: Int) -> [String: String] {
        [
            "GROUPVAULT_HOME": sandbox.homes[machine].path, "GROUPVAULT_ENTITLEMENTS": entitlements.path,
            "GROUPVAULT_TEAM_ID": "ABCDE12345", "GROUPVAULT_BUNDLE_ID": "com.example.sync",
        ]
    }

    /// Runs `vaultcli sync <arguments> --group G --url URL` as machine `machine`, to its end.
    func vaultcli(_ machine: Int, _ arguments: [String]) throws -> (status: Int32, output: String, errors: String) {
        try FixtureProcess.run(
            ["sync"] + arguments + ["--group", SyncSandbox.group.rawValue, "--url", urlWithPassword],
            environment: environment(machine), executable: "vaultcli")
    }

    /// Starts `vaultcli sync <arguments> --group G --url URL` as machine `machine` and returns
    /// once it printed its `watching` line; killed at the test's end if still running.
    func watch(_ machine: Int, _ arguments: [String]) throws -> FixtureProcess {
        let watcher = try FixtureProcess(
            ["sync"] + arguments + ["--group", SyncSandbox.group.rawValue, "--url", urlWithPassword],
            environment: environment(machine), executable: "vaultcli")
        watchers.append(watcher)
        func isWatching(_ line: String) -> Bool { line.hasPrefix("watching") || line.contains(#""event":"watching""#) }
        XCTAssertTrue(lines(of: watcher) { $0.contains(where: isWatching) }.contains(where: isWatching),
                      "no watching line: \(watcher.standardOutput) \(watcher.standardError)")
        return watcher
    }

    /// What `watcher` wrote to standard error, once it satisfies `enough`, or when it has not
    /// within the same bound as ``lines(of:until:)``, after killing it.
    func standardError(of watcher: FixtureProcess, until enough: (String) -> Bool) -> String {
        let deadline = Date().addingTimeInterval(60)
        while !enough(watcher.standardError) {
            guard Date() < deadline else {
                watcher.kill(SIGKILL)
                break
            }
            usleep(5_000)
        }
        return watcher.standardError
    }

    /// The lines `watcher` printed, once they satisfy `enough`; when they have not within a
    /// bound (a guard against a hang, never a measure of speed), it is killed and the lines it
    /// printed are returned, for the test's assertion to fail on.
    func lines(of watcher: FixtureProcess, until enough: ([String]) -> Bool) -> [String] {
        let deadline = Date().addingTimeInterval(60)
        var lines: [String] { watcher.standardOutput.split(separator: "\n", omittingEmptySubsequences: false).dropLast().map(String.init) }
        while !enough(lines) {
            guard Date() < deadline else {
                watcher.kill(SIGKILL)
                break
            }
            usleep(5_000)
        }
        return lines
    }
}
