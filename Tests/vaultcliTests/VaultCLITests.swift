import Foundation
import GroupVaultTestKit
import Keyring
import Vault
import XCTest

/// vaultcli, tested as a user runs it: the built executable in a child process, checked by its
/// output and exit status.
final class VaultCLITests: XCTestCase {
    private var directory: TemporaryDirectory!
    private let team = "ABCDE12345"
    private let group = "group.com.example.notes"

    override func setUpWithError() throws {
        directory = try TemporaryDirectory(prefix: "vaultcli")
        let entitlements = """
            <?xml version="1.0" encoding="UTF-8"?>
            <plist version="1.0"><dict>
            <key>com.apple.security.application-groups</key><array><string>\(group)</string></array>
            <key>keychain-access-groups</key><array><string>$(TeamIdentifierPrefix)com.example.shared</string></array>
            </dict></plist>
            """
        try Data(entitlements.utf8).write(to: directory.url.appendingPathComponent("App.entitlements"))
    }

    override func tearDown() {
        directory.remove()
    }

    private var environment: [String: String] {
        [
            "GROUPVAULT_HOME": directory.url.appendingPathComponent("home").path,
            "GROUPVAULT_ENTITLEMENTS": directory.url.appendingPathComponent("App.entitlements").path,
            "GROUPVAULT_TEAM_ID": team,
            "GROUPVAULT_BUNDLE_ID": "com.example.notes",
        ]
    }

    private func vaultcli(_ arguments: String...) throws -> (status: Int32, output: String, errors: String) {
        try FixtureProcess.run(arguments, environment: environment, executable: "vaultcli")
    }

    /// The same identity the command-line runs as, for arranging state through the library.
    private func keyring() throws -> Keyring {
        try Keyring.fromEnvironment(environment)
    }

    func testHelpListsEverySubcommand() throws {
        let result = try vaultcli("--help")
        XCTAssertEqual(result.status, 0, result.errors)
        for subcommand in ["identity", "lock-state", "items", "keys", "records"] {
            XCTAssertTrue(result.output.contains(subcommand), "help does not mention \(subcommand):\n\(result.output)")
        }
    }

    func testIdentityListsAccessGroupsInAppleOrder() throws {
        let result = try vaultcli("identity")
        XCTAssertEqual(result.status, 0, result.errors)
        let lines = result.output.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
        let shared = try XCTUnwrap(lines.firstIndex(of: "\(team).com.example.shared"), result.output)
        let application = try XCTUnwrap(lines.firstIndex(of: "\(team).com.example.notes"), result.output)
        let appGroup = try XCTUnwrap(lines.firstIndex(of: group), result.output)
        XCTAssertLessThan(shared, application, "keychain-access-groups come before the application identifier")
        XCTAssertLessThan(application, appGroup, "the application identifier comes before application groups")
    }

    func testLockStateSetIsSeenByTheNextProcess() throws {
        XCTAssertEqual(try vaultcli("lock-state").output, "unlocked\n", "a new home starts unlocked")
        XCTAssertEqual(try vaultcli("lock-state", "locked").status, 0)
        XCTAssertEqual(try vaultcli("lock-state").output, "locked\n")
        XCTAssertEqual(try keyring().home.lockState(), .locked)
    }

    func testLockStateRejectsAnUnknownState() throws {
        let result = try vaultcli("lock-state", "asleep")
        XCTAssertNotEqual(result.status, 0)
        XCTAssertTrue(result.errors.contains("asleep"), result.errors)
    }

    func testItemsListsAttributesButNeverTheSecret() throws {
        let secret = "correct-horse-battery-staple"
        try keyring().add(KeychainItem(service: "api.example.com", account: "ada", secret: Data(secret.utf8)))
        let result = try vaultcli("items")
        XCTAssertEqual(result.status, 0, result.errors)
        XCTAssertTrue(result.output.contains("service=api.example.com"), result.output)
        XCTAssertTrue(result.output.contains("account=ada"), result.output)
        XCTAssertFalse(result.output.contains(secret), "the secret must never be printed")
    }

    func testItemsRejectsAMalformedGroupWithTheReason() throws {
        let result = try vaultcli("items", "--group", "com.example.shared")
        XCTAssertNotEqual(result.status, 0)
        XCTAssertTrue(result.errors.contains("group.") && result.errors.contains("team id"), result.errors)
    }

    func testKeysRotateAddsAPrimaryAndKeepsTheOldKeyActive() throws {
        _ = try keyring().groupKey(for: GroupIdentifier(validating: group))
        XCTAssertEqual(try vaultcli("keys", "rotate", "--group", group).status, 0)
        let listing = try vaultcli("keys", "list", "--group", group)
        XCTAssertEqual(listing.status, 0, listing.errors)
        XCTAssertTrue(listing.output.contains("key #1 (active"), listing.output)
        XCTAssertTrue(listing.output.contains("key #2 (primary"), listing.output)
    }

    func testKeysRetireRefusesThePrimaryKey() throws {
        _ = try keyring().groupKey(for: GroupIdentifier(validating: group))
        let result = try vaultcli("keys", "retire", "--group", group, "--id", "1")
        XCTAssertNotEqual(result.status, 0)
        XCTAssertTrue(result.errors.contains("rotate"), "the refusal says to rotate first: \(result.errors)")
    }

    func testRecordsVerifyAcceptsAuthenticRecords() throws {
        let vault = try Vault(keyring: keyring(), group: GroupIdentifier(validating: group))
        try vault.write(Note(text: "hello"), as: "note")
        let result = try vaultcli("records", "verify", "--group", group)
        XCTAssertEqual(result.status, 0, result.output + result.errors)
        XCTAssertTrue(result.output.contains("note: ok"), result.output)
    }

    func testRecordsVerifyFailsOnATamperedRecord() throws {
        let vault = try Vault(keyring: keyring(), group: GroupIdentifier(validating: group))
        try vault.write(Note(text: "hello"), as: "note")
        let file = URL(fileURLWithPath: vault.recordsDirectory.appending("note.gvr").string)
        var bytes = try Data(contentsOf: file)
        bytes[bytes.count - 1] ^= 0x01
        try bytes.write(to: file)
        let result = try vaultcli("records", "verify", "--group", group)
        XCTAssertEqual(result.status, 1, result.output + result.errors)
        XCTAssertTrue(result.output.contains("note: refused: authenticationFailed"), result.output)
    }

    func testRecordsResealMovesRecordsToTheNewPrimaryKey() throws {
        let groupID = try GroupIdentifier(validating: group)
        let vault = try Vault(keyring: keyring(), group: groupID)
        try vault.write(Note(text: "hello"), as: "note")
        try keyring().rotateKey(in: groupID)
        XCTAssertEqual(try vaultcli("records", "reseal", "--group", group).status, 0)
        let header = try XCTUnwrap(try vault.list().first?.header.get())
        XCTAssertEqual(header.keyID, 2)
        try keyring().retireKey(id: 1, in: groupID)
        XCTAssertEqual(try vault.read(Note.self, name: "note"), Note(text: "hello"))
    }

    func testRecordsListShowsHeadersWithoutThePayload() throws {
        let vault = try Vault(keyring: keyring(), group: GroupIdentifier(validating: group))
        try vault.write(Note(text: "a private thought"), as: "note")
        try vault.write(Note(text: "a private thought"), as: "note")
        let result = try vaultcli("records", "list", "--group", group)
        XCTAssertEqual(result.status, 0, result.errors)
        XCTAssertTrue(result.output.contains("note") && result.output.contains("#2") && result.output.contains("key #1"), result.output)
        XCTAssertFalse(result.output.contains("private thought"))
    }

    func testRecordsWatchPrintsAChangeMadeByAnotherProcess() throws {
        let watcher = try FixtureProcess(["records", "watch", "--group", group, "note", "--count", "1"], environment: environment, executable: "vaultcli")
        let vault = try Vault(keyring: keyring(), group: GroupIdentifier(validating: group))
        // The watcher subscribes asynchronously: write until it reports, bounded.
        for _ in 0..<200 where watcher.standardOutput.isEmpty {
            try vault.write(Note(text: "hello"), as: "note")
            Thread.sleep(forTimeInterval: 0.05)
        }
        XCTAssertEqual(watcher.wait(), 0, watcher.standardError)
        XCTAssertEqual(watcher.standardOutput, "written note\n")
    }
}

/// A minimal record for the command-line tests.
private struct Note: VaultRecord, Equatable {
    static let schemaVersion: UInt32 = 1
    var text: String
}
