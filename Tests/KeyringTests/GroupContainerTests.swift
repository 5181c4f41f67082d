#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation
import GroupVaultTestKit
import XCTest

@testable import Keyring
import SealedStorage

final class GroupContainerTests: XCTestCase {
    private var directory: TemporaryDirectory!
    private let appGroup = GroupIdentifier(rawValue: "group.com.example")!

    override func setUpWithError() throws {
        directory = try TemporaryDirectory(prefix: "containers")
    }

    override func tearDown() {
        directory.remove()
    }

    private func keyring(sharing: StorageSharing = .ownerOnly, groups: [String] = ["group.com.example"]) -> Keyring {
        let identity = Identity(
            teamID: "ABCDE12345", bundleID: "com.example.app",
            keychainAccessGroups: [GroupIdentifier(rawValue: "ABCDE12345.com.example.shared")!],
            applicationGroups: groups.map { GroupIdentifier(rawValue: $0)! })
        return Keyring(identity: identity, home: KeyringHome(root: directory.url.appendingPathComponent("home"), sharing: sharing))
    }

    private var containerPath: String { directory.url.appendingPathComponent("home/Group Containers/group.com.example").path }

    /// Runs `body`, which must be refused with `status`, and returns the reason.
    private func refusal(_ status: KeyringStatus, _ body: () throws -> URL?, file: StaticString = #filePath, line: UInt = #line) -> String {
        do {
            let url = try body()
            XCTFail("expected a refusal, got \(String(describing: url))", file: file, line: line)
        } catch let error as KeyringError {
            XCTAssertEqual(error.status, status, error.reason, file: file, line: line)
            return error.reason
        } catch {
            XCTFail("expected a KeyringError, got \(error)", file: file, line: line)
        }
        return ""
    }

    // MARK: Entitlement

    func testContainerOfAGroupTheIdentityIsNotEntitledToIsNil() throws {
        XCTAssertNil(try keyring().containerURL(for: GroupIdentifier(rawValue: "group.com.other")!))
    }

    func testContainerOfAKeychainAccessGroupIsNil() throws {
        XCTAssertNil(try keyring().containerURL(for: GroupIdentifier(rawValue: "ABCDE12345.com.example.shared")!))
    }

    func testRefusedContainerCreatesNothing() throws {
        _ = try keyring().containerURL(for: GroupIdentifier(rawValue: "group.com.other")!)
        XCTAssertFalse(FileManager.default.fileExists(atPath: directory.url.appendingPathComponent("home").path))
    }

    /// Showing an identity reads it, and reading creates nothing (`vaultcli identity` created
    /// every container of the identity, 20,000 directories for 4,000 groups).
    func testContainerLocationIsTheContainerPathAndCreatesNothing() throws {
        let keyring = keyring()
        XCTAssertEqual(keyring.containerLocation(for: appGroup)?.standardizedFileURL.path, containerPath)
        XCTAssertNil(keyring.containerLocation(for: GroupIdentifier(rawValue: "group.com.other")!))
        XCTAssertFalse(FileManager.default.fileExists(atPath: directory.url.appendingPathComponent("home").path))
    }

    // MARK: Creation

    func testContainerIsGroupContainersSlashGroupUnderTheHome() throws {
        let url = try XCTUnwrap(try keyring().containerURL(for: appGroup))
        XCTAssertEqual(url.standardizedFileURL.path, containerPath)
        XCTAssertTrue(url.hasDirectoryPath)
    }

    func testContainerIsCreatedWithLibrarySubdirectories() throws {
        let url = try XCTUnwrap(try keyring().containerURL(for: appGroup))
        for subdirectory in ["Library", "Library/Caches", "Library/Application Support", "Library/Preferences"] {
            var isDirectory: ObjCBool = false
            XCTAssertTrue(FileManager.default.fileExists(atPath: url.appendingPathComponent(subdirectory).path, isDirectory: &isDirectory), subdirectory)
            XCTAssertTrue(isDirectory.boolValue, subdirectory)
        }
    }

    func testTeamPrefixedApplicationGroupGetsAContainer() throws {
        let group = GroupIdentifier(rawValue: "ABCDE12345.com.example.macos")!
        let url = try XCTUnwrap(try keyring(groups: [group.rawValue]).containerURL(for: group))
        XCTAssertEqual(url.lastPathComponent, "ABCDE12345.com.example.macos")
    }

    func testOwnerOnlyContainerDirectoriesAreMode0700WhateverTheUmask() throws {
        let previous = umask(0)
        defer { umask(previous) }
        let url = try XCTUnwrap(try keyring().containerURL(for: appGroup))
        for path in [url.deletingLastPathComponent().path, url.path, url.appendingPathComponent("Library").path, url.appendingPathComponent("Library/Caches").path] {
            XCTAssertEqual(IdentityFixtures.fileStatus(path)?.mode, 0o700, path)
        }
    }

    func testUnixGroupContainerDirectoriesAreSetgid2770() throws {
        let url = try XCTUnwrap(try keyring(sharing: .unixGroup).containerURL(for: appGroup))
        for path in [url.deletingLastPathComponent().path, url.path, url.appendingPathComponent("Library/Preferences").path] {
            XCTAssertEqual(IdentityFixtures.fileStatus(path)?.mode, 0o2770, path)
        }
    }

    func testSecondUseKeepsTheContainersContents() throws {
        let keyring = keyring()
        let url = try XCTUnwrap(try keyring.containerURL(for: appGroup))
        let file = url.appendingPathComponent("state.bin")
        try Data("kept".utf8).write(to: file)
        XCTAssertEqual(try keyring.containerURL(for: appGroup), url)
        XCTAssertEqual(try Data(contentsOf: file), Data("kept".utf8))
    }

    func testConcurrentFirstUsesAllGetTheContainer() throws {
        let keyring = keyring()
        let group = appGroup
        let results = Locked<[Result<URL?, KeyringError>]>([])
        DispatchQueue.concurrentPerform(iterations: 8) { _ in
            let result = Result { () throws(KeyringError) in try keyring.containerURL(for: group) }
            results.withLock { $0.append(result) }
        }
        let urls = try results.withLock { try $0.map { try $0.get() } }
        XCTAssertEqual(urls, Array(repeating: URL(fileURLWithPath: containerPath, isDirectory: true), count: 8))
    }

    // MARK: Refusals

    func testContainerThatIsASymbolicLinkIsRefused() throws {
        let elsewhere = directory.url.appendingPathComponent("elsewhere")
        try FileManager.default.createDirectory(at: elsewhere, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o700])
        try FileManager.default.createDirectory(atPath: directory.url.appendingPathComponent("home/Group Containers").path, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        try FileManager.default.createSymbolicLink(atPath: containerPath, withDestinationPath: elsewhere.path)
        let reason = refusal(.notAvailable) { try keyring().containerURL(for: appGroup) }
        XCTAssertTrue(reason.contains(containerPath), reason)
        XCTAssertTrue(reason.contains("symbolic link"), reason)
        XCTAssertTrue(reason.contains("Remove the link"), reason)
        XCTAssertFalse(FileManager.default.fileExists(atPath: elsewhere.appendingPathComponent("Library").path), "nothing may be created through the link")
    }

    func testGroupContainersDirectoryThatIsASymbolicLinkIsRefused() throws {
        let elsewhere = directory.url.appendingPathComponent("elsewhere")
        try FileManager.default.createDirectory(at: elsewhere, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o700])
        try FileManager.default.createDirectory(at: directory.url.appendingPathComponent("home"), withIntermediateDirectories: false, attributes: [.posixPermissions: 0o700])
        let parent = directory.url.appendingPathComponent("home/Group Containers").path
        try FileManager.default.createSymbolicLink(atPath: parent, withDestinationPath: elsewhere.path)
        let reason = refusal(.notAvailable) { try keyring().containerURL(for: appGroup) }
        XCTAssertTrue(reason.contains(parent), reason)
        XCTAssertTrue(reason.contains("symbolic link"), reason)
    }

    func testContainerWritableByOthersIsRefusedWithTheChmodThatFixesIt() throws {
        let url = try XCTUnwrap(try keyring().containerURL(for: appGroup))
        XCTAssertEqual(chmod(url.path, 0o777), 0)
        let reason = refusal(.notAvailable) { try keyring().containerURL(for: appGroup) }
        XCTAssertTrue(reason.contains("mode 777"), reason)
        XCTAssertTrue(reason.contains("chmod 700 '\(containerPath)'"), reason)
    }

    func testUnixGroupContainerWritableByOthersIsRefusedWithTheChmodThatFixesIt() throws {
        let url = try XCTUnwrap(try keyring(sharing: .unixGroup).containerURL(for: appGroup))
        XCTAssertEqual(chmod(url.path, 0o2772), 0)
        let reason = refusal(.notAvailable) { try keyring(sharing: .unixGroup).containerURL(for: appGroup) }
        XCTAssertTrue(reason.contains("chmod 2770 '\(containerPath)'"), reason)
    }

    func testSubdirectoryOpenToOthersIsRefused() throws {
        let url = try XCTUnwrap(try keyring().containerURL(for: appGroup))
        let caches = url.appendingPathComponent("Library/Caches").path
        XCTAssertEqual(chmod(caches, 0o707), 0)
        let reason = refusal(.notAvailable) { try keyring().containerURL(for: appGroup) }
        XCTAssertTrue(reason.contains(caches), reason)
    }

    func testContainerOwnedByAnotherUserIsRefusedWithTheChownThatFixesIt() throws {
        try XCTSkipUnless(geteuid() == 0, "changing a directory's owner needs root (CI runs as root)")
        let url = try XCTUnwrap(try keyring().containerURL(for: appGroup))
        XCTAssertEqual(chown(url.path, 65534, 65534), 0)
        let reason = refusal(.notAvailable) { try keyring().containerURL(for: appGroup) }
        XCTAssertTrue(reason.contains("owned by uid 65534"), reason)
        XCTAssertTrue(reason.contains("chown \(geteuid()) '\(containerPath)'"), reason)
    }

    func testSubdirectoryThatIsAFileIsRefused() throws {
        let url = try XCTUnwrap(try keyring().containerURL(for: appGroup))
        let preferences = url.appendingPathComponent("Library/Preferences")
        try FileManager.default.removeItem(at: preferences)
        try Data().write(to: preferences)
        let reason = refusal(.notAvailable) { try keyring().containerURL(for: appGroup) }
        XCTAssertTrue(reason.contains("not a directory"), reason)
    }
}
