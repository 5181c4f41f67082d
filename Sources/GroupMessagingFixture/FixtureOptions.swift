import Foundation
import Keyring

/// A fixture command: takes its arguments, returns the process exit status.
typealias FixtureCommand = @Sendable ([String]) async -> Int32

/// A misuse of a fixture command (exit 64).
struct UsageError: Error {
    var message: String
}

/// `--key value` options.
struct FixtureOptions: Sendable {
    private var values: [String: String] = [:]

    init(_ arguments: [String]) throws(UsageError) {
        var remaining = arguments[...]
        while let key = remaining.popFirst() {
            guard key.hasPrefix("--"), let value = remaining.popFirst() else {
                throw UsageError(message: "expected --option value pairs, got \(key)")
            }
            values[String(key.dropFirst(2))] = value
        }
    }

    func string(_ key: String, default fallback: String? = nil) throws(UsageError) -> String {
        guard let value = values[key] ?? fallback else { throw UsageError(message: "--\(key) is required") }
        return value
    }

    func integer(_ key: String, default fallback: Int? = nil) throws(UsageError) -> Int {
        guard let text = values[key] else {
            guard let fallback else { throw UsageError(message: "--\(key) is required") }
            return fallback
        }
        guard let value = Int(text), value >= 0 else { throw UsageError(message: "--\(key) must be a whole number, got \(text)") }
        return value
    }

    /// The application group named by `--group`.
    func group() throws -> GroupIdentifier {
        try GroupIdentifier(validating: try string("group"))
    }

    /// A keyring whose identity is entitled to `--group` (or to `--entitled-group` when given,
    /// to play a process outside the group), over the home in GROUPVAULT_HOME.
    func keyring() throws -> Keyring {
        let entitled = try GroupIdentifier(validating: try string("entitled-group", default: try string("group")))
        let identity = Identity(
            teamID: try string("team", default: "ABCDE12345"),
            bundleID: try string("bundle", default: "com.example.fixture"),
            applicationGroups: [entitled])
        return Keyring(identity: identity, home: try .fromEnvironment())
    }
}

/// Writes a line to standard output at once (the tests read it while the process runs).
func printLine(_ line: String) {
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
}

/// Writes a line to standard error.
func printError(_ line: String) {
    FileHandle.standardError.write(Data((line + "\n").utf8))
}

/// Parses the options, runs `body`, and maps errors to the documented exit statuses.
func runFixture(_ arguments: [String], _ body: (FixtureOptions) async throws -> Int32) async -> Int32 {
    do {
        return try await body(try FixtureOptions(arguments))
    } catch let error as UsageError {
        printError("usage: \(error.message)")
        return 64
    } catch {
        printError("error \(error)")
        return 1
    }
}
