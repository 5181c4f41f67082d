import Foundation
import GroupSync
import GroupSyncTestKit
import GroupVaultTestKit
import Vault
import XCTest

/// `vaultcli sync records` between two machines, run as the built executable, and read or
/// written on the other side through `SyncedRecords`, as an application would.
final class SyncRecordsCommandTests: SyncCommandTestCase {
    private struct Note: VaultRecord, Equatable {
        static let schemaVersion: UInt32 = 3
        var text: String
    }

    private func records(_ machine: Int) throws -> SyncedRecords {
        try sandbox.records(machine, url: server.url)
    }

    /// Machine 0 writes a note through the library and pushes it; machine 1 pulls it through vaultcli.
    private func noteWrittenByTheLibraryAndPulled() async throws {
        let one = try records(0)
        try one.write(Note(text: "hello"), to: "note")
        try await one.synchronizeWithServer()
        XCTAssertEqual(try vaultcli(1, ["records", "now"]).status, 0)
    }

    func testARecordWrittenFromTheShellIsReadAsItsTypeOnAnotherMachine() async throws {
        let write = try vaultcli(0, ["records", "write", "note", #"{"text":"hello"}"#, "--schema", "3"])
        XCTAssertEqual(write.status, 0, write.errors)
        XCTAssertEqual(try vaultcli(0, ["records", "now"]).status, 0)

        let two = try records(1)
        try await two.synchronizeWithServer()
        XCTAssertEqual(try two.read(Note.self, from: "note"), Note(text: "hello"))
    }

    func testShowPrintsTheSchemaAndSizeButNotThePayloadWithoutReveal() async throws {
        try await noteWrittenByTheLibraryAndPulled()
        let show = try vaultcli(1, ["records", "show", "note", "--json"])
        XCTAssertEqual(show.status, 0, show.errors)
        XCTAssertEqual(show.output, #"{"name":"note","payloadBytes":16,"schemaVersion":3}"# + "\n")
    }

    func testShowWithRevealPrintsThePayloadAsJSON() async throws {
        try await noteWrittenByTheLibraryAndPulled()
        let show = try vaultcli(1, ["records", "show", "note", "--reveal", "--json"])
        XCTAssertEqual(show.status, 0, show.errors)
        XCTAssertEqual(show.output, #"{"name":"note","payload":{"text":"hello"},"payloadBytes":16,"schemaVersion":3}"# + "\n")
    }

    func testListNamesEachRecordWithItsSchemaAndSize() async throws {
        try await noteWrittenByTheLibraryAndPulled()
        XCTAssertEqual(try vaultcli(1, ["records", "write", "draft", "[1,2]", "--schema", "7"]).status, 0)
        let list = try vaultcli(1, ["records", "list", "--json"])
        XCTAssertEqual(list.status, 0, list.errors)
        XCTAssertEqual(list.output, #"{"group":"group.com.example.sync","records":[{"name":"draft","payloadBytes":5,"schemaVersion":7},{"name":"note","payloadBytes":16,"schemaVersion":3}]}"# + "\n")
    }

    func testStatusCountsAWriteAsPendingUntilItIsPushed() throws {
        XCTAssertEqual(try vaultcli(0, ["records", "write", "note", "{}", "--schema", "3"]).status, 0)
        XCTAssertTrue(try vaultcli(0, ["records", "status", "--json"]).output.contains(#""pendingWrites":1"#))
        XCTAssertEqual(try vaultcli(0, ["records", "now"]).status, 0)
        XCTAssertTrue(try vaultcli(0, ["records", "status", "--json"]).output.contains(#""pendingWrites":0"#))
    }

    func testVerifyComparesTheRecordsAndExitsWithFindingsWhenTheServerDroppedOne() async throws {
        try await noteWrittenByTheLibraryAndPulled()
        try server.psql("DELETE FROM groupsync_entry")

        let verify = try vaultcli(1, ["records", "verify", "--json"])

        XCTAssertEqual(verify.status, 1, verify.errors)
        XCTAssertTrue(verify.output.hasPrefix(#"{"clean":false,"#), verify.output)
        XCTAssertTrue(verify.output.contains(#""missing":1,"#), verify.output)
        XCTAssertEqual(try vaultcli(1, ["records", "verify"]).status, 0, "the dropped record was written back")
    }

    func testWatchVerifiesTheServerEveryGivenIntervalAndWritesBackADroppedRecord() async throws {
        try await noteWrittenByTheLibraryAndPulled()
        try server.psql("DELETE FROM groupsync_entry")

        let watcher = try watch(1, ["records", "watch", "--verify-every", "0.1", "--log-level", "info"])
        let errors = standardError(of: watcher) { $0.contains("sync server verification found") }
        watcher.kill(SIGTERM)
        watcher.wait()

        XCTAssertTrue(errors.contains("missing=1"), errors)
        XCTAssertEqual(try vaultcli(1, ["records", "verify"]).status, 0, "the dropped record was written back")
    }

    func testAShowOfARecordNeverWrittenExitsNotFound() throws {
        XCTAssertEqual(try vaultcli(0, ["records", "show", "note"]).status, 4)
    }

    func testARecordAdoptedFromTheVaultInTheShellIsReadAsItsTypeOnAnotherMachine() async throws {
        let vault = try Vault(keyring: sandbox.keyrings[0], group: SyncSandbox.group)
        try vault.write(Note(text: "hello"), to: "note")

        let adopt = try vaultcli(0, ["records", "adopt", "note", "--json"])
        XCTAssertEqual(adopt.status, 0, adopt.errors)
        XCTAssertEqual(adopt.output, #"{"adopted":true,"name":"note","payloadBytes":16,"schemaVersion":3}"# + "\n")
        XCTAssertEqual(try vaultcli(0, ["records", "now"]).status, 0)

        let two = try records(1)
        try await two.synchronizeWithServer()
        XCTAssertEqual(try two.read(Note.self, from: "note"), Note(text: "hello"))
    }

    func testAnAdoptionOfARecordTheVaultDoesNotHoldExitsNotFound() throws {
        let adopt = try vaultcli(0, ["records", "adopt", "note"])
        XCTAssertEqual(adopt.status, 4, adopt.errors)
        XCTAssertEqual(try records(0).names(), [])
    }

    func testAnAdoptionOfARecordWithAnExpiryIsAUsageErrorThatSaysWhy() throws {
        let vault = try Vault(keyring: sandbox.keyrings[0], group: SyncSandbox.group)
        try vault.write(Note(text: "hello"), to: "note", expiresAt: Date().addingTimeInterval(3600))

        let adopt = try vaultcli(0, ["records", "adopt", "note"])
        XCTAssertEqual(adopt.status, 2, adopt.errors)
        XCTAssertTrue(adopt.errors.contains("synced records do not"), adopt.errors)
        XCTAssertEqual(try records(0).names(), [])
    }

    func testAPayloadThatIsNotJSONIsRefusedAndNothingIsStored() throws {
        let write = try vaultcli(0, ["records", "write", "note", "{text: hello}", "--schema", "3"])
        XCTAssertEqual(write.status, 2, write.errors)
        XCTAssertTrue(write.errors.contains("the payload is not JSON"), write.errors)
        XCTAssertEqual(try records(0).names(), [])
    }

    func testAPayloadThatNamesAMemberTwiceIsRefusedAndNothingIsStored() throws {
        let write = try vaultcli(0, ["records", "write", "note", #"{"text":"a","text":"b"}"#, "--schema", "3"])
        XCTAssertEqual(write.status, 2, write.errors)
        XCTAssertTrue(write.errors.contains("names a member twice"), write.errors)
        XCTAssertEqual(try records(0).names(), [])
    }

    func testAnInvalidRecordNameIsAUsageError() throws {
        let write = try vaultcli(0, ["records", "write", "../note", "{}", "--schema", "3"])
        XCTAssertEqual(write.status, 2, write.errors)
    }

    func testADeletionFromTheShellReachesAnotherMachine() async throws {
        try await noteWrittenByTheLibraryAndPulled()
        XCTAssertEqual(try vaultcli(1, ["records", "delete", "note"]).status, 0)
        XCTAssertEqual(try vaultcli(1, ["records", "now"]).status, 0)

        let one = try records(0)
        try await one.synchronizeWithServer()
        XCTAssertNil(try one.read(Note.self, from: "note"))
    }

    func testWatchPrintsARecordAnotherMachineWrote() async throws {
        // Its first sync done, so that what it hears next is a server change.
        XCTAssertEqual(try vaultcli(1, ["records", "now"]).status, 0)
        let watcher = try watch(1, ["records", "watch", "--count", "1", "--json"])
        let one = try records(0)
        try one.write(Note(text: "hello"), to: "note")
        try await one.synchronizeWithServer()

        XCTAssertEqual(lines(of: watcher) { $0.count >= 2 }.last, #"{"event":"changed","names":["note"],"reason":"serverChange"}"#)
        XCTAssertEqual(watcher.wait(), 0, watcher.standardError)
    }

    func testWatchReportsAWriteThatLostToAnotherMachines() async throws {
        XCTAssertEqual(try vaultcli(1, ["records", "now"]).status, 0)
        XCTAssertEqual(try vaultcli(1, ["records", "write", "note", #"{"text":"second"}"#, "--schema", "3"]).status, 0)
        let one = try records(0)
        try one.write(Note(text: "first"), to: "note")
        try await one.synchronizeWithServer()

        // Its session pulls machine 0's write, which its own pending write of the key lost to.
        let watcher = try watch(1, ["records", "watch", "--count", "2", "--json"])
        XCTAssertEqual(Set(lines(of: watcher) { $0.count >= 3 }.dropFirst()), [
            #"{"event":"changed","names":["note"],"reason":"serverChange"}"#,
            #"{"event":"conflict","name":"note","winningSequence":1}"#,
        ])
        XCTAssertEqual(watcher.wait(), 0, watcher.standardError)
        XCTAssertEqual(try records(1).read(Note.self, from: "note"), Note(text: "first"), "the server's first write wins")
    }
}
