import Foundation
import GroupSync
import GroupSyncTestKit
import GroupVaultTestKit
import XCTest

/// `vaultcli sync` between two machines, run as the built executable.
final class SyncCommandTests: SyncCommandTestCase {
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

    func testSetWithJSONSaysWhichKeyWasStored() throws {
        let set = try vaultcli(0, ["set", "theme", #"{"string":"dark"}"#, "--json"])

        XCTAssertEqual(set.status, 0, set.errors)
        XCTAssertEqual(set.output.trimmingCharacters(in: .newlines), #"{"key":"theme","stored":true}"#)
    }

    func testStatusShowsTheServerWithoutItsPassword() throws {
        _ = try vaultcli(0, ["set", "theme", #"{"string":"dark"}"#])
        let status = try vaultcli(0, ["status", "--json"])
        XCTAssertEqual(status.status, 0, status.errors)
        XCTAssertTrue(status.output.contains(#""pendingWrites":1"#), status.output)
        XCTAssertTrue(status.output.contains("groupsync:***@"), status.output)
        XCTAssertFalse(status.output.contains("hunter2-secret"))
    }

    func testARefusedURLIsNotPrintedWithItsPasswordFromTheFlagOrTheEnvironment() throws {
        let url = "postgres://groupsync@localhost/groupsync?password=hunter2-secret"
        let flagged = try FixtureProcess.run(
            ["sync", "status", "--group", SyncSandbox.group.rawValue, "--url", url],
            environment: environment(0), executable: "vaultcli")
        let inherited = try FixtureProcess.run(
            ["sync", "status", "--group", SyncSandbox.group.rawValue],
            environment: environment(0).merging(["GROUPVAULT_SYNC_URL": url]) { _, new in new }, executable: "vaultcli")

        for run in [flagged, inherited] {
            XCTAssertNotEqual(run.status, 0, run.output)
            XCTAssertTrue(run.errors.contains("password=***"), run.errors)
            XCTAssertFalse((run.output + run.errors).contains("hunter2-secret"), run.output + run.errors)
        }
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
            environment: environment(0).merging(["GROUPVAULT_SYNC_URL": ""]) { $1 },
            executable: "vaultcli")
        XCTAssertEqual(run.status, 2, run.errors)
        XCTAssertTrue(run.errors.contains("set GROUPVAULT_SYNC_URL=postgres://user:password@host/database or pass --url"), run.errors)
    }

    func testVerifyOfAServerHoldingWhatTheMachineAcceptedPrintsCleanAndExitsZero() throws {
        XCTAssertEqual(try vaultcli(0, ["set", "theme", #"{"string":"dark"}"#]).status, 0)
        XCTAssertEqual(try vaultcli(0, ["now"]).status, 0)

        let verify = try vaultcli(0, ["verify", "--json"])

        XCTAssertEqual(verify.status, 0, verify.errors)
        XCTAssertEqual(
            verify.output,
            #"{"clean":true,"differing":0,"entriesCompared":1,"missing":0,"older":0,"refusals":{},"restored":0,"rowsRead":1,"unread":0}"# + "\n")
    }

    func testVerifyThatFindsARowTheServerDroppedPrintsItAndExitsWithFindings() throws {
        XCTAssertEqual(try vaultcli(0, ["set", "theme", #"{"string":"dark"}"#]).status, 0)
        XCTAssertEqual(try vaultcli(0, ["now"]).status, 0)
        try server.psql("DELETE FROM groupsync_entry")

        let verify = try vaultcli(0, ["verify"])

        XCTAssertEqual(verify.status, 1, verify.errors)
        XCTAssertEqual(verify.output, """
            findings: rows read 0, entries compared 1, missing 1, older 0, differing 0, unread 0, restored 1
            refused: notFound 1

            """)
    }

    func testWatchVerifiesTheServerEveryGivenIntervalAndWritesBackADroppedRow() throws {
        XCTAssertEqual(try vaultcli(0, ["set", "theme", #"{"string":"dark"}"#]).status, 0)
        XCTAssertEqual(try vaultcli(0, ["now"]).status, 0)
        try server.psql("DELETE FROM groupsync_entry")

        let watcher = try watch(0, ["watch", "--verify-every", "0.1", "--log-level", "info"])
        let errors = standardError(of: watcher) { $0.contains("sync server verification found") }
        watcher.kill(SIGTERM)
        watcher.wait()

        XCTAssertTrue(errors.contains("missing=1"), errors)
        XCTAssertEqual(try vaultcli(1, ["now"]).status, 0)
        XCTAssertEqual(try vaultcli(1, ["get", "theme"]).output, #"{"string":"dark"}"# + "\n", "the watch's session wrote the value back")
    }

    func testAVerificationIntervalBelowZeroIsRefusedAsUsage() throws {
        let run = try vaultcli(0, ["watch", "--verify-every=-1"])

        XCTAssertEqual(run.status, 2, run.errors)
        XCTAssertTrue(run.errors.contains("--verify-every is a number of seconds from 0"), run.errors)
    }

    func testAMissingKeyExitsNotFound() throws {
        XCTAssertEqual(try vaultcli(0, ["get", "absent"]).status, 4)
    }

    func testWatchPrintsAValueAnotherMachineSetAsAJSONLine() throws {
        // Its first sync done, so that what it hears next is a server change.
        XCTAssertEqual(try vaultcli(1, ["now"]).status, 0)
        let watcher = try watch(1, ["watch", "--count", "1", "--json"])
        XCTAssertEqual(try vaultcli(0, ["set", "theme", #"{"string":"dark"}"#]).status, 0)
        XCTAssertEqual(try vaultcli(0, ["now"]).status, 0)

        XCTAssertEqual(lines(of: watcher) { $0.count >= 2 }.last, #"{"event":"changed","keys":["theme"],"reason":"serverChange"}"#)
        XCTAssertEqual(watcher.wait(), 0, watcher.standardError)
        XCTAssertEqual(watcher.standardOutput.split(separator: "\n").count, 2, "nothing after --count changes: \(watcher.standardOutput)")
    }

    /// A change lists its keys in no particular order; `watch` prints them sorted.
    private static let keysSetInDisorder = ["theme", "accent", "volume", "font", "locale", "brightness"]

    /// Machine 0 sets ``keysSetInDisorder`` and pushes them; machine 1, fresh, watches its first
    /// sync with `arguments` until its first change, which lists the six keys (a server change
    /// for the page that brought them, or the initial sync's), and its output's lines come back.
    private func watchTheInitialSyncOfSixKeys(_ arguments: [String]) throws -> [String] {
        for key in Self.keysSetInDisorder { XCTAssertEqual(try vaultcli(0, ["set", key, #"{"string":"x"}"#]).status, 0) }
        XCTAssertEqual(try vaultcli(0, ["now"]).status, 0)
        let watcher = try watch(1, ["watch", "--count", "1"] + arguments)
        let lines = lines(of: watcher) { $0.count >= 2 }
        XCTAssertEqual(watcher.wait(), 0, watcher.standardError)
        return lines
    }

    func testWatchPrintsTheKeysOfAChangeSorted() throws {
        let lines = try watchTheInitialSyncOfSixKeys([])

        let printed = try XCTUnwrap(lines.last)
        XCTAssertTrue(printed.hasSuffix("Change: " + Self.keysSetInDisorder.sorted().joined(separator: ", ")), printed)
    }

    func testWatchPrintsTheKeysOfAChangeSortedAsAJSONLine() throws {
        let lines = try watchTheInitialSyncOfSixKeys(["--json"])

        let keys = Self.keysSetInDisorder.sorted().map { "\"\($0)\"" }.joined(separator: ",")
        let printed = try XCTUnwrap(lines.last)
        XCTAssertTrue(printed.hasPrefix(#"{"event":"changed","keys":["# + keys + #"],"reason":""#), printed)
    }

    func testWatchSaysWhichStoreAndServerWithoutThePassword() throws {
        let watcher = try watch(1, ["watch"])
        XCTAssertEqual(try vaultcli(0, ["set", "theme", #"{"string":"dark"}"#]).status, 0)
        XCTAssertEqual(try vaultcli(0, ["now"]).status, 0)
        // A fresh machine: its first catch-up may come before or after the write reached
        // the server, so the key arrives as the initial sync or as a server change after it.
        let lines = lines(of: watcher) { $0.contains { $0.hasSuffix(": theme") } }
        XCTAssertTrue(lines.first?.hasPrefix("watching store ABCDE12345.com.example.sync of group.com.example.sync, syncing with postgres://groupsync:***@localhost/") == true, watcher.standardOutput)
        XCTAssertTrue(lines.contains("initialSyncChange: theme") || lines.contains("serverChange: theme"), watcher.standardOutput)
        XCTAssertFalse(watcher.standardOutput.contains("hunter2-secret"))
    }
}
