import Foundation
import XCTest

/// Each failure exits with the status docs/CLI.md ("Exit codes") gives its kind, whichever
/// command meets it: scripts branch on these.
final class ExitStatusTests: VaultCLITestCase {
    /// Replaces the group's records directory with a regular file: every vault operation of
    /// the group then fails in storage.
    private func breakTheRecordsDirectory() throws {
        let container = directory.url.appendingPathComponent("home/Group Containers/\(group)/GroupVault")
        try FileManager.default.removeItem(at: container.appendingPathComponent("records"))
        try Data().write(to: container.appendingPathComponent("records"))
    }

    func testAStorageFailureInDefaultsExits6NotUsage() throws {
        XCTAssertEqual(try vaultcli("defaults", "write", "--group", group, "theme", "dark").status, 0)
        try breakTheRecordsDirectory()
        assertFails(try vaultcli("defaults", "write", "--group", group, "theme", "light"), with: 6, mentioning: ["storage", "records"])
        assertFails(try vaultcli("defaults", "list", "--group", group), with: 6, mentioning: ["storage"])
    }

    func testAMissingDefaultsKeyExits4NotFound() throws {
        let read = try vaultcli("defaults", "read", "--group", group, "never-written")
        XCTAssertEqual(read.status, 4, read.transcript)
        XCTAssertEqual(read.output, "\"never-written\"  absent\n")
    }

    func testAnInvalidNotificationNameIsAUsageError() throws {
        assertRun(try vaultcli("notify", "post", "bad name!", "--group", group), exits: 2, errors: """
            vaultcli: invalidName: notification name "bad name!" is not valid: ' ' is not allowed (use ASCII letters, digits, '-', '.' and '_')

            """)
    }

    func testANegativeKeyIdIsAnInvalidValueNotAMissingOne() throws {
        let result = try vaultcli("keys", "retire", "--group", group, "--id", "-1")
        XCTAssertEqual(result.errors, "vaultcli: The value '-1' is invalid for '--id <id>' (see: vaultcli keys retire --help)\n")
        XCTAssertEqual(result.status, 2)
    }

    func testEveryCommandActingOnAGroupRequiresGroup() throws {
        for command in [["records", "list"], ["keys", "list"], ["defaults", "list"], ["notify", "post", "x"], ["channel", "ping"]] {
            let result = try run(command, input: nil, environment: environment)
            assertFails(result, with: 2, mentioning: ["--group"])
        }
    }
}
