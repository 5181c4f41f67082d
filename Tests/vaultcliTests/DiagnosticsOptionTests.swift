import Foundation
import GroupVaultTestKit
import XCTest

/// `--verbose` and `--log-level`: the library's diagnostics on standard error, silent unless asked.
final class DiagnosticsOptionTests: VaultCLITestCase {
    /// A record whose last byte was flipped, so every read refuses it (and logs the refusal).
    override func setUpWithError() throws {
        try super.setUpWithError()
        try vault().write(Note(text: "hello"), to: "note")
        let file = URL(fileURLWithPath: try vault().recordsDirectory.string).appendingPathComponent("note.gvr")
        var bytes = try Data(contentsOf: file)
        bytes[bytes.count - 1] ^= 0x01
        try bytes.write(to: file)
    }

    func testVerboseLogsARefusedRecordWithItsReasonOnStandardError() throws {
        let result = try vaultcli("records", "verify", "--group", group, "--verbose")
        XCTAssertEqual(result.status, 1, result.transcript)
        let line = try XCTUnwrap(result.errors.split(separator: "\n").first { $0.hasPrefix("vaultcli[debug]: record refused") }, result.transcript)
        XCTAssertTrue(line.contains("reason=authenticationFailed"), String(line))
        XCTAssertTrue(line.contains("group=\(group)"), String(line))
    }

    func testWithoutTheOptionsNothingIsLogged() throws {
        let result = try vaultcli("records", "verify", "--group", group)
        XCTAssertEqual(result.status, 1, result.transcript)
        XCTAssertFalse(result.errors.contains("vaultcli["), result.transcript)
    }

    /// Refusals the caller receives anyway are `.debug`, so `info` leaves them out.
    func testLogLevelInfoLeavesOutDebugLines() throws {
        let result = try vaultcli("records", "verify", "--group", group, "--log-level", "info")
        XCTAssertEqual(result.status, 1, result.transcript)
        XCTAssertFalse(result.errors.contains("vaultcli[debug]"), result.transcript)
    }

    func testLogLevelDebugIsTheSameAsVerbose() throws {
        let result = try vaultcli("records", "verify", "--group", group, "--log-level", "debug")
        XCTAssertTrue(result.errors.contains("vaultcli[debug]: record refused"), result.transcript)
    }

    func testAnUnknownLogLevelIsAUsageError() throws {
        let result = try vaultcli("records", "verify", "--group", group, "--log-level", "loud")
        XCTAssertEqual(result.status, 2, result.transcript)
    }
}
