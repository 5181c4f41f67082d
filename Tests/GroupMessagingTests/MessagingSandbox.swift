import Foundation
import GroupVaultTestKit
import Keyring

/// A throw-away keyring home and an identity entitled to one application group, plus helpers
/// to start GroupMessagingFixture children over the same home.
struct MessagingSandbox {
    static let group = GroupIdentifier(rawValue: "group.com.example.msg")!
    static let otherGroup = GroupIdentifier(rawValue: "group.com.example.other")!

    let home: TemporaryDirectory
    let keyring: Keyring

    /// `prefix` is kept short: socket paths live under the home and sun_path is 108 bytes.
    init() throws {
        home = try TemporaryDirectory(prefix: "gm")
        keyring = Keyring(
            identity: Identity(teamID: "ABCDE12345", bundleID: "com.example.tests", applicationGroups: [Self.group]),
            home: KeyringHome(root: home.url))
    }

    /// A keyring over the same home whose identity is only in `otherGroup`.
    var outsider: Keyring {
        Keyring(
            identity: Identity(teamID: "ABCDE12345", bundleID: "com.example.outsider", applicationGroups: [Self.otherGroup]),
            home: KeyringHome(root: home.url))
    }

    /// Starts `GroupMessagingFixture <command> --group <group> <arguments>` over this home.
    func start(_ command: String, _ arguments: [String] = []) throws -> FixtureProcess {
        try FixtureProcess(
            [command, "--group", Self.group.rawValue] + arguments,
            environment: ["GROUPVAULT_HOME": home.path],
            executable: "GroupMessagingFixture")
    }

    /// Waits until `process` has printed `line` (a whole line) `count` times; fails after
    /// `limit` seconds, a guard against hanging, not a timing requirement.
    func await(_ line: String, count: Int = 1, in process: FixtureProcess, limit: Double = 60) throws {
        let deadline = Date().addingTimeInterval(limit)
        while Date() < deadline {
            if process.standardOutput.split(separator: "\n").filter({ $0 == line }).count >= count { return }
            usleep(5_000)
        }
        throw FixtureTimeout(message: "no \(count)x \"\(line)\" from the child within \(limit) s; output: \(process.standardOutput) errors: \(process.standardError)")
    }

    func remove() { home.remove() }
}

struct FixtureTimeout: Error, CustomStringConvertible {
    var message: String
    var description: String { message }
}
