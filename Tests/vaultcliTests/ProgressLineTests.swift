import Foundation
import Keyring
import Vault
import XCTest

/// The progress line shown on a terminal is cleared before anything else is written: a
/// result, or an error that ends the command part-way.
final class ProgressLineTests: VaultCLITestCase {
    /// Whether every `vaultcli: ` error in `transcript` starts its own line on the screen:
    /// after a newline, or after the carriage return and erase-line that clear a progress line.
    private func errorsStartTheirLine(_ transcript: String) -> Bool {
        var rest = Substring(transcript)
        while let range = rest.range(of: "vaultcli: ") {
            let before = rest[..<range.lowerBound]
            guard before.isEmpty || before.hasSuffix("\n") || before.hasSuffix("\r\u{1B}[K") else { return false }
            rest = rest[range.upperBound...]
        }
        return true
    }

    func testAnErrorPartWayThroughResealIsNotWrittenOntoTheProgressLine() throws {
        let groupID = try GroupIdentifier(validating: group)
        for index in 0..<3 { try vault().write(Note(text: "x"), to: "note-\(index)") }
        // Records under a retired key cannot be resealed: reseal fails after showing progress.
        try keyring().rotateKey(in: groupID)
        try keyring().retireKey(id: 1, in: groupID)
        try keyring().rotateKey(in: groupID)

        let reseal = try PseudoTerminalSession.run(vaultcliURL, ["records", "reseal", "--group", group], environment: environment, exchanges: [])

        XCTAssertEqual(reseal.status, 5, reseal.transcript)
        XCTAssertTrue(reseal.transcript.contains("resealing "), "progress was shown: \(reseal.transcript.debugDescription)")
        XCTAssertTrue(reseal.transcript.contains("vaultcli: retiredKey"), reseal.transcript.debugDescription)
        XCTAssertTrue(errorsStartTheirLine(reseal.transcript), "the error was glued to the progress line: \(reseal.transcript.debugDescription)")
    }

    func testVerifyClearsItsProgressLineBeforeTheResult() throws {
        for index in 0..<3 { try vault().write(Note(text: "x"), to: "note-\(index)") }

        let verify = try PseudoTerminalSession.run(vaultcliURL, ["records", "verify", "--group", group], environment: environment, exchanges: [])

        XCTAssertEqual(verify.status, 0, verify.transcript)
        XCTAssertTrue(verify.transcript.contains("verifying "), verify.transcript.debugDescription)
        XCTAssertTrue(verify.transcript.contains("\r\u{1B}[Kchecked 3 records"), verify.transcript.debugDescription)
    }
}
