import Foundation
import GroupVaultTestKit
import Keyring
@testable import vaultcli
import XCTest

/// The vaultcli command for each library remedy: what a person types for what the library
/// says as a value. The hint is mapped from the remedy alone, never from a reason's words.
final class RemedyCommandTests: XCTestCase {
    private let group = "group.com.example.notes"

    private func assertMaps(_ remedy: ErrorRemedy, to hint: String, command: String, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertEqual(RemedyCommand(remedy), RemedyCommand(hint: hint, command: command), "\(remedy)", file: file, line: line)
    }

    func testRotateKeyNamesKeysRotateForTheGroup() {
        assertMaps(.rotateKey(group: group), to: "run: vaultcli keys rotate --group \(group)", command: "vaultcli keys rotate --group \(group)")
    }

    func testResealRecordsNamesRecordsResealForTheGroup() {
        assertMaps(.resealRecords(group: group), to: "run: vaultcli records reseal --group \(group)", command: "vaultcli records reseal --group \(group)")
    }

    func testCreateKeySaysTheFirstRecordCreatesOneOrKeysCreate() {
        assertMaps(.createKey(group: group), to: "the first record written creates one; or: vaultcli keys create --group \(group)",
                   command: "vaultcli keys create --group \(group)")
    }

    func testImportKeyNamesKeysImportWithTheKeyID() {
        assertMaps(.importKey(group: group, keyID: 3), to: "run: vaultcli keys import --group \(group) --id 3 --reveal",
                   command: "vaultcli keys import --group \(group) --id 3 --reveal")
    }

    func testImportKeyOfAnUnknownIDLeavesTheIDToFillIn() {
        assertMaps(.importKey(group: group), to: "run: vaultcli keys import --group \(group) --id ID --reveal",
                   command: "vaultcli keys import --group \(group) --id ID --reveal")
    }

    func testGrantEntitlementPointsAtTheIdentityCommand() {
        assertMaps(.grantEntitlement(group: group), to: "see: vaultcli identity", command: "vaultcli identity")
    }

    func testUnlockOfAHomeWithoutPassphraseSetsTheLockState() throws {
        let directory = try TemporaryDirectory(prefix: "remedy-command")
        defer { directory.remove() }
        let root = directory.url.appendingPathComponent("home").path
        try KeyringHome(root: URL(fileURLWithPath: root)).setLockState(.locked)
        assertMaps(.unlock(home: root), to: "run: vaultcli lock-state unlocked", command: "vaultcli lock-state unlocked")
    }

    func testUnlockOfAnUnnamedHomeIsVaultcliUnlock() {
        assertMaps(.unlock, to: "run: vaultcli unlock", command: "vaultcli unlock")
    }

    func testLockNamesVaultcliLock() {
        assertMaps(.lock(home: "/nonexistent"), to: "run: vaultcli lock", command: "vaultcli lock")
    }

    func testRunCommandRunsItsCommand() {
        assertMaps(.runCommand("vaultcli doctor"), to: "run: vaultcli doctor", command: "vaultcli doctor")
    }

    func testRemediesNoCommandCarriesOutHaveNoHint() {
        for remedy in [ErrorRemedy.retry, .freeSpace, .fixPermissions(path: "/x"), .restoreFromBackup(path: "/x"), ErrorRemedy(ErrorRemedy.Kind(rawValue: "future"))] {
            XCTAssertNil(RemedyCommand(remedy), "\(remedy)")
        }
    }

    func testASentenceIsTheEscapedReasonThenTheHint() {
        XCTAssertEqual(RemedyCommand.sentence("key #1 is primary\u{1b}[2J: rotate first", remedy: .rotateKey(group: group)),
                       "key #1 is primary\\u{1b}[2J: rotate first (run: vaultcli keys rotate --group \(group))")
    }

    func testASentenceWithoutARemedyIsTheEscapedReasonAlone() {
        XCTAssertEqual(RemedyCommand.sentence("the disk is full; free disk space", remedy: .freeSpace), "the disk is full; free disk space")
    }
}
