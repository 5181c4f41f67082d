import Foundation
import GroupVaultTestKit
import Keyring
import SharedDefaults
import Vault
import XCTest

/// A throw-away keyring home with an identity entitled to one group, for SharedDefaults tests.
struct DefaultsSandbox {
    static let group = GroupIdentifier(rawValue: "group.com.example.shared")!
    static let otherGroup = GroupIdentifier(rawValue: "group.com.example.other")!

    let directory: TemporaryDirectory
    let home: KeyringHome
    let keyring: Keyring

    init() throws {
        directory = try TemporaryDirectory(prefix: "defaults-test")
        home = KeyringHome(root: directory.url)
        keyring = Keyring(
            identity: Identity(teamID: "ABCDE12345", bundleID: "com.example.app", applicationGroups: [Self.group]),
            home: home)
    }

    /// A suite object over this home: each call is a fresh view, as another process would have.
    func defaults(_ suite: String = DefaultsSandbox.group.rawValue) throws -> SharedDefaults {
        try SharedDefaults(suiteName: suite, group: Self.group, keyring: keyring, durability: .atomic)
    }

    /// The environment a child process needs to act on this home as an entitled identity.
    var childEnvironment: [String: String] { ["GROUPVAULT_HOME": directory.path] }

    /// The record files of the group, without hidden temporaries.
    func recordFiles() throws -> [URL] {
        let vault = try Vault(keyring: keyring, group: Self.group)
        let directory = URL(fileURLWithPath: vault.recordsDirectory.string)
        return try FileManager.default.contentsOfDirectory(at: directory, includingPropertiesForKeys: nil)
            .filter { !$0.lastPathComponent.hasPrefix(".") }
    }

    func remove() { directory.remove() }
}

/// Asserts that `body` throws a `SharedDefaultsError` with `code`.
func assertRefused<T>(
    _ code: SharedDefaultsError.Code,
    file: StaticString = #filePath,
    line: UInt = #line,
    _ body: () throws(SharedDefaultsError) -> T
) {
    do {
        let value = try body()
        XCTFail("expected \(code), got \(value)", file: file, line: line)
    } catch {
        XCTAssertEqual(error.code, code, "\(error)", file: file, line: line)
    }
}
