import Foundation
import GroupVaultTestKit
import Keyring
import SealedStorage
import XCTest

/// A warm lookup keeps the keyring database, its keys and its prepared statements, and checks
/// that they are still this home's: one look at the home's watched directories, and the
/// checks themselves only when it finds that something happened to them
/// (HomeDirectories.Look); every item it returns is read from the database as it is now. Each
/// test warms the process first, then changes something behind it, and shows the next lookup
/// sees the change.
final class WarmLookupTests: ItemTestCase {
    private let group = ItemTestHome.shared

    private let query = ItemQuery(service: "api", account: "me", accessGroup: ItemTestHome.shared)

    /// Adds the item `query` finds and looks it up twice, so the second lookup was warm.
    private func warmUp() throws -> Keyring {
        let keyring = home.keyring()
        try keyring.add(KeychainItem(service: "api", account: "me", accessGroup: group, secret: Data("one".utf8)))
        XCTAssertEqual(try keyring.item(matching: query).secret, Data("one".utf8))
        XCTAssertEqual(try keyring.item(matching: query).secret, Data("one".utf8))
        return keyring
    }

    func testAnItemChangedByAnotherProcessIsSeenByTheNextWarmLookup() throws {
        let keyring = try warmUp()

        let child = try FixtureProcess.run(
            ["set-secret", "--team", ItemTestHome.team, "--group", group.rawValue, "--service", "api", "--account", "me", "--value", "two", "--repeat", "1", "--times", "1"],
            environment: ["GROUPVAULT_HOME": home.home.root.path])
        XCTAssertEqual(child.status, 0, child.errors)

        XCTAssertEqual(try keyring.item(matching: query).secret, Data("two".utf8))
    }

    func testAReplacedMasterKeyIsNotServedFromTheWarmDatabase() throws {
        let keyring = try warmUp()
        let masterKey = home.home.root.appendingPathComponent("Keychains").appendingPathComponent("master.key")
        try FileManager.default.removeItem(at: masterKey)
        try Data(repeating: 7, count: 32).write(to: masterKey)
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: masterKey.path)

        // The database is bound to the old master secret: under the new one it is refused.
        XCTAssertThrowsError(try keyring.item(matching: query)) { error in
            XCTAssertEqual((error as? KeyringError)?.status, .decode, "\(error)")
        }
    }

    func testAKeychainsDirectoryOpenedToOthersIsRefusedByTheNextWarmLookup() throws {
        let keyring = try warmUp()
        let keychains = home.home.root.appendingPathComponent("Keychains")
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: keychains.path)
        defer { try? FileManager.default.setAttributes([.posixPermissions: 0o700], ofItemAtPath: keychains.path) }

        XCTAssertThrowsError(try keyring.item(matching: query)) { error in
            XCTAssertEqual((error as? KeyringError)?.status, .notAvailable, "\(error)")
        }
    }

    func testAWarmLookupOfAnUnchangedHomeLooksUpNoFileAndVetsNoDirectory() throws {
        let keyring = try warmUp()

        let calls = try FileLayerDriver.with { driver in
            XCTAssertEqual(try keyring.item(matching: query).secret, Data("one".utf8))
            return driver.trace
        }

        XCTAssertEqual(calls.filter { $0.call == .status }, [], "every check answered from the last look's")
        XCTAssertEqual(calls.filter { $0.call == .inotifyRead }.count, 1, "one look at the home's directories")
    }

    func testAWarmLookupAfterThisProcessesOwnAddLooksUpNoFile() throws {
        let keyring = try warmUp()
        try keyring.add(KeychainItem(service: "api", account: "other", accessGroup: group, secret: Data("two".utf8)))

        // The add wrote only the database, whose files the look does not count.
        let calls = try FileLayerDriver.with { driver in
            XCTAssertEqual(try keyring.item(matching: query).secret, Data("one".utf8))
            return driver.trace
        }

        XCTAssertEqual(calls.filter { $0.call == .status }, [], "every check answered from the last look's")
    }

    func testALockSetByAnotherHomeValueIsSeenByTheNextWarmLookup() throws {
        let keyring = try warmUp()

        try KeyringHome(root: home.home.root).setLockState(.locked)

        XCTAssertThrowsError(try keyring.item(matching: query)) { error in
            XCTAssertEqual((error as? KeyringError)?.status, .interactionNotAllowed, "\(error)")
        }
    }

    func testAFileAppearingInKeychainsMakesTheNextWarmLookupLookAgain() throws {
        let keyring = try warmUp()

        // A wrapped unlock key appearing is what passphrase mode is (Keychains/passphrase.wrapped):
        // the next lookup must look for it again rather than answer from the last look's.
        let wrapped = home.home.root.appendingPathComponent("Keychains").appendingPathComponent("passphrase.wrapped")
        try Data(repeating: 1, count: 64).write(to: wrapped)
        defer { try? FileManager.default.removeItem(at: wrapped) }

        let calls = FileLayerDriver.with { driver in
            _ = try? keyring.item(matching: query)
            return driver.trace
        }
        XCTAssertTrue(calls.contains { $0.call == .status && $0.name == "passphrase.wrapped" }, "\(calls)")
    }
}
