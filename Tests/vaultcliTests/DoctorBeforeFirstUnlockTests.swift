import Foundation
import Vault
import XCTest

/// `vaultcli doctor` on a passphrase home after a reboot or logout: nothing is wrong that
/// unlocking does not fix, so the advice is `vaultcli unlock`, never a key import from a backup.
final class DoctorBeforeFirstUnlockTests: PassphraseTestCase {
    private func arrangeAHomeBeforeItsFirstUnlock() throws {
        try vault().write(Note(text: "x"), to: "note")
        let set = try run(["passphrase", "set", "--passphrase-fd", "0", "--argon2-cost", "minimum"],
                          input: "tr0ub4dor&3-passphrase\n", environment: environment)
        XCTAssertEqual(set.status, 0, set.transcript)
        // What logout or reboot does: the runtime directory is emptied.
        try FileManager.default.removeItem(at: runtimeDirectory.appendingPathComponent("groupvault"))
        XCTAssertEqual(try json(try vaultcli("lock-state", "--json"))["state"] as? String, "beforeFirstUnlock")
    }

    func testDoctorBeforeTheFirstUnlockRecommendsUnlockAndNeverAKeyImport() throws {
        try arrangeAHomeBeforeItsFirstUnlock()
        let result = try vaultcli("doctor", "--json")
        XCTAssertEqual(result.status, 1, result.transcript)
        let object = try JSONSerialization.jsonObject(with: Data(result.output.utf8)) as? [String: Any]
        let findings = try XCTUnwrap(object?["findings"] as? [[String: Any]], result.transcript)
        let fixes = findings.compactMap { $0["fix"] as? String }
        XCTAssertFalse(fixes.contains { $0.contains("keys import") }, result.output)
        XCTAssertTrue(fixes.contains { $0.hasPrefix("vaultcli unlock") }, result.output)
    }

    func testDoctorThatCannotReadTheLockStateSaysWhyAndNeverRecommendsAKeyImport() throws {
        try arrangeAHomeBeforeItsFirstUnlock()
        var withoutRuntimeDirectory = environment
        withoutRuntimeDirectory["XDG_RUNTIME_DIR"] = nil
        let result = try vaultcli("doctor", environment: withoutRuntimeDirectory)
        XCTAssertEqual(result.status, 1, result.transcript)
        XCTAssertFalse(result.output.contains("keys import"), result.transcript)
        XCTAssertTrue(result.output.contains("lock-state") && result.output.contains("XDG_RUNTIME_DIR"), result.transcript)
    }

    func testDoctorBeforeTheFirstUnlockSaysSoInText() throws {
        try arrangeAHomeBeforeItsFirstUnlock()
        let result = try vaultcli("doctor")
        XCTAssertEqual(result.status, 1, result.transcript)
        XCTAssertFalse(result.output.contains("keys import"), result.transcript)
        XCTAssertTrue(result.output.contains("before its first unlock"), result.transcript)
    }
}
