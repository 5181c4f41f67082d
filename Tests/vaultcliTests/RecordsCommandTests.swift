import Foundation
import GroupVaultTestKit
import Keyring
import Vault
import XCTest

/// `vaultcli records`: listing, showing, verifying, resealing, deleting and watching records,
/// and printing names planted in the container safely.
final class RecordsCommandTests: VaultCLITestCase {
    private var recordsDirectory: URL { get throws { URL(fileURLWithPath: try vault().recordsDirectory.string) } }

    func testVerifyAcceptsAuthenticRecords() throws {
        try vault().write(Note(text: "hello"), to: "note")
        assertRun(try vaultcli("records", "verify", "--group", group, "--all"), exits: 0, output: """
            NAME  RESULT  DETAIL
            note  ok      16 payload bytes
            checked 1 record: 1 ok, 0 deleted, 0 refused, 0 missing

            """)
    }

    func testVerifyFailsOnATamperedRecordWithExit1() throws {
        try vault().write(Note(text: "hello"), to: "note")
        let file = try recordsDirectory.appendingPathComponent("note.gvr")
        var bytes = try Data(contentsOf: file)
        bytes[bytes.count - 1] ^= 0x01
        try bytes.write(to: file)
        let result = try vaultcli("records", "verify", "--group", group, "--json")
        XCTAssertEqual(result.status, 1, result.transcript)
        let records = try XCTUnwrap((try JSONSerialization.jsonObject(with: Data(result.output.utf8)) as? [String: Any])?["records"] as? [[String: Any]])
        XCTAssertEqual(records.first?["status"] as? String, "refused")
        XCTAssertEqual(records.first?["code"] as? String, "authenticationFailed")
    }

    /// Issue 11, hole 7: the ledger knows the record, its file was removed; today's verify
    /// sees no files and exits 0.
    func testVerifyReportsARecordTheLedgerKnowsWhoseFileIsGone() throws {
        try vault().write(Note(text: "hello"), to: "note")
        try vault().write(Note(text: "kept"), to: "kept")
        try FileManager.default.removeItem(at: try recordsDirectory.appendingPathComponent("note.gvr"))
        assertRun(try vaultcli("records", "verify", "--group", group), exits: 1, output: """
            NAME  RESULT   DETAIL
            note  missing  missing: the trust ledger knows this record but its file is gone (removed outside GroupVault); \
            write it again, or record the deletion with: vaultcli records delete --group \(group) note
            checked 2 records: 1 ok, 0 deleted, 0 refused, 1 missing

            """)
    }

    /// Issue 11, hole 5: a file name planted in the container with escape codes and a newline
    /// must not reach the terminal raw, in list or verify output.
    func testNamesPlantedInTheContainerArePrintedEscaped() throws {
        try vault().write(Note(text: "hello"), to: "note")
        let planted = "\u{1b}[2J\u{1b}[31mforged\nnote  ok"
        XCTAssertTrue(FileManager.default.createFile(atPath: try recordsDirectory.appendingPathComponent("\(planted).gvr").path, contents: Data("x".utf8)))
        for command in ["list", "verify"] {
            let result = try vaultcli("records", command, "--group", group)
            XCTAssertFalse(result.output.contains("\u{1b}"), "\(command) printed an escape code: \(result.transcript)")
            XCTAssertFalse(result.errors.contains("\u{1b}"), "\(command) printed an escape code: \(result.transcript)")
            XCTAssertTrue(result.output.contains("\\u{1b}[2J\\u{1b}[31mforged\\u{a}note  ok"), "\(command): \(result.output)")
            XCTAssertFalse(result.output.split(separator: "\n").contains { $0.hasPrefix("note  ok") }, "\(command) let the name forge a line: \(result.output)")
        }
    }

    func testListShowsHeadersInATableWithoutThePayload() throws {
        try vault().write(Note(text: "a private thought"), to: "note")
        try vault().write(Note(text: "a private thought"), to: "note")
        assertRun(try vaultcli("records", "list", "--group", group), exits: 0, masked: """
            NAME  BYTES  SEQUENCE  KEY  SCHEMA  ISSUED                EXPIRES  STATE
            note  116    2         1    1       <time>  -        present

            """)
    }

    func testListJSONHasTheDocumentedShape() throws {
        try vault().write(Note(text: "x"), to: "note")
        let records = try XCTUnwrap(try json(try vaultcli("records", "list", "--group", group, "--json"))["records"] as? [[String: Any]])
        XCTAssertEqual(records.first?["name"] as? String, "note")
        let header = try XCTUnwrap(records.first?["header"] as? [String: Any])
        XCTAssertEqual(header["sequence"] as? Int, 1)
        XCTAssertEqual(header["keyID"] as? Int, 1)
        XCTAssertEqual(header["deleted"] as? Bool, false)
    }

    func testShowHidesThePayloadWithoutReveal() throws {
        try vault().write(Note(text: "a private thought"), to: "note")
        assertRun(try vaultcli("records", "show", "--group", group, "note"), exits: 0, masked: """
            FIELD     VALUE
            name      note
            sequence  1
            key       1
            schema    1
            issued    <time>
            expires   -
            payload   28 bytes (hidden; --reveal prints it)

            """)
        assertRun(try vaultcli("records", "show", "--group", group, "note", "--json"), exits: 0, masked: """
            {"header":{"deleted":false,"issued":"<time>","keyID":1,"schemaVersion":1,"sequence":1},"name":"note","payloadBytes":28}

            """)
    }

    func testShowWithRevealPrintsThePayloadAsJSON() throws {
        try vault().write(Note(text: "a private thought"), to: "note")
        let report = try json(try vaultcli("records", "show", "--group", group, "note", "--reveal", "--json"))
        XCTAssertEqual((report["payload"] as? [String: Any])?["text"] as? String, "a private thought")
        XCTAssertEqual((report["header"] as? [String: Any])?["sequence"] as? Int, 1)
    }

    func testShowOfAMissingRecordExits4() throws {
        assertRun(try vaultcli("records", "show", "--group", group, "nothing"), exits: 4,
                  errors: "vaultcli: notFound: record \"nothing\" of \(group) does not exist; it has not been written yet\n")
    }

    func testShowOfAnInvalidNameIsAUsageError() throws {
        assertFails(try vaultcli("records", "show", "--group", group, "../escape"), with: 2, mentioning: [])
    }

    func testDeleteLeavesATombstoneReadersReportAsDeleted() throws {
        try vault().write(Note(text: "x"), to: "note")
        XCTAssertEqual(try vaultcli("records", "delete", "--group", group, "note").status, 0)
        XCTAssertThrowsError(try vault().read(Note.self, from: "note")) { error in
            XCTAssertEqual((error as? VaultError)?.code, .deleted)
        }
        XCTAssertEqual(try vaultcli("records", "verify", "--group", group).status, 0, "an authentic tombstone is not a finding")
    }

    func testResealMovesRecordsToTheNewPrimaryKey() throws {
        let groupID = try GroupIdentifier(validating: group)
        try vault().write(Note(text: "hello"), to: "note")
        try keyring().rotateKey(in: groupID)
        let result = try vaultcli("records", "reseal", "--group", group, "--json")
        XCTAssertEqual(try json(result)["resealed"] as? Int, 1)
        XCTAssertEqual(try vault().list().first?.header.get().keyID, 2)
        try keyring().retireKey(id: 1, in: groupID)
        XCTAssertEqual(try vault().read(Note.self, from: "note"), Note(text: "hello"))
    }

    func testPipedOutputHasNoProgressLines() throws {
        for index in 0..<5 { try vault().write(Note(text: "x"), to: "note-\(index)") }
        let result = try vaultcli("records", "verify", "--group", group)
        XCTAssertEqual(result.errors, "", "stderr is a file here, not a terminal: no progress")
        XCTAssertFalse(result.output.contains("\r"))
    }

    func testWatchPrintsAChangeMadeByAnotherProcess() throws {
        let watcher = try FixtureProcess(["records", "watch", "--group", group, "note", "--count", "1"], environment: environment, executable: "vaultcli")
        // The watcher says when its watch is in place: one write after that is seen.
        try awaitOutput("watching", in: watcher)
        try vault().write(Note(text: "hello"), to: "note")
        XCTAssertEqual(watcher.wait(), 0, watcher.standardError)
        XCTAssertEqual(watcher.standardOutput, "watching record note in \(group)\nwritten note\n")
    }

    func testWatchWritesEachLineAtOnceSoAKilledWatcherLosesNothing() throws {
        // Standard output is a pipe, not a terminal: a buffered line would still be in the
        // process when it is killed, and lost.
        let watcher = try FixtureProcess(["records", "watch", "--group", group], environment: environment, executable: "vaultcli")
        try awaitOutput("watching", in: watcher)
        try vault().write(Note(text: "hello"), to: "note")
        try awaitOutput("written note", in: watcher)
        watcher.kill(SIGKILL)
        watcher.wait()
        XCTAssertEqual(watcher.standardOutput, "watching every record in \(group)\nwritten note\n")
    }

    func testDeleteJSONNamesTheRecord() throws {
        try vault().write(Note(text: "x"), to: "note")
        XCTAssertEqual(try json(try vaultcli("records", "delete", "--group", group, "note", "--json"))["deleted"] as? String, "note")
    }

    func testWatchJSONPrintsOneObjectPerChange() throws {
        let watcher = try FixtureProcess(["records", "watch", "--group", group, "note", "--count", "1", "--json"], environment: environment, executable: "vaultcli")
        try awaitOutput("watching", in: watcher)
        try vault().write(Note(text: "hello"), to: "note")
        XCTAssertEqual(watcher.wait(), 0, watcher.standardError)
        XCTAssertEqual(watcher.standardOutput, #"{"group":"group.com.example.notes","kind":"watching","name":"note"}"# + "\n"
                       + #"{"kind":"written","name":"note"}"# + "\n")
    }

    /// Writes `count` notes and flips a byte of `tampered` of them (sorted by name).
    private func writeNotes(_ count: Int, tampering tampered: Set<String> = []) throws {
        for index in 0..<count { try vault().write(Note(text: "x"), to: "note-\(index)") }
        for name in tampered {
            let file = try recordsDirectory.appendingPathComponent("\(name).gvr")
            var bytes = try Data(contentsOf: file)
            bytes[bytes.count - 1] ^= 0x01
            try bytes.write(to: file)
        }
    }

    /// Verification is Vault.verifyAll's: an expired record is authentic, and refusing it is
    /// its reader's business, so verify counts it ok (as `records show` still refuses it).
    func testVerifyCountsAnExpiredRecordAsOkAsVerifyAllDoes() throws {
        // Written by a writer whose clock is a day behind, so the record expired an hour ago.
        let dayAgo = Date().addingTimeInterval(-86_400)
        let writer = try Vault(keyring: keyring(), group: GroupIdentifier(validating: group), clock: { dayAgo })
        try writer.write(Note(text: "x"), to: "note", expiresAt: dayAgo.addingTimeInterval(82_800))

        assertRun(try vaultcli("records", "verify", "--group", group), exits: 0, output: "checked 1 record: 1 ok, 0 deleted, 0 refused, 0 missing\n")
        XCTAssertEqual(try vaultcli("records", "show", "--group", group, "note").status, 5, "a reader still refuses it")
    }

    func testVerifyPrintsOnlyTheFailuresAndASummary() throws {
        try writeNotes(6, tampering: ["note-3"])
        let result = try vaultcli("records", "verify", "--group", group)
        XCTAssertEqual(result.status, 1, result.transcript)
        let lines = result.output.split(separator: "\n", omittingEmptySubsequences: false)
        XCTAssertEqual(lines.count, 4, result.output)
        XCTAssertEqual(lines[0], "NAME    RESULT   DETAIL")
        XCTAssertTrue(lines[1].hasPrefix("note-3  refused  authenticationFailed: "), result.output)
        XCTAssertEqual(lines[2], "checked 6 records: 5 ok, 0 deleted, 1 refused, 0 missing")
    }

    func testVerifyOfHealthyRecordsPrintsTheSummaryAlone() throws {
        try writeNotes(3)
        let result = try vaultcli("records", "verify", "--group", group)
        XCTAssertEqual(result.output, "checked 3 records: 3 ok, 0 deleted, 0 refused, 0 missing\n")
        XCTAssertEqual(result.status, 0)
    }

    func testVerifyAllPrintsALineForEveryRecord() throws {
        try writeNotes(2)
        let result = try vaultcli("records", "verify", "--group", group, "--all")
        XCTAssertEqual(result.output, """
            NAME    RESULT  DETAIL
            note-0  ok      12 payload bytes
            note-1  ok      12 payload bytes
            checked 2 records: 2 ok, 0 deleted, 0 refused, 0 missing

            """)
    }

    func testListLeavesOutSharedDefaultsEntriesAndSaysWhereTheyAre() throws {
        XCTAssertEqual(try vaultcli("defaults", "write", "--group", group, "theme", "dark").status, 0)
        let result = try vaultcli("records", "list", "--group", group)
        XCTAssertEqual(result.output, """
            no records
            1 SharedDefaults entry not shown (by key: vaultcli defaults list --group group.com.example.notes; as records: --include-internal)

            """)
        let json = try json(try vaultcli("records", "list", "--group", group, "--json"))
        XCTAssertEqual((json["records"] as? [Any])?.count, 0)
        XCTAssertEqual(json["internalHidden"] as? Int, 1)
    }

    func testListWithIncludeInternalShowsSharedDefaultsRecords() throws {
        XCTAssertEqual(try vaultcli("defaults", "write", "--group", group, "theme", "dark").status, 0)
        let records = try XCTUnwrap(try json(try vaultcli("records", "list", "--group", group, "--include-internal", "--json"))["records"] as? [[String: Any]])
        XCTAssertEqual(records.count, 1)
        XCTAssertEqual((records.first?["name"] as? String)?.hasPrefix("sd-"), true)
    }

    func testListStillShowsARecordWhoseNameMerelyStartsWithSd() throws {
        try vault().write(Note(text: "x"), to: "sd-card")
        let records = try XCTUnwrap(try json(try vaultcli("records", "list", "--group", group, "--json"))["records"] as? [[String: Any]])
        XCTAssertEqual(records.map { $0["name"] as? String }, ["sd-card"])
    }
}
