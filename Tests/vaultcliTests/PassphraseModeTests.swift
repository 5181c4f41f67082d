import Foundation
import XCTest

/// Passphrase mode: the master secret wrapped under Argon2id, the lock state the machine's.
/// Every step runs the built vaultcli in its own process, as a user would; passphrases go in on
/// standard input through `--passphrase-fd 0`, with libsodium's minimum Argon2id cost.
final class PassphraseModeTests: PassphraseTestCase {
    private let passphrase = "tr0ub4dor&3-passphrase"
    private let secret = "s3cret-for-the-mail-account"
    private var transcripts: [String] = []

    override func setUpWithError() throws {
        try super.setUpWithError()
        transcripts = []
    }

    /// Runs vaultcli and keeps its transcript, so tests can check no output ever held a passphrase.
    private func cli(_ arguments: String..., input: String? = nil, environment: [String: String]? = nil) throws -> Run {
        let result = try run(arguments, input: input, environment: environment ?? self.environment)
        transcripts.append(result.transcript)
        return result
    }

    private func setPassphrase() throws {
        let result = try cli("passphrase", "set", "--passphrase-fd", "0", "--argon2-cost", "minimum", input: passphrase + "\n")
        XCTAssertEqual(result.status, 0, result.transcript)
    }

    private func unlock(with phrase: String) throws -> Run {
        try cli("unlock", "--passphrase-fd", "0", "--argon2-cost", "minimum", "--json", input: phrase + "\n")
    }

    private func state() throws -> String? {
        try json(try cli("lock-state", "--json"))["state"] as? String
    }

    private func addItem(service: String, accessibility: String) throws {
        let result = try cli("items", "add", "--service", service, "--account", "ada", "--accessibility", accessibility, input: secret)
        XCTAssertEqual(result.status, 0, result.transcript)
    }

    private func reveal(service: String) throws -> Run {
        try cli("items", "show", "--service", service, "--reveal")
    }

    private func assertNoPassphraseInAnyOutput(file: StaticString = #filePath, line: UInt = #line) {
        for transcript in transcripts {
            XCTAssertFalse(transcript.contains(passphrase), "the passphrase was printed:\n\(transcript)", file: file, line: line)
            XCTAssertFalse(transcript.contains("wrong-passphrase"), "a tried passphrase was printed:\n\(transcript)", file: file, line: line)
        }
    }

    func testSettingAPassphraseReplacesThePlainMasterKeyAndLeavesTheHomeUnlocked() throws {
        try addItem(service: "before", accessibility: "whenUnlocked")
        try setPassphrase()
        let keychains = directory.url.appendingPathComponent("home/Keychains")
        XCTAssertFalse(FileManager.default.fileExists(atPath: keychains.appendingPathComponent("master.key").path))
        XCTAssertTrue(FileManager.default.fileExists(atPath: keychains.appendingPathComponent("passphrase.wrapped").path))
        XCTAssertTrue(FileManager.default.fileExists(atPath: keychains.appendingPathComponent("master.key.sealed").path))
        XCTAssertEqual(try state(), "unlocked")
        XCTAssertTrue(try reveal(service: "before").output.contains(secret), "items made before keep their secret")
        assertNoPassphraseInAnyOutput()
    }

    func testWhenUnlockedItemCannotBeReadAfterLockInAnotherProcessAndCanAfterUnlock() throws {
        try setPassphrase()
        try addItem(service: "mail", accessibility: "whenUnlocked")
        XCTAssertEqual(try cli("lock").status, 0)
        XCTAssertEqual(try state(), "locked")
        let locked = try reveal(service: "mail")
        assertFails(locked, with: 5, mentioning: ["locked"])
        XCTAssertFalse(locked.output.contains(secret), locked.transcript)
        XCTAssertEqual(try unlock(with: passphrase).status, 0)
        let unlocked = try reveal(service: "mail")
        XCTAssertEqual(unlocked.status, 0, unlocked.transcript)
        XCTAssertTrue(unlocked.output.contains(secret), unlocked.transcript)
        assertNoPassphraseInAnyOutput()
    }

    func testAfterFirstUnlockItemStaysReadableWhileLocked() throws {
        try setPassphrase()
        try addItem(service: "widget", accessibility: "afterFirstUnlock")
        XCTAssertEqual(try cli("lock").status, 0)
        let result = try reveal(service: "widget")
        XCTAssertEqual(result.status, 0, result.transcript)
        XCTAssertTrue(result.output.contains(secret), result.transcript)
    }

    func testNothingIsReadableBeforeTheFirstUnlockSinceBoot() throws {
        try setPassphrase()
        try addItem(service: "widget", accessibility: "afterFirstUnlock")
        // What logout or reboot does: the runtime directory is emptied.
        try FileManager.default.removeItem(at: runtimeDirectory.appendingPathComponent("groupvault"))
        XCTAssertEqual(try state(), "beforeFirstUnlock")
        assertFails(try reveal(service: "widget"), with: 5, mentioning: ["(run: vaultcli unlock)"])
        XCTAssertEqual(try unlock(with: passphrase).status, 0)
        XCTAssertTrue(try reveal(service: "widget").output.contains(secret))
    }

    func testWrongPassphraseIsRefusedWithAReasonAndUnlocksNothing() throws {
        try setPassphrase()
        try addItem(service: "mail", accessibility: "whenUnlocked")
        XCTAssertEqual(try cli("lock").status, 0)
        let refused = try unlock(with: "wrong-passphrase")
        assertFails(refused, with: 5, mentioning: ["passphrase is wrong"])
        XCTAssertEqual(try state(), "locked")
        assertFails(try reveal(service: "mail"), with: 5, mentioning: [])
        assertNoPassphraseInAnyOutput()
    }

    func testChangingThePassphraseRewrapsSoOnlyTheNewOneUnlocks() throws {
        try setPassphrase()
        try addItem(service: "mail", accessibility: "whenUnlocked")
        let newPassphrase = "a-new-passphrase-0"
        let change = try cli("passphrase", "change", "--passphrase-fd", "0", "--argon2-cost", "minimum", input: "\(passphrase)\n\(newPassphrase)\n")
        XCTAssertEqual(change.status, 0, change.transcript)
        XCTAssertEqual(try cli("lock").status, 0)
        assertFails(try unlock(with: passphrase), with: 5, mentioning: ["passphrase is wrong"])
        XCTAssertEqual(try unlock(with: newPassphrase).status, 0)
        XCTAssertTrue(try reveal(service: "mail").output.contains(secret), "the items are unchanged")
        XCTAssertFalse(transcripts.contains { $0.contains(newPassphrase) })
        assertNoPassphraseInAnyOutput()
    }

    func testChangeWithAWrongCurrentPassphraseChangesNothing() throws {
        try setPassphrase()
        let change = try cli("passphrase", "change", "--passphrase-fd", "0", "--argon2-cost", "minimum", input: "wrong-passphrase\nother-passphrase\n")
        assertFails(change, with: 5, mentioning: ["passphrase is wrong"])
        XCTAssertEqual(try unlock(with: passphrase).status, 0)
        assertNoPassphraseInAnyOutput()
    }

    func testLockStateCannotBeSetInPassphraseMode() throws {
        try setPassphrase()
        XCTAssertEqual(try cli("lock").status, 0)
        assertFails(try cli("lock-state", "unlocked"), with: 5, mentioning: ["(run: vaultcli unlock)"])
        XCTAssertEqual(try state(), "locked")
    }

    func testLockingByLockStateInPassphraseModeNamesVaultcliLock() throws {
        try setPassphrase()
        assertFails(try cli("lock-state", "locked"), with: 5, mentioning: ["(run: vaultcli lock)"])
        XCTAssertEqual(try state(), "unlocked")
    }

    func testUnlockReportsNoUpgradeWhenTheStoredCostIsTheCurrentOne() throws {
        // The upgrade itself is KeyringTests/PassphraseLockStateTests (a real upgrade to the
        // production cost would cost 256 MiB per test run).
        try setPassphrase()
        XCTAssertEqual(try json(try unlock(with: passphrase))["upgraded"] as? Bool, false)
    }

    func testUnlockedKeyFilesHaveMode0600InAPrivateDirectory() throws {
        try setPassphrase()
        XCTAssertEqual(try unlock(with: passphrase).status, 0)
        let runtime = runtimeDirectory.appendingPathComponent("groupvault")
        let names = try FileManager.default.contentsOfDirectory(atPath: runtime.path).sorted()
        XCTAssertEqual(names.count, 2, "\(names)")
        XCTAssertEqual(Set(names.map { ($0 as NSString).pathExtension }), ["master", "unlock"])
        for name in names {
            let mode = try XCTUnwrap(FileManager.default.attributesOfItem(atPath: runtime.appendingPathComponent(name).path)[.posixPermissions] as? Int)
            XCTAssertEqual(mode, 0o600, name)
        }
        let directoryMode = try XCTUnwrap(FileManager.default.attributesOfItem(atPath: runtime.path)[.posixPermissions] as? Int)
        XCTAssertEqual(directoryMode, 0o700)
    }

    func testLockRemovesTheUnlockKeyAndKeepsTheAfterFirstUnlockSecret() throws {
        try setPassphrase()
        XCTAssertEqual(try json(try cli("lock", "--json"))["state"] as? String, "locked")
        let names = try FileManager.default.contentsOfDirectory(atPath: runtimeDirectory.appendingPathComponent("groupvault").path)
        XCTAssertEqual(names.map { ($0 as NSString).pathExtension }, ["master"])
    }

    func testUnlockRefusesARuntimeDirectoryOthersCanRead() throws {
        try setPassphrase()
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: runtimeDirectory.path)
        assertFails(try unlock(with: passphrase), with: 6, mentioning: ["XDG_RUNTIME_DIR", "not 700"])
    }

    func testUnlockRefusesWithoutARuntimeDirectory() throws {
        try setPassphrase()
        var environment = self.environment
        environment["XDG_RUNTIME_DIR"] = nil
        let result = try cli("unlock", "--passphrase-fd", "0", "--argon2-cost", "minimum", input: passphrase + "\n", environment: environment)
        assertFails(result, with: 6, mentioning: ["XDG_RUNTIME_DIR is not set"])
    }

    func testAPassphraseGivenAsAnArgumentIsAUsageError() throws {
        // Arguments are world-readable in /proc/<pid>/cmdline: there is no option that takes one.
        let set = try cli("passphrase", "set", "--passphrase", passphrase)
        XCTAssertEqual(set.status, 2, set.transcript)
        let unlock = try cli("unlock", passphrase)
        XCTAssertEqual(unlock.status, 2, unlock.transcript)
        XCTAssertFalse(FileManager.default.fileExists(atPath: directory.url.appendingPathComponent("home/Keychains/passphrase.wrapped").path))
    }

    func testPassphraseFromAnEmptyDescriptorIsAUsageError() throws {
        assertFails(try cli("passphrase", "set", "--passphrase-fd", "0", "--argon2-cost", "minimum", input: ""), with: 2, mentioning: ["--passphrase-fd"])
    }
}
