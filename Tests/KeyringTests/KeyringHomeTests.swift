#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation
import GroupVaultTestKit
import SealedStorage
import XCTest

@testable import Keyring

final class KeyringHomeTests: XCTestCase {
    private var directory: TemporaryDirectory!

    override func setUpWithError() throws {
        directory = try TemporaryDirectory(prefix: "home")
    }

    override func tearDown() {
        directory.remove()
    }

    private var home: KeyringHome { KeyringHome(root: directory.url.appendingPathComponent("root")) }

    // MARK: Resolution from the environment

    func testGroupVaultHomeWinsOverEverythingElse() throws {
        let home = try KeyringHome.fromEnvironment(["GROUPVAULT_HOME": "/srv/vault", "XDG_DATA_HOME": "/data", "HOME": "/home/me"])
        XCTAssertEqual(home.root.path, "/srv/vault")
    }

    func testXDGDataHomeIsUsedWithoutGroupVaultHome() throws {
        let home = try KeyringHome.fromEnvironment(["XDG_DATA_HOME": "/data", "HOME": "/home/me"])
        XCTAssertEqual(home.root.path, "/data/groupvault")
    }

    func testRelativeXDGDataHomeIsIgnoredAsTheSpecificationRequires() throws {
        let home = try KeyringHome.fromEnvironment(["XDG_DATA_HOME": "data", "HOME": "/home/me"])
        XCTAssertEqual(home.root.path, "/home/me/.local/share/groupvault")
    }

    func testHomeDirectoryFallbackIsLocalShareGroupVault() throws {
        let home = try KeyringHome.fromEnvironment(["HOME": "/home/me"])
        XCTAssertEqual(home.root.path, "/home/me/.local/share/groupvault")
    }

    func testEmptyGroupVaultHomeCountsAsUnset() throws {
        let home = try KeyringHome.fromEnvironment(["GROUPVAULT_HOME": "", "HOME": "/home/me"])
        XCTAssertEqual(home.root.path, "/home/me/.local/share/groupvault")
    }

    func testSharingIsOwnerOnlyUnlessUnixGroupIsAsked() {
        XCTAssertEqual(try KeyringHome.fromEnvironment(["GROUPVAULT_HOME": "/v"]).sharing, .ownerOnly)
        XCTAssertEqual(try KeyringHome.fromEnvironment(["GROUPVAULT_HOME": "/v", "GROUPVAULT_SHARING": "unixGroup"]).sharing, .unixGroup)
    }

    func testAMisspelledSharingModeIsRefusedRatherThanIgnored() {
        XCTAssertThrowsError(try KeyringHome.fromEnvironment(["GROUPVAULT_HOME": "/v", "GROUPVAULT_SHARING": "group"])) { error in
            XCTAssertEqual((error as? KeyringError)?.status, .invalidParameter)
            XCTAssertTrue((error as? KeyringError)?.reason.contains("unixGroup") ?? false, "the reason lists the valid values")
        }
    }

    func testRootIsStandardizedSoEqualPathsGiveEqualHomes() {
        XCTAssertEqual(KeyringHome(root: URL(fileURLWithPath: "/srv/./vault/../vault")), KeyringHome(root: URL(fileURLWithPath: "/srv/vault")))
    }

    // MARK: Master key

    func testMasterKeyFileIs32BytesOwnerOnly() throws {
        _ = try home.masterKey()
        let path = home.masterKeyPath.string
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: path)).count, 32)
        XCTAssertEqual(IdentityFixtures.fileStatus(path)?.mode, 0o600)
    }

    func testMasterKeyIsCreatedOnceAndReadBackAfterwards() throws {
        let first = try home.masterKey()
        let second = try KeyringHome(root: home.root).masterKey()
        XCTAssertTrue(first.constantTimeEquals(second))
    }

    func testConcurrentFirstUsesOfTheMasterKeyAgreeOnOneKey() throws {
        let root = home.root
        let keys = Locked<[Result<SymmetricKey, KeyringError>]>([])
        DispatchQueue.concurrentPerform(iterations: 8) { _ in
            // Each thread its own KeyringHome value, as separate callers would have.
            let result = Result { () throws(KeyringError) in try KeyringHome(root: root).masterKey() }
            keys.withLock { $0.append(result) }
        }
        let all = try keys.withLock { try $0.map { try $0.get() } }
        XCTAssertEqual(all.count, 8)
        for key in all.dropFirst() {
            XCTAssertTrue(key.constantTimeEquals(all[0]), "every caller must get the one key on disk")
        }
        let onDisk = try SymmetricKey(bytes: [UInt8](Data(contentsOf: URL(fileURLWithPath: home.masterKeyPath.string))))
        XCTAssertTrue(onDisk.constantTimeEquals(all[0]))
    }

    func testTruncatedMasterKeyIsReportedAsCorruptedNotReplaced() throws {
        try home.prepareKeychains()
        let path = home.masterKeyPath.string
        XCTAssertTrue(FileManager.default.createFile(atPath: path, contents: Data(repeating: 7, count: 16), attributes: [.posixPermissions: 0o600]))
        XCTAssertThrowsError(try home.masterKey()) { error in
            let error = error as! KeyringError
            XCTAssertEqual(error.status, .decode)
            XCTAssertTrue(error.reason.contains("16 bytes, not 32"), error.reason)
        }
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: path)).count, 16, "a corrupted key must never be overwritten")
    }

    func testMasterKeyReadableByOthersIsRefused() throws {
        _ = try home.masterKey()
        XCTAssertEqual(chmod(home.masterKeyPath.string, 0o644), 0)
        XCTAssertThrowsError(try home.masterKey()) { error in
            let error = error as! KeyringError
            XCTAssertEqual(error.status, .notAvailable)
            XCTAssertTrue(error.reason.contains("master.key"), error.reason)
        }
    }

    // MARK: Device lock state

    func testNewHomeIsUnlocked() throws {
        XCTAssertEqual(try home.lockState(), .unlocked)
    }

    func testLockStateIsSharedByEveryHomeValueWithTheSameRoot() throws {
        for state in DeviceLockState.allCases {
            try home.setLockState(state)
            XCTAssertEqual(try KeyringHome(root: home.root).lockState(), state)
        }
    }

    func testLockStateOfOneHomeDoesNotAffectAnother() throws {
        try home.setLockState(.locked)
        let other = KeyringHome(root: directory.url.appendingPathComponent("other"))
        XCTAssertEqual(try other.lockState(), .unlocked)
    }

    func testLockStateFileIsOwnerOnly() throws {
        try home.setLockState(.beforeFirstUnlock)
        XCTAssertEqual(IdentityFixtures.fileStatus(home.lockStatePath.string)?.mode, 0o600)
    }

    func testCorruptedLockStateIsADecodeErrorThatNamesTheFileAndTheValidStates() throws {
        try home.prepareKeychains()
        try Data("half-locked\n".utf8).write(to: URL(fileURLWithPath: home.lockStatePath.string))
        XCTAssertThrowsError(try home.lockState()) { error in
            let error = error as! KeyringError
            XCTAssertEqual(error.status, .decode)
            XCTAssertTrue(error.reason.contains(self.home.lockStatePath.string), error.reason)
            for state in DeviceLockState.allCases {
                XCTAssertTrue(error.reason.contains(state.rawValue), error.reason)
            }
        }
    }
}
