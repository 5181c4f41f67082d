import FixtureSupport
import Foundation
import Keyring
import SealedStorage

/// Keyset commands for multi-process tests.
///
/// - `keyset-group-key --team T --group G [--barrier PATH]`: prints `key <id> <fingerprint>`,
///   the BLAKE2b-256 of the primary key's bytes in hex (never the bytes).
/// - `keyset-rotate --team T --group G [--barrier PATH]`: rotates once, prints `rotated <id>`.
///
/// With `--barrier`, the command prints `ready`, then waits for the file at PATH to exist
/// before touching the keyset, so a test can release every child at the same moment.
/// The home comes from `GROUPVAULT_HOME`.
let keysetCommands: [String: FixtureCommand] = [
    "keyset-group-key": { arguments in
        runKeysetCommand(arguments) { keyring, group throws(KeyringError) in
            let key = try keyring.groupKey(for: group)
            var bytes = Array(try keyring.exportKey(id: key.id, in: group))
            defer { bytes.withUnsafeMutableBufferPointer { $0.update(repeating: 0) } }
            return "key \(key.id) \(hexadecimal(Digest.blake2b256(bytes)))"
        }
    },
    "keyset-rotate": { arguments in
        runKeysetCommand(arguments) { keyring, group throws(KeyringError) in
            "rotated \(try keyring.rotateKey(in: group).id)"
        }
    },
]

/// Parses the shared options, waits at the barrier, runs `body` and prints its line.
/// Exit status: 0 on success, 1 when the keyring refused (the error goes to standard error),
/// 2 when the barrier never opened, 64 for bad arguments.
private func runKeysetCommand(
    _ arguments: [String],
    _ body: (Keyring, GroupIdentifier) throws(KeyringError) -> String
) -> Int32 {
    let options: FixtureOptions
    let team: String
    let groupName: String
    do {
        options = try FixtureOptions(arguments)
        team = try options.string("team")
        groupName = try options.string("group")
    } catch {
        printError("usage: \(error.message) (expected --team T --group G [--barrier PATH])")
        return 64
    }
    let group: GroupIdentifier
    do {
        group = try GroupIdentifier(validating: groupName)
    } catch {
        printError(error.description)
        return 64
    }
    // The identity is built in code, as a signed app's would be from its entitlements.
    let identity = group.isApplicationGroupStyle
        ? Identity(teamID: team, bundleID: "com.example.fixture", applicationGroups: [group])
        : Identity(teamID: team, bundleID: "com.example.fixture", keychainAccessGroups: [group])
    let keyring: Keyring
    do {
        keyring = Keyring(identity: identity, home: try KeyringHome.fromEnvironment())
    } catch {
        printError(error.description)
        return 64
    }

    if let barrier = options.optionalString("barrier") {
        // Unbuffered, so the test sees it while this process waits.
        printLine("ready")
        guard waitForFile(atPath: barrier, timeout: 60) else {
            printError("the barrier \(barrier) did not appear within 60 s")
            return 2
        }
    }
    do {
        let line = try body(keyring, group)
        printLine(line)
        return 0
    } catch {
        printError(error.description)
        return 1
    }
}

/// Polls every millisecond until `path` exists; `false` after `timeout` seconds.
private func waitForFile(atPath path: String, timeout: TimeInterval) -> Bool {
    let deadline = Date().addingTimeInterval(timeout)
    while Date() < deadline {
        if access(path, F_OK) == 0 { return true }
        usleep(1_000)
    }
    return false
}

private func hexadecimal(_ bytes: [UInt8]) -> String {
    Hex.lowercase(bytes)
}
