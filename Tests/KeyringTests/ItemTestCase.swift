import Foundation
import GroupVaultTestKit
@testable import Keyring
import SealedStorage
import XCTest

/// A throw-away keyring home with an identity that has three access groups, in Apple's order:
/// a keychain access group, the application identifier, and an application group.
struct ItemTestHome {
    static let team = "ABCDE12345"
    static let shared = GroupIdentifier(rawValue: "ABCDE12345.com.example.shared")!
    static let application = GroupIdentifier(rawValue: "ABCDE12345.com.example.app")!
    static let appGroup = GroupIdentifier(rawValue: "group.com.example")!
    static let identity = Identity(teamID: team, bundleID: "com.example.app", keychainAccessGroups: [shared], applicationGroups: [appGroup])

    let directory: TemporaryDirectory
    let home: KeyringHome

    init() throws {
        directory = try TemporaryDirectory(prefix: "groupvault-items")
        home = KeyringHome(root: directory.url.appendingPathComponent("home", isDirectory: true))
    }

    func keyring(_ identity: Identity = ItemTestHome.identity) -> Keyring {
        Keyring(identity: identity, home: home)
    }

    /// The keyring database holding every group's items.
    var databaseFile: URL {
        home.root.appendingPathComponent("Keychains").appendingPathComponent("keyring.db")
    }

    func remove() { directory.remove() }
}

/// The arrangement most keyring tests share, written once: a fresh ``ItemTestHome`` for every
/// test, removed after it, with no fault left armed and no connection left open for the next
/// test (a subclass's own `tearDown` runs first, then this one's).
class ItemTestCase: XCTestCase {
    /// This test's home.
    private(set) var home: ItemTestHome!

    override func setUpWithError() throws {
        try super.setUpWithError()
        home = try ItemTestHome()
    }

    override func tearDown() {
        FaultInjection.disarmAll()
        KeyringDatabase.closeAll()
        home?.remove()
        home = nil
        super.tearDown()
    }

    /// A keyring on this test's home with the default identity.
    var keyring: Keyring { home.keyring() }

    /// `body` is refused as damage (`decode`), with a reason naming each of `fragments`: how a
    /// keyring database altered behind the keyring's back must be reported.
    func assertRefusedAsDamaged(_ body: () throws -> Void, naming fragments: [String], file: StaticString = #filePath, line: UInt = #line) {
        guard let error = keyringError(body, file: file, line: line) else { return }
        XCTAssertEqual(error.status, .decode, error.reason, file: file, line: line)
        for fragment in fragments {
            XCTAssertTrue(error.reason.contains(fragment), "\"\(fragment)\" missing from: \(error.reason)", file: file, line: line)
        }
    }

    /// The error `body` throws, which must be a `KeyringError`.
    func keyringError(_ body: () throws -> Void, file: StaticString = #filePath, line: UInt = #line) -> KeyringError? {
        do {
            try body()
            XCTFail("no error", file: file, line: line)
        } catch let error as KeyringError {
            return error
        } catch {
            XCTFail("not a KeyringError: \(error)", file: file, line: line)
        }
        return nil
    }
}
