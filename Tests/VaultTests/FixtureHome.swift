import Foundation
import GroupVaultTestKit
import Keyring
import XCTest

/// A copy of one of the homes under Fixtures/ (see its README), in a temporary directory, with
/// the modes a home has: git keeps none.
struct FixtureHome {
    private static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures")

    private let directory: TemporaryDirectory
    /// The copied home.
    let home: KeyringHome

    /// Copies the fixture home `name` (a directory of Fixtures/).
    init(copying name: String) throws {
        directory = try TemporaryDirectory(prefix: name)
        let root = directory.url.appendingPathComponent("home")
        try FileManager.default.copyItem(at: Self.fixtures.appendingPathComponent(name), to: root)
        try Self.giveHomeModes(root)
        home = KeyringHome(root: root)
    }

    /// A keyring on the copy for an application whose identity has `groups`.
    func keyring(groups: [GroupIdentifier]) -> Keyring {
        Keyring(identity: Identity(teamID: "ABCDE12345", bundleID: "com.example.tests", applicationGroups: groups), home: home)
    }

    func remove() { directory.remove() }

    /// A home's directories are 0700 and its files 0600.
    private static func giveHomeModes(_ root: URL) throws {
        let manager = FileManager.default
        try manager.setAttributes([.posixPermissions: 0o700], ofItemAtPath: root.path)
        for case let path as String in manager.enumerator(atPath: root.path)! {
            let url = root.appendingPathComponent(path)
            var isDirectory: ObjCBool = false
            _ = manager.fileExists(atPath: url.path, isDirectory: &isDirectory)
            try manager.setAttributes([.posixPermissions: isDirectory.boolValue ? 0o700 : 0o600], ofItemAtPath: url.path)
        }
    }
}

/// The arrangement of the tests of a fixture home, written once: a fresh copy of
/// ``fixture`` for every test, with a keyring on it for ``group``, removed after it.
class FixtureHomeTestCase: XCTestCase {
    /// The group the fixture homes hold (their READMEs).
    static let group = GroupIdentifier(rawValue: "group.com.example.shared")!

    /// The fixture this class's tests copy: a directory of Fixtures/.
    class var fixture: String { preconditionFailure("\(Self.self) names no fixture") }

    /// This test's copy.
    private(set) var home: FixtureHome!
    /// A keyring on the copy for an application of ``group``.
    private(set) var keyring: Keyring!

    override func setUpWithError() throws {
        try super.setUpWithError()
        home = try FixtureHome(copying: Self.fixture)
        keyring = home.keyring(groups: [Self.group])
    }

    override func tearDown() {
        KeyringDatabase.closeAll()
        home?.remove()
        super.tearDown()
    }
}
