import Foundation
import GroupVaultTestKit
import Keyring
import SealedStorage
import Vault
import XCTest

/// `vaultcli records ledger`: the group's trust ledger as docs/FORMAT.md documents it, so an
/// outsider can check rollback protection without trusting the readers.
final class RecordsLedgerTests: VaultCLITestCase {
    private var recordsDirectory: URL { get throws { URL(fileURLWithPath: try vault().recordsDirectory.string) } }

    private func ledgerRows() throws -> [[String: Any]] {
        try XCTUnwrap(try json(try vaultcli("records", "ledger", "--group", group, "--json"))["rows"] as? [[String: Any]])
    }

    func testJSONShowsEachRowAsTheLibraryReadsIt() throws {
        try vault().write(Note(text: "one"), to: "note")
        try vault().write(Note(text: "two"), to: "note")
        let expected = try XCTUnwrap(try vault().ledgerRows().first)

        let row = try XCTUnwrap(try ledgerRows().first)

        XCTAssertEqual(row["record"] as? String, "note")
        XCTAssertEqual(row["confirmed"] as? Int, 2)
        XCTAssertEqual(row["confirmedDigest"] as? String, expected.confirmedDigest)
        XCTAssertNil(row["pending"], "no write in flight: \(row)")
        XCTAssertNil(row["pendingDigest"], "no write in flight: \(row)")
        XCTAssertEqual(row["tag"] as? String, Hex.lowercase(expected.tag))
        XCTAssertEqual(row["authentic"] as? Bool, true)
        XCTAssertEqual(row["fileSequence"] as? Int, 2)
    }

    /// The outsider's check: an older blob put back shows a file sequence below the confirmed one.
    func testAnOlderBlobPutBackShowsAFileSequenceBelowTheConfirmedOne() throws {
        try vault().write(Note(text: "signed in"), to: "note")
        let file = try recordsDirectory.appendingPathComponent("note.gvr")
        let older = try Data(contentsOf: file)
        try vault().write(Note(text: "signed out"), to: "note")
        try older.write(to: file)

        let row = try XCTUnwrap(try ledgerRows().first)

        XCTAssertEqual(row["confirmed"] as? Int, 2)
        XCTAssertEqual(row["fileSequence"] as? Int, 1)
    }

    func testTableHasARowPerRecordWithItsState() throws {
        try vault().write(Note(text: "x"), to: "note")
        let result = try vaultcli("records", "ledger", "--group", group)
        XCTAssertEqual(result.status, 0, result.transcript)
        let lines = result.output.split(separator: "\n")
        XCTAssertTrue(lines.first?.hasPrefix("RECORD") == true, result.output)
        XCTAssertTrue(lines.contains { $0.hasPrefix("note") && $0.contains("authentic") }, result.output)
    }

    func testAGroupNothingWroteSaysSo() throws {
        let result = try vaultcli("records", "ledger", "--group", group)
        XCTAssertEqual(result.status, 0, result.transcript)
        XCTAssertEqual(result.output, "no ledger rows (nothing was written to this group)\n")
    }

    /// A row altered without the master key is shown, marked, and the command exits 1, as
    /// `records verify` does for a finding.
    func testARowAlteredWithoutTheMasterKeyIsMarkedAndExits1() throws {
        try vault().write(Note(text: "x"), to: "note")
        let digest = try XCTUnwrap(try vault().ledgerRows().first?.confirmedDigest)
        KeyringDatabase.closeAll()
        let database = directory.url.appendingPathComponent("home/Keychains").appendingPathComponent(KeyringDatabase.fileName)
        var bytes = Array(try Data(contentsOf: database))
        let offset = try XCTUnwrap(bytes.indices.first { Array(bytes[$0...].prefix(digest.utf8.count)) == Array(digest.utf8) })
        bytes[offset] = bytes[offset] == UInt8(ascii: "0") ? UInt8(ascii: "1") : UInt8(ascii: "0")
        for suffix in ["-wal", "-shm"] { try? FileManager.default.removeItem(atPath: database.path + suffix) }
        try Data(bytes).write(to: database)

        let result = try vaultcli("records", "ledger", "--group", group, "--json")

        XCTAssertEqual(result.status, 1, result.transcript)
        let rows = try XCTUnwrap((try JSONSerialization.jsonObject(with: Data(result.output.utf8)) as? [String: Any])?["rows"] as? [[String: Any]])
        XCTAssertEqual(rows.first?["authentic"] as? Bool, false)
    }
}
