import Foundation
import GroupVaultTestKit
import Keyring
import Vault
import XCTest

/// The base of the vaultcli tests: a throw-away home and identity, and the built `vaultcli`
/// run as a user runs it, in a child process checked by its output and exit status.
class VaultCLITestCase: XCTestCase {
    var directory: TemporaryDirectory!
    let team = "ABCDE12345"
    let group = "group.com.example.notes"
    let sharedGroup = "ABCDE12345.com.example.shared"

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

    var environment: [String: String] {
        [
            "GROUPVAULT_HOME": directory.url.appendingPathComponent("home").path,
            "GROUPVAULT_ENTITLEMENTS": directory.url.appendingPathComponent("App.entitlements").path,
            "GROUPVAULT_TEAM_ID": team,
            "GROUPVAULT_BUNDLE_ID": "com.example.notes",
        ]
    }

    /// What one run of vaultcli did.
    struct Run {
        var status: Int32
        var output: String
        var errors: String
        /// Everything, for failure messages.
        var transcript: String { "exit \(status)\n--- stdout\n\(output)--- stderr\n\(errors)" }
    }

    /// Runs vaultcli with `arguments`, standard input `input` (empty when nil), and exactly
    /// `environment` plus PATH, so nothing of the test runner's environment leaks in.
    func vaultcli(_ arguments: String..., input: String? = nil, environment: [String: String]? = nil) throws -> Run {
        try run(arguments, input: input, environment: environment ?? self.environment)
    }

    /// A child's whole environment: `environment`, a `PATH`, and the sanitizers' options of
    /// this process; nothing else of the test runner's.
    func childEnvironment(_ environment: [String: String]) -> [String: String] {
        environment.merging(["PATH": "/usr/bin:/bin"]) { own, _ in own }.merging(SanitizerOptions.environment) { own, _ in own }
    }

    /// Runs `executable` (vaultcli by default) as ``vaultcli(_:input:environment:)`` does.
    func run(_ arguments: [String], input: String?, environment: [String: String], executable: URL? = nil) throws -> Run {
        // Files, not pipes: nothing can block on a full pipe, whatever the child prints.
        let files = ["in", "out", "err"].map { directory.url.appendingPathComponent("vaultcli.\($0)") }
        try Data((input ?? "").utf8).write(to: files[0])
        for file in files.dropFirst() { try Data().write(to: file) }
        let process = Process()
        process.executableURL = executable ?? vaultcliURL
        process.arguments = arguments
        process.environment = childEnvironment(environment)
        let handles = try [FileHandle(forReadingFrom: files[0]), FileHandle(forWritingTo: files[1]), FileHandle(forWritingTo: files[2])]
        defer { handles.forEach { try? $0.close() } }
        process.standardInput = handles[0]
        process.standardOutput = handles[1]
        process.standardError = handles[2]
        try process.run()
        process.waitUntilExit()
        return Run(status: process.terminationStatus,
                   output: try String(contentsOf: files[1], encoding: .utf8),
                   errors: try String(contentsOf: files[2], encoding: .utf8))
    }

    /// Waits until `process` has printed `text` on standard output. The bound is a guard
    /// against a hang, never a measure of speed.
    func awaitOutput(_ text: String, in process: FixtureProcess, file: StaticString = #filePath, line: UInt = #line) throws {
        let deadline = Date().addingTimeInterval(120)
        while !process.standardOutput.contains(text) {
            guard Date() < deadline else {
                throw OutputTimeout(description: "no \(text) from vaultcli: \(process.standardOutput) \(process.standardError)")
            }
            usleep(5_000)
        }
    }

    /// The built vaultcli.
    var vaultcliURL: URL { FixtureProcess.url(ofExecutable: "vaultcli") }

    /// The standard output of a `--json` run, parsed.
    func json(_ run: Run, file: StaticString = #filePath, line: UInt = #line) throws -> [String: Any] {
        XCTAssertEqual(run.status, 0, run.transcript, file: file, line: line)
        let value = try JSONSerialization.jsonObject(with: Data(run.output.utf8))
        return try XCTUnwrap(value as? [String: Any], "not a JSON object: \(run.output)", file: file, line: line)
    }

    /// Asserts the one-line error contract: something on stderr, exactly one line, the given
    /// status. The line is `vaultcli: <message>`, or for a run with `--json` the JSON error
    /// object (docs/CLI.md, "Errors") whose `status` is the exit status.
    func assertFails(_ run: Run, with status: Int32, mentioning words: [String], file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertEqual(run.status, status, run.transcript, file: file, line: line)
        XCTAssertEqual(run.errors.filter { $0 == "\n" }.count, 1, "one line on stderr: \(run.errors)", file: file, line: line)
        if run.errors.hasPrefix("{") {
            let object = try? JSONSerialization.jsonObject(with: Data(run.errors.utf8)) as? [String: Any]
            XCTAssertEqual(object?["status"] as? Int, Int(status), "the JSON error's status: \(run.errors)", file: file, line: line)
            XCTAssertNotNil(object?["message"] as? String, "the JSON error's message: \(run.errors)", file: file, line: line)
        } else {
            XCTAssertTrue(run.errors.hasPrefix("vaultcli: "), run.errors, file: file, line: line)
        }
        for word in words {
            XCTAssertTrue(run.errors.contains(word), "stderr does not mention \(word): \(run.errors)", file: file, line: line)
        }
    }

    /// Asserts a whole run, as swift-argument-parser's `AssertExecuteCommand` does: the exit
    /// status, and standard output and standard error each compared whole, so nothing else
    /// (a second line, a debug dump, a leftover progress line) can hide beside the text expected.
    func assertRun(_ run: Run, exits status: Int32, output: String = "", errors: String = "", file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertEqual(run.status, status, run.transcript, file: file, line: line)
        XCTAssertEqual(run.output, output, "standard output", file: file, line: line)
        XCTAssertEqual(run.errors, errors, "standard error", file: file, line: line)
    }

    /// ``assertRun(_:exits:output:errors:)`` for output that carries what differs from run to
    /// run: every ISO 8601 time (`2026-11-28T03:48:58Z`) is compared as `<time>`, and every
    /// SharedDefaults entry's record name (`sd-` and two keyed hashes) as `sd-<entry>`;
    /// everything else is compared whole.
    func assertRun(_ run: Run, exits status: Int32, masked output: String, errors: String = "", file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertEqual(run.status, status, run.transcript, file: file, line: line)
        XCTAssertEqual(Self.masked(run.output), output, "standard output, masked", file: file, line: line)
        XCTAssertEqual(Self.masked(run.errors), errors, "standard error, masked", file: file, line: line)
    }

    /// ``assertRun(_:exits:output:errors:)`` for a table whose column widths follow a path
    /// that differs from run to run: standard output is compared whole as rows of cells (split
    /// where two or more spaces separate them), with this test's directory shown as `<dir>`.
    func assertRun(_ run: Run, exits status: Int32, table rows: [[String]], errors: String = "", file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertEqual(run.status, status, run.transcript, file: file, line: line)
        let found = run.output.replacing(directory.path, with: "<dir>").split(separator: "\n").map { row in
            row.split(separator: #/  +/#).map(String.init)
        }
        XCTAssertEqual(found, rows, "standard output, as cells:\n\(run.output)", file: file, line: line)
        XCTAssertEqual(run.errors, errors, "standard error", file: file, line: line)
    }

    private static func masked(_ text: String) -> String {
        text.replacing(#/\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)/#, with: "<time>")
            .replacing(#/sd-[0-9a-f]+-[0-9a-f]+/#, with: "sd-<entry>")
    }

    /// The same identity the command line runs as, for arranging state through the library.
    func keyring() throws -> Keyring {
        try Keyring.fromEnvironment(environment)
    }

    func vault() throws -> Vault {
        try Vault(keyring: keyring(), group: GroupIdentifier(validating: group))
    }
}

/// A child never printed what a test waited for.
struct OutputTimeout: Error, CustomStringConvertible {
    var description: String
}

/// A minimal record for the command-line tests.
struct Note: VaultRecord, Equatable {
    static let schemaVersion: UInt32 = 1
    var text: String
}
