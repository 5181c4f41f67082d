import Foundation
import GroupVaultTestKit
import XCTest

/// The README's Swift snippets run to completion, twice in a row in the same home, as a reader
/// would run them: an identity entitled to `group.com.example.notes` (the demo app's
/// entitlements), and for the messaging snippet the server the README starts
/// (`vaultcli channel serve --group group.com.example.notes --name sync`).
///
/// Twice, because a snippet that only works on a fresh home (an `add` that becomes a duplicate,
/// an import that throws once its file is gone) fails its reader on the second try.
final class ReadmeSnippetRunTests: XCTestCase {
    private static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    private var directory: TemporaryDirectory!

    override func setUpWithError() throws { directory = try TemporaryDirectory(prefix: "readme-run") }
    override func tearDown() { directory.remove() }

    /// What the README tells the reader to export, with a throw-away home (and `HOME`, where
    /// the shared-settings snippet looks for Apple preferences to import).
    private var environment: [String: String] {
        [
            "GROUPVAULT_ENTITLEMENTS": Self.root.appendingPathComponent("Examples/App/App.entitlements").path,
            "GROUPVAULT_TEAM_ID": "ABCDE12345",
            "GROUPVAULT_BUNDLE_ID": "com.example.notes",
            "GROUPVAULT_HOME": directory.url.appendingPathComponent("groupvault").path,
            "HOME": directory.url.path,
            // No server unless a test starts one (an empty URL is none).
            "GROUPVAULT_SYNC_URL": "",
        ]
    }

    /// Runs `executable` twice; each run must exit 0. Returns both runs' output.
    private func runTwice(_ executable: String, _ arguments: [String] = [], file: StaticString = #filePath, line: UInt = #line) throws -> [String] {
        try (1...2).map { run in
            let child = try FixtureProcess(arguments, environment: environment, executable: executable)
            // A hang guard, not a timing assertion: a snippet stuck in an endless loop fails
            // here with its output instead of stopping the whole suite.
            let watchdog = DispatchWorkItem { child.kill(SIGKILL) }
            DispatchQueue.global().asyncAfter(deadline: .now() + 120, execute: watchdog)
            let status = child.wait()
            watchdog.cancel()
            XCTAssertEqual(status, 0, "run \(run) of \(executable) failed:\n\(child.standardOutput)\n\(child.standardError)", file: file, line: line)
            return child.standardOutput
        }
    }

    func testTheKeychainSnippetRunsTwiceInOneHomeReplacingItsSecret() throws {
        let outputs = try runTwice("ReadmeKeychainItems")
        for output in outputs {
            XCTAssertTrue(output.contains("api.example.com"), output)
            XCTAssertFalse(output.contains("example-token"), "a secret in a description: \(output)")
        }
    }

    func testTheSealedRecordsSnippetRunsTwiceInOneHome() throws {
        let outputs = try runTwice("ReadmeSealedRecords")
        for output in outputs {
            XCTAssertTrue(output.hasPrefix("Ada\n"), output)
            XCTAssertTrue(output.hasSuffix("written auth-state\n"), output)
        }
    }

    func testTheSharedDataSnippetRunsTwiceInOneHomeWithNothingToImport() throws {
        let outputs = try runTwice("ReadmeSharedData")
        for output in outputs {
            XCTAssertTrue(output.hasPrefix("nothing to import: "), output)
            XCTAssertTrue(output.hasSuffix("reload\n"), output)
        }
    }

    func testTheMessagingSnippetRunsTwiceAgainstTheServerTheReadmeStarts() throws {
        let server = try FixtureProcess(
            ["channel", "serve", "--group", "group.com.example.notes", "--name", "sync"],
            environment: environment, executable: "vaultcli")
        defer {
            server.kill(SIGTERM)
            server.wait()
        }
        let outputs = try runTwice("ReadmeMessaging")
        for output in outputs {
            XCTAssertTrue(output.hasPrefix("pong 1 from a server that saw pid "), output)
        }
    }

    func testTheSyncSnippetKeepsItsNoteOnItsMachineWithoutAServer() throws {
        let outputs = try runTwice("ReadmeSync", ["Groceries"])
        XCTAssertEqual(outputs, ["last opened note: Groceries\n", "last opened note: Groceries\n"])
        let child = try FixtureProcess([], environment: environment, executable: "ReadmeSync")
        XCTAssertEqual(child.wait(), 0, child.standardError)
        XCTAssertEqual(child.standardOutput, "last opened note: Groceries\n", "a later process reads the note back")
    }

    /// The block as a reader runs it, from the repository's root in a fresh shell, with the
    /// built executables in place of `swift run`: it starts its own PostgreSQL server
    /// (`scripts/postgres-server`, stopped with the shell in any case), so the second machine
    /// reads the first one's note through it.
    func testTheSyncSectionsTwoMachinesShareANoteAsWritten() throws {
        let block = try ReadmeShellBlock.first(under: "### Syncing across machines")
        XCTAssertTrue(block.contains("swift run ReadmeSync Groceries"), block)
        // As root the server runs as `postgres`, which must pass through every directory above
        // its own: the script opens the block's `mktemp -d` directory, this test opens its own.
        if getuid() == 0 { XCTAssertEqual(chmod(directory.url.path, 0o711), 0) }
        let script = "set -eo pipefail\ncd '\(Self.root.path)'\n" + block
            .replacingOccurrences(of: "swift run ReadmeSync", with: "'\(FixtureProcess.url(ofExecutable: "ReadmeSync").path)'")
            .replacingOccurrences(of: "swift run vaultcli", with: "'\(FixtureProcess.url(ofExecutable: "vaultcli").path)'")
        let transcript = directory.url.appendingPathComponent("readme-sync.out").path
        // Only what a fresh shell has (sbin too: as root, the server script runs PostgreSQL as
        // its own user with runuser); the block sets the identity and the server itself. Its
        // `mktemp -d` is made under this test's directory, which is removed afterwards. The
        // sanitizers' options reach the executables as they reach this runner.
        let status = try SpawnedProgram.run(
            "/bin/bash", ["-c", script],
            environment: ["PATH": "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin", "TMPDIR": directory.url.path]
                .merging(SanitizerOptions.environment) { own, _ in own },
            output: transcript, errors: transcript)
        let printed = try String(contentsOfFile: transcript, encoding: .utf8)
        XCTAssertEqual(status, 0, "a line of the README's sync block failed:\n\(printed)")
        let notes = printed.split(separator: "\n").filter { $0.hasPrefix("last opened note: ") }
        XCTAssertEqual(notes, ["last opened note: Groceries", "last opened note: Groceries"], "the desktop reads the laptop's note:\n\(printed)")
        XCTAssertFalse(printed.contains("refused"), printed)
    }
}
