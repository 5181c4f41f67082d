import Foundation
import GroupVaultTestKit
import XCTest

/// `scripts/demo-sync`, the part of `make demo` that shows two machines converging through a
/// server it starts itself, a rolled-back server refused, and a restore hidden from every
/// catch-up found by `sync verify`, run whole as `make demo` runs it,
/// with the `vaultcli` this test run built: what it prints is what docs/SYNC.md (section 11)
/// says it shows.
final class DemoSyncScriptTests: XCTestCase {
    private static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    private var directory: TemporaryDirectory!

    override func setUpWithError() throws { directory = try TemporaryDirectory(prefix: "demo-sync") }
    override func tearDown() { directory.remove() }

    func testTheDemoConvergesTwoMachinesRefusesTheRolledBackServerAndVerifiesIt() throws {
        // As root the server runs as `postgres`, which must pass through every directory above
        // its own (the script's `mktemp -d` is made under this one).
        if getuid() == 0 { XCTAssertEqual(chmod(directory.url.path, 0o711), 0) }
        let transcript = directory.url.appendingPathComponent("demo-sync.out").path
        let status = try SpawnedProgram.run(
            "/bin/bash", [Self.root.appendingPathComponent("scripts/demo-sync").path],
            environment: [
                "PATH": "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
                "TMPDIR": directory.url.path,
                "GROUPVAULT_DEMO_BIN": FixtureProcess.url(ofExecutable: "vaultcli").deletingLastPathComponent().path,
            ].merging(SanitizerOptions.environment) { own, _ in own },
            output: transcript, errors: transcript)
        let printed = try String(contentsOfFile: transcript, encoding: .utf8)
        XCTAssertEqual(status, 0, printed)

        let lines = printed.split(separator: "\n").map(String.init)
        XCTAssertEqual(lines.filter { $0.hasPrefix("server-box reads: ") }, [
            #"server-box reads: theme = {"string":"light"}"#,
            #"server-box reads: theme = {"string":"dark"}"#,
        ], "the second machine reads each of the first one's values:\n\(printed)")
        XCTAssertTrue(lines.contains(#"  "isAuthenticated" : true"#), "the synced record is shown on the other machine:\n\(printed)")
        XCTAssertTrue(lines.contains("server-box: serverChange: font"), "the watch hears of the change by notification:\n\(printed)")
        XCTAssertTrue(lines.contains(#"server-box still reads: theme = {"string":"dark"}"#), "the rolled-back value is not taken:\n\(printed)")
        XCTAssertTrue(lines.contains("refused: rollback 2"), "and both rollbacks are counted:\n\(printed)")
        XCTAssertTrue(lines.contains("laptop after sync now: refused: none"), "a restore hidden by the counter escapes a catch-up:\n\(printed)")
        XCTAssertTrue(
            lines.contains("findings: rows read 2, entries compared 2, missing 0, older 1, differing 0, unread 0, restored 1"),
            "and a verification finds it and writes the value back:\n\(printed)")
        XCTAssertTrue(lines.contains("(sync verify exited 1: findings)"), printed)
    }
}
