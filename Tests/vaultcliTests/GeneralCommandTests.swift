import Foundation
import XCTest

/// The root command, identity, lock state and the exit-code and error conventions.
final class GeneralCommandTests: VaultCLITestCase {
    func testHelpListsEverySubcommand() throws {
        let result = try vaultcli("--help")
        XCTAssertEqual(result.status, 0, result.transcript)
        for subcommand in ["identity", "lock-state", "items", "keys", "records", "doctor"] {
            XCTAssertTrue(result.output.contains(subcommand), "help does not mention \(subcommand):\n\(result.output)")
        }
    }

    func testAnUnknownFlagIsAUsageErrorOnOneLineNamingIt() throws {
        assertRun(try vaultcli("items", "--bogus"), exits: 2, errors: "vaultcli: Unknown option '--bogus' (see: vaultcli items --help)\n")
    }

    func testAMissingRequiredOptionIsAUsageErrorNamingIt() throws {
        assertRun(try vaultcli("keys", "list"), exits: 2, errors: "vaultcli: Missing expected argument '--group <group>' (see: vaultcli keys list --help)\n")
    }

    func testNoIdentityConfiguredSaysSoAndExits3() throws {
        assertRun(try vaultcli("identity", environment: [:]), exits: 3, errors: """
            vaultcli: no identity configured: pass --entitlements FILE --team-id TEAMID --bundle-id BUNDLE.ID, \
            or set GROUPVAULT_ENTITLEMENTS, GROUPVAULT_TEAM_ID and GROUPVAULT_BUNDLE_ID

            """)
    }

    func testABadEntitlementsFlagIsNamedAsTheFlagNotTheVariable() throws {
        var environment = environment
        environment["GROUPVAULT_ENTITLEMENTS"] = nil
        assertRun(try vaultcli("identity", "--entitlements", "/nonexistent/App.entitlements", environment: environment), exits: 3,
                  errors: "vaultcli: --entitlements: entitlements /nonexistent/App.entitlements: does not exist; check the path\n")
    }

    func testIdentityListsAccessGroupsInAppleOrder() throws {
        let report = try json(try vaultcli("identity", "--json"))
        XCTAssertEqual(report["accessGroups"] as? [String], ["\(team).com.example.shared", "\(team).com.example.notes", group])
        XCTAssertEqual(report["teamID"] as? String, team)
        let groups = try XCTUnwrap(report["applicationGroups"] as? [[String: Any]])
        XCTAssertEqual(groups.first?["group"] as? String, group)
    }

    /// Hole 7 of the attack pass: `identity` created every named group's container (20,000
    /// directories for 4,000 groups). Showing an identity must create nothing.
    func testIdentityCreatesNoContainerDirectories() throws {
        let groups = (0..<100).map { "<string>group.com.example.g\($0)</string>" }.joined()
        let entitlements = """
            <?xml version="1.0" encoding="UTF-8"?>
            <plist version="1.0"><dict>
            <key>com.apple.security.application-groups</key><array>\(groups)</array>
            </dict></plist>
            """
        let path = directory.url.appendingPathComponent("Many.entitlements")
        try Data(entitlements.utf8).write(to: path)
        var environment = environment
        environment["GROUPVAULT_ENTITLEMENTS"] = path.path
        let report = try json(try vaultcli("identity", "--json", environment: environment))
        let listed = try XCTUnwrap(report["applicationGroups"] as? [[String: Any]])
        XCTAssertEqual(listed.count, 100)
        XCTAssertNotNil(listed.first?["container"] as? String, "the container's location is still shown")
        // No home at all is the best outcome; a home may exist, but holds no container.
        let home = directory.url.appendingPathComponent("home").path
        let created = (FileManager.default.subpaths(atPath: home) ?? []).filter { $0.contains("group.com.example.g") }
        XCTAssertTrue(created.isEmpty, "identity created \(created.count) container paths, e.g. \(created.prefix(3))")
    }

    func testIdentityPrintsAlignedTablesWithHeaders() throws {
        let result = try vaultcli("identity")
        XCTAssertEqual(result.status, 0, result.transcript)
        let lines = result.output.split(separator: "\n").map(String.init)
        XCTAssertEqual(lines.first, "FIELD           VALUE")
        XCTAssertTrue(lines.contains("\(team).com.example.shared  default for new items"), result.output)
        XCTAssertFalse(result.output.contains("Identity("), "no debug dump: \(result.output)")
    }

    func testLockStateSetIsSeenByTheNextProcess() throws {
        XCTAssertEqual(try vaultcli("lock-state").output, "unlocked\n", "a new home starts unlocked")
        XCTAssertEqual(try vaultcli("lock-state", "locked").status, 0)
        XCTAssertEqual(try json(try vaultcli("lock-state", "--json"))["state"] as? String, "locked")
        XCTAssertEqual(try keyring().home.lockState(), .locked)
    }

    func testLockStateRejectsAnUnknownStateAsUsage() throws {
        assertRun(try vaultcli("lock-state", "asleep"), exits: 2, errors: """
            vaultcli: The value 'asleep' is invalid for '<state>'. Please provide one of 'beforeFirstUnlock', 'locked' or 'unlocked'. \
            (see: vaultcli lock-state --help)

            """)
    }

    func testALockedDeviceRefusesWithACommandHintNotSwiftAPI() throws {
        XCTAssertEqual(try vaultcli("lock-state", "beforeFirstUnlock").status, 0)
        assertRun(try vaultcli("keys", "list", "--group", group), exits: 5, errors: """
            vaultcli: list the keys: group keys of \(group) are usable only after the first unlock, and the device of the home \
            \(directory.url.appendingPathComponent("home").path) is in state beforeFirstUnlock; unlock it once (run: vaultcli lock-state unlocked)

            """)
    }

    func testAMissingEntitlementIsRefusedWithoutADebugDumpOfTheIdentity() throws {
        assertRun(try vaultcli("records", "list", "--group", "group.com.example.other"), exits: 5, errors: """
            vaultcli: missingEntitlement: the identity \(team).com.example.notes is not entitled to application group \
            group.com.example.other: add it to com.apple.security.application-groups to use its container (see: vaultcli identity)

            """)
    }

    func testProgressIsShownOnATerminal() throws {
        // `script` gives vaultcli a pseudo-terminal, as a person at a shell has.
        let script = URL(fileURLWithPath: "/usr/bin/script")
        try XCTSkipUnless(FileManager.default.isExecutableFile(atPath: script.path), "needs util-linux script(1) for a pseudo-terminal")
        let vault = try vault()
        for index in 0..<3 { try vault.write(Note(text: "x"), to: "note-\(index)") }
                let result = try run(["-qec", "\(vaultcliURL.path) records verify --group \(group)", "/dev/null"], input: nil, environment: environment, executable: script)
        XCTAssertEqual(result.status, 0, result.transcript)
        XCTAssertTrue(result.output.contains("verifying 1/3"), "no progress on a terminal: \(result.output.debugDescription)")
    }
}
