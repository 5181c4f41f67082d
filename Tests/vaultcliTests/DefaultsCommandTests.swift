import Foundation
import GroupVaultTestKit
import XCTest

/// `vaultcli defaults`, run as a user runs it: the built executable in a child process.
final class DefaultsCommandTests: VaultCLITestCase {
    func testWriteThenReadShowsTheTypeAndTheValueOnlyWithReveal() throws {
        XCTAssertEqual(try vaultcli("defaults", "write", "--group", group, "theme", "dark").status, 0)
        let hidden = try vaultcli("defaults", "read", "--group", group, "theme")
        XCTAssertEqual(hidden.status, 0, hidden.errors)
        XCTAssertEqual(hidden.output, "string (4 bytes)\n")
        let revealed = try vaultcli("defaults", "read", "--group", group, "theme", "--reveal")
        XCTAssertEqual(revealed.output, "\"dark\"\n", "a value as a person writes it, not the tagged form")
    }

    func testListHidesValuesUnlessRevealedAndSpeaksJSON() throws {
        XCTAssertEqual(try vaultcli("defaults", "write", "--group", group, "refresh", "30", "--type", "int").status, 0)
        let list = try vaultcli("defaults", "list", "--group", group)
        XCTAssertEqual(list.output, "KEY        TYPE\n\"refresh\"  int\n")
        let json = try vaultcli("defaults", "list", "--group", group, "--json", "--reveal")
        XCTAssertEqual(json.status, 0, json.errors)
        XCTAssertEqual(json.output, "{\"group\":\"\(group)\",\"keys\":[{\"key\":\"refresh\",\"type\":\"int\",\"value\":{\"int\":30}}],\"refused\":[],\"suite\":\"\(group)\"}\n")
    }

    func testAnEntryWhoseRecordFileWasDeletedIsListedAndReadAsRefusedMissingNotAbsent() throws {
        // Someone who can write the container deletes one setting's record file: the operator
        // must see a refusal, not a key that reads as never set (issue 18's silent reset).
        XCTAssertEqual(try vaultcli("defaults", "write", "--group", group, "first", "x").status, 0)
        let before = try recordFiles()
        XCTAssertEqual(try vaultcli("defaults", "write", "--group", group, "theme", "dark").status, 0)
        let added = try recordFiles().subtracting(before)
        XCTAssertEqual(added.count, 1, "\(added)")
        try FileManager.default.removeItem(atPath: added.first!)

        let list = try vaultcli("defaults", "list", "--group", group, "--json")
        XCTAssertEqual(list.status, 1, list.errors)
        let listed = try JSONSerialization.jsonObject(with: Data(list.output.utf8)) as? [String: Any]
        let refused = listed?["refused"] as? [[String: Any]]
        XCTAssertEqual(refused?.map { $0["code"] as? String }, ["missing"], list.output)
        // The key is sealed inside the deleted file: the entry is named by its record, never
        // by a record name passed off as a key.
        XCTAssertNil(refused?.first?["key"], list.output)
        XCTAssertEqual((refused?.first?["record"] as? String)?.hasPrefix("sd-"), true, list.output)
        let missing = #"record "sd-<entry>" of group.com.example.notes is missing: the trust ledger of group.com.example.notes has confirmed its sequence 1, but its file is gone. A delete leaves a sealed tombstone, so the file was removed outside GroupVault; write or delete the record again to replace it, or restore the file"#
        assertRun(try vaultcli("defaults", "list", "--group", group), exits: 1, masked: """
            KEY      TYPE
            "first"  string (1 bytes)
            record sd-<entry>  refused: missing: \(missing)

            """)
        // A refused read exits 5 (refused), never 4 (absent).
        assertRun(try vaultcli("defaults", "read", "--group", group, "theme", "--json"), exits: 5, masked: """
            {"key":"theme","reason":"the entry of \\"theme\\" in suite \\"group.com.example.notes\\" was refused: \(missing.replacing("\"", with: "\\\""))","refused":"missing"}

            """)
    }

    /// The paths of every sealed record file under the test's home.
    private func recordFiles() throws -> Set<String> {
        let home = directory.url.appendingPathComponent("home").path
        let found = FileManager.default.enumerator(atPath: home)?.compactMap { $0 as? String } ?? []
        return Set(found.filter { $0.hasSuffix(".gvr") }.map { home + "/" + $0 })
    }

    func testDeleteRemovesTheKeyAndReadThenExitsFourNotFound() throws {
        XCTAssertEqual(try vaultcli("defaults", "write", "--group", group, "gone", "x").status, 0)
        XCTAssertEqual(try vaultcli("defaults", "delete", "--group", group, "gone").status, 0)
        let read = try vaultcli("defaults", "read", "--group", group, "gone", "--json")
        XCTAssertEqual(read.status, 4, "absent is not found (4), as documented: \(read.errors)")
        XCTAssertEqual(read.output, "{\"absent\":true,\"key\":\"gone\"}\n")
    }

    func testAValueThatDoesNotParseAsItsTypeIsRefused() throws {
        assertRun(try vaultcli("defaults", "write", "--group", group, "n", "thirty", "--type", "int"), exits: 2, errors: """
            vaultcli: "thirty" is not a valid int (see: vaultcli defaults write --help)

            """)
    }

    func testImportDryRunListsKeysAndImportRemovesThePlist() throws {
        let plist = directory.url.appendingPathComponent("prefs.plist")
        try PropertyListSerialization.data(fromPropertyList: ["theme": "dark", "refresh": 30], format: .binary, options: 0).write(to: plist)
        let dryRun = try vaultcli("defaults", "import", "--group", group, "--file", plist.path, "--dry-run")
        XCTAssertEqual(dryRun.status, 0, dryRun.errors)
        XCTAssertEqual(dryRun.output, "would move \"refresh\" (int)\nwould move \"theme\" (string (4 bytes))\n")
        XCTAssertTrue(FileManager.default.fileExists(atPath: plist.path))
        assertRun(try vaultcli("defaults", "import", "--group", group, "--file", plist.path, "--json"), exits: 0, output: """
            {"dryRun":false,"file":"\(plist.path)","fileRemoved":true,"kept":[],"moved":["refresh","theme"],"skipped":{}}

            """)
        XCTAssertFalse(FileManager.default.fileExists(atPath: plist.path))
        XCTAssertEqual(try vaultcli("defaults", "read", "--group", group, "refresh", "--reveal").output, "30\n")
    }

    func testListWithRevealShowsATableOfValuesAsAPersonWritesThem() throws {
        for (key, value, type) in [("refresh", "30", "int"), ("theme", "dark", "string"), ("beta", "true", "bool"),
                                   ("tags", #"{"array":[{"string":"a"},{"int":1}]}"#, "json")] {
            XCTAssertEqual(try vaultcli("defaults", "write", "--group", group, key, value, "--type", type).status, 0, key)
        }
        let list = try vaultcli("defaults", "list", "--group", group, "--reveal")
        XCTAssertEqual(list.status, 0, list.errors)
        XCTAssertEqual(list.output, """
            KEY        TYPE              VALUE
            "beta"     bool              true
            "refresh"  int               30
            "tags"     array (2 items)   ["a",1]
            "theme"    string (4 bytes)  "dark"

            """)
    }
}
