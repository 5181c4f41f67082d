import Foundation
import GroupSync
import GroupSyncTestKit
import GroupVaultTestKit
import XCTest

/// `vaultcli sync` between two machines, run as the built executable.
final class SyncCommandTests: SyncServerTestCase {
    private var entitlements: URL!

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

    /// The server's URL with a password the socket ignores, to show it is never printed.
    private var urlWithPassword: String { server.url.replacingOccurrences(of: "groupsync@", with: "groupsync:hunter2-secret@") }

    private func vaultcli(_ machine: Int, _ arguments: [String]) throws -> (status: Int32, output: String, errors: String) {
        try FixtureProcess.run(
            ["sync"] + arguments + ["--group", SyncSandbox.group.rawValue, "--url", urlWithPassword],
            environment: [
                "GROUPVAULT_HOME": sandbox.homes[machine].path, "GROUPVAULT_ENTITLEMENTS": entitlements.path,
                "GROUPVAULT_TEAM_ID": "ABCDE12345", "GROUPVAULT_BUNDLE_ID": "com.example.sync",
            ],
            executable: "vaultcli")
    }

    func testAValueSetOnOneMachineIsReadOnAnotherAfterSyncNow() throws {
        XCTAssertEqual(try vaultcli(0, ["set", "theme", #"{"string":"dark"}"#]).status, 0)
        XCTAssertEqual(try vaultcli(0, ["now"]).status, 0)
        XCTAssertEqual(try vaultcli(1, ["now", "--json"]).status, 0)

        let read = try vaultcli(1, ["get", "theme", "--json"])
        XCTAssertEqual(read.status, 0, read.errors)
        XCTAssertEqual(read.output.trimmingCharacters(in: .newlines), #"{"key":"theme","value":{"string":"dark"}}"#)
        let list = try vaultcli(1, ["list", "--json"])
        XCTAssertEqual(list.output.trimmingCharacters(in: .newlines), #"{"keys":[{"key":"theme"}]}"#)
    }

    func testStatusShowsTheServerWithoutItsPassword() throws {
        _ = try vaultcli(0, ["set", "theme", #"{"string":"dark"}"#])
        let status = try vaultcli(0, ["status", "--json"])
        XCTAssertEqual(status.status, 0, status.errors)
        XCTAssertTrue(status.output.contains(#""pendingWrites":1"#), status.output)
        XCTAssertTrue(status.output.contains("groupsync:***@"), status.output)
        XCTAssertFalse(status.output.contains("hunter2-secret"))
    }

    func testTwoMachinesThatShareTheStoreShowOneStoreID() throws {
        let lines = try (0...1).map { machine in
            try vaultcli(machine, ["status"]).output.split(separator: "\n").filter { $0.hasPrefix("store id: ") }
        }
        XCTAssertEqual(lines[0].count, 1, "\(lines)")
        XCTAssertEqual(lines[0], lines[1])
    }

    func testAnExchangeThatFoundNothingIsShownAsAPull() throws {
        XCTAssertEqual(try vaultcli(0, ["now"]).status, 0)
        let status = try vaultcli(0, ["status"])
        XCTAssertEqual(status.status, 0, status.errors)
        XCTAssertTrue(status.output.contains("last pull: 20"), "a pull at a date, not never: \(status.output)")
    }

    func testSyncNowWithoutAServerSaysHowToNameOne() throws {
        let run = try FixtureProcess.run(
            ["sync", "now", "--group", SyncSandbox.group.rawValue],
            environment: [
                "GROUPVAULT_HOME": sandbox.homes[0].path, "GROUPVAULT_ENTITLEMENTS": entitlements.path,
                "GROUPVAULT_TEAM_ID": "ABCDE12345", "GROUPVAULT_BUNDLE_ID": "com.example.sync", "GROUPVAULT_SYNC_URL": "",
            ],
            executable: "vaultcli")
        XCTAssertEqual(run.status, 2, run.errors)
        XCTAssertTrue(run.errors.contains("set GROUPVAULT_SYNC_URL=postgres://user:password@host/database or pass --url"), run.errors)
    }

    func testAMissingKeyExitsNotFound() throws {
        XCTAssertEqual(try vaultcli(0, ["get", "absent"]).status, 4)
    }
}
