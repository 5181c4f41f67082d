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
        assertRun(try vaultcli("doctor", environment: withoutRuntimeDirectory), exits: 1, table: [
            ["CHECK", "SUBJECT", "PROBLEM", "FIX"],
            ["lock-state", "<dir>/home",
             "XDG_RUNTIME_DIR is not set: a home with a passphrase keeps its unlocked keys in the per-user runtime directory (a tmpfs emptied at logout); run in a login session, or set XDG_RUNTIME_DIR to a directory you own with mode 0700",
             "# the lock state cannot be read, so neither can keysets: see the problem"],
        ])
    }

    func testDoctorBeforeTheFirstUnlockSaysSoInText() throws {
        try arrangeAHomeBeforeItsFirstUnlock()
        assertRun(try vaultcli("doctor"), exits: 1, table: [
            ["CHECK", "SUBJECT", "PROBLEM", "FIX"],
            ["lock-state", "<dir>/home",
             "the home is before its first unlock (since boot or login): keysets and records cannot be checked until it is unlocked", "vaultcli unlock"],
        ])
    }
}
