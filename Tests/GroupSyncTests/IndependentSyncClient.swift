import Foundation
import GroupVaultTestKit
import Keyring
import XCTest

/// Resources/groupsync_independent.py: a second implementation of GroupSync's protocol, written
/// in Python from docs/SYNC.md and docs/FORMAT.md alone (libsodium through `ctypes`, the server
/// through `psql`), run against the same server as the Swift machines.
///
/// Missing `python3` or `psql` is a test failure, not a skip: `make test` must not pass without
/// the cross-check. scripts/install-dependencies installs both.
struct IndependentSyncClient {
    /// What the script printed and how it ended.
    struct Outcome {
        var status: Int32
        var output: String
        var errors: String

        /// The output's lines, each a JSON object.
        func objects() throws -> [[String: Any]] {
            try output.split(separator: "\n").map { line in
                guard let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any] else {
                    throw Failure(description: "the independent client printed a line that is not a JSON object: \(line)")
                }
                return object
            }
        }
    }

    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    static let installHint = "install python3 and PostgreSQL's client with `scripts/install-dependencies`"

    let url: String
    let group: GroupIdentifier
    let store: String
    /// The keys given to the script, `id:hex`; the highest id seals its writes.
    let keys: [String]

    /// The client for `store` of `group`, given the keys `ids` as `keyring` exports them.
    init(url: String, group: GroupIdentifier, store: String, keyring: Keyring, ids: [UInt32] = [1]) throws {
        self.url = url
        self.group = group
        self.store = store
        keys = try ids.map { id in "\(id):" + (try keyring.exportKey(id: id, in: group)).map { String(format: "%02x", $0) }.joined() }
    }

    /// Runs the script's `command`; `directory` holds its transcripts.
    func run(_ command: [String], in directory: URL) throws -> Outcome {
        guard let script = Bundle.module.url(forResource: "groupsync_independent", withExtension: "py", subdirectory: "Resources") else {
            throw Failure(description: "Resources/groupsync_independent.py is missing from the test bundle")
        }
        let output = directory.appendingPathComponent("independent.out").path
        let errors = directory.appendingPathComponent("independent.err").path
        let arguments = ["python3", script.path, "--url", url, "--group", group.rawValue, "--store", store]
            + keys.flatMap { ["--key", $0] } + command
        let status = try SpawnedProgram.run("/usr/bin/env", arguments, output: output, errors: errors)
        let outcome = Outcome(
            status: status,
            output: (try? String(contentsOfFile: output, encoding: .utf8)) ?? "",
            errors: (try? String(contentsOfFile: errors, encoding: .utf8)) ?? "")
        if status == 127 { throw Failure(description: "python3 is not installed; \(Self.installHint)") }
        return outcome
    }

    /// Runs `command` and fails unless it exits 0.
    func succeed(_ command: [String], in directory: URL) throws -> Outcome {
        let outcome = try run(command, in: directory)
        guard outcome.status == 0 else {
            throw Failure(description: "the independent client's \(command.first ?? "") exited \(outcome.status): \(outcome.errors)")
        }
        return outcome
    }
}
