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
        ]
    }

    /// Runs `executable` twice; each run must exit 0. Returns both runs' output.
    private func runTwice(_ executable: String, file: StaticString = #filePath, line: UInt = #line) throws -> [String] {
        try (1...2).map { run in
            let child = try FixtureProcess([], environment: environment, executable: executable)
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
}
