import Foundation
import Keyring
import Vault
import XCTest

/// `vaultcli doctor`: findings name the command that fixes them; exit 1 on any finding.
final class DoctorCommandTests: VaultCLITestCase {
    private func findings(_ result: Run) throws -> [[String: Any]] {
        let object = try JSONSerialization.jsonObject(with: Data(result.output.utf8)) as? [String: Any]
        return try XCTUnwrap(object?["findings"] as? [[String: Any]], result.transcript)
    }

    private func checks(_ result: Run) throws -> [String] {
        try findings(result).compactMap { $0["check"] as? String }
    }

    func testAHealthyHomeHasNoFindings() throws {
        try vault().write(Note(text: "x"), to: "note")
        let result = try vaultcli("doctor")
        XCTAssertEqual(result.status, 0, result.transcript)
        XCTAssertEqual(result.output, "no findings\n")
    }

    func testAWrongModeIsAFindingWithTheChmodThatFixesIt() throws {
        try vault().write(Note(text: "x"), to: "note")
        let keychains = directory.url.appendingPathComponent("home/Keychains").path
        XCTAssertEqual(chmod(keychains, 0o755), 0)
        let result = try vaultcli("doctor", "--json")
        XCTAssertEqual(result.status, 1, result.transcript)
        let finding = try XCTUnwrap(try findings(result).first { $0["subject"] as? String == keychains }, result.output)
        XCTAssertEqual(finding["check"] as? String, "mode")
        XCTAssertEqual(finding["fix"] as? String, "chmod 700 '\(keychains)'")
    }

    func testAStrayTemporaryFileIsAFinding() throws {
        try vault().write(Note(text: "x"), to: "note")
        let records = URL(fileURLWithPath: try vault().recordsDirectory.string)
        XCTAssertTrue(FileManager.default.createFile(atPath: records.appendingPathComponent(".note.gvr.tmp-1a2b3c").path, contents: Data()))
        let result = try vaultcli("doctor", "--json")
        XCTAssertEqual(result.status, 1, result.transcript)
        XCTAssertTrue(try checks(result).contains("stray-file"), result.output)
    }

    func testASymbolicLinkIsAFinding() throws {
        try vault().write(Note(text: "x"), to: "note")
        let records = URL(fileURLWithPath: try vault().recordsDirectory.string)
        try FileManager.default.createSymbolicLink(atPath: records.appendingPathComponent("other.gvr").path, withDestinationPath: "/etc/passwd")
        XCTAssertTrue(try checks(try vaultcli("doctor", "--json")).contains("symlink"))
    }

    func testALockFileThatIsNotARegularFileIsAFinding() throws {
        try vault().write(Note(text: "x"), to: "note")
        let locks = URL(fileURLWithPath: try vault().locksDirectory.string)
        XCTAssertEqual(mkfifo(locks.appendingPathComponent("planted.lock").path, 0o600), 0)
        XCTAssertTrue(try checks(try vaultcli("doctor", "--json")).contains("lock-file"))
    }

    func testARecordSealedWithARetiredKeyIsAFindingNamingTheFix() throws {
        let groupID = try GroupIdentifier(validating: group)
        try vault().write(Note(text: "x"), to: "note")
        try keyring().rotateKey(in: groupID)
        try keyring().retireKey(id: 1, in: groupID)
        let finding = try XCTUnwrap(try findings(try vaultcli("doctor", "--json")).first { $0["check"] as? String == "retired-key" })
        XCTAssertTrue((finding["fix"] as? String)?.contains("vaultcli records delete --group \(group) note") == true, "\(finding)")
    }

    func testALedgerEntryWithoutItsRecordIsAFinding() throws {
        try vault().write(Note(text: "x"), to: "note")
        try FileManager.default.removeItem(atPath: try vault().recordsDirectory.appending("note.gvr").string)
        assertRun(try vaultcli("doctor"), exits: 1, table: [
            ["CHECK", "SUBJECT", "PROBLEM", "FIX"],
            ["missing-record", "group.com.example.notes/note", "the trust ledger knows this record but its file is gone",
             "vaultcli records delete --group group.com.example.notes note"],
        ])
    }

    func testAHealthyUnixGroupSharedHomeHasNoFindings() throws {
        var shared = environment
        shared["GROUPVAULT_SHARING"] = "unixGroup"
        let keyring = try Keyring.fromEnvironment(shared)
        try Vault(keyring: keyring, group: GroupIdentifier(validating: group)).write(Note(text: "x"), to: "note")
        let result = try vaultcli("doctor", environment: shared)
        XCTAssertEqual(result.status, 0, result.transcript)
        XCTAssertEqual(result.output, "no findings\n")
    }
}
