import Foundation
import GroupVaultTestKit
import SealedStorage
import SystemPackage
import XCTest

/// Specification of shared directories: created with an exact mode, and refused when another
/// user could swap or read what is in them.
final class SafeDirectoryTests: XCTestCase {
    private var directory: TemporaryDirectory!
    private var root: FilePath { FilePath(directory.path) }

    override func setUpWithError() throws {
        directory = try TemporaryDirectory(prefix: "groupvault-safedirectory")
    }

    override func tearDown() {
        directory?.remove()
        directory = nil
    }

    func testOwnerOnlyDirectoriesAre0700WithTheirMissingParents() throws {
        let nested = root.appending("a/b/c")

        let created = try FileInspection.withUmask(0o077) { try SafeDirectory.ensure(nested, sharing: .ownerOnly) }

        XCTAssertTrue(created)
        for path in [root.appending("a"), root.appending("a/b"), nested] {
            XCTAssertEqual(try FileInspection.mode(of: path), 0o700, path.string)
        }
    }

    func testUnixGroupDirectoriesAreSetgid2770WhateverTheUmask() throws {
        for (index, mask) in [UInt16(0o000), 0o022, 0o077].enumerated() {
            let path = root.appending("shared\(index)")

            try FileInspection.withUmask(mask) { _ = try SafeDirectory.ensure(path, sharing: .unixGroup) }

            XCTAssertEqual(try FileInspection.mode(of: path), 0o2770, "umask \(String(mask, radix: 8))")
        }
    }

    func testEnsuringAnExistingGoodDirectoryCreatesNothing() throws {
        let path = root.appending("existing")
        try SafeDirectory.ensure(path, sharing: .ownerOnly)

        XCTAssertFalse(try SafeDirectory.ensure(path, sharing: .ownerOnly))
    }

    func testSymbolicLinkIsRefused() throws {
        let real = root.appending("real")
        let link = root.appending("link")
        try SafeDirectory.ensure(real, sharing: .ownerOnly)
        try FileManager.default.createSymbolicLink(atPath: link.string, withDestinationPath: real.string)

        let error = try storageError { try SafeDirectory.ensure(link, sharing: .ownerOnly) }

        XCTAssertEqual(error.kind, .symbolicLink)
    }

    func testRegularFileIsRefused() throws {
        let file = root.appending("file")
        try FileInspection.write([1], to: file)

        let error = try storageError { try SafeDirectory.ensure(file, sharing: .ownerOnly) }

        XCTAssertEqual(error.kind, .wrongFileType)
    }

    func testDirectoryWritableByOthersIsRefused() throws {
        let path = root.appending("open")
        try SafeDirectory.ensure(path, sharing: .unixGroup)
        chmod(path.string, 0o2772)

        let error = try storageError { try SafeDirectory.check(path, sharing: .unixGroup) }

        XCTAssertEqual(error.kind, .insecurePermissions(mode: 0o772))
        XCTAssertTrue(error.description.contains("chmod o-rwx"), error.description)
    }

    func testOwnerOnlyDirectoryOpenToTheGroupIsRefused() throws {
        let path = root.appending("grouped")
        try SafeDirectory.ensure(path, sharing: .ownerOnly)
        chmod(path.string, 0o750)

        let error = try storageError { try SafeDirectory.check(path, sharing: .ownerOnly) }

        XCTAssertEqual(error.kind, .insecurePermissions(mode: 0o750))
    }

    func testDirectoryOwnedByAnotherUserIsRefused() throws {
        try XCTSkipUnless(geteuid() == 0, "handing a directory to another user needs root")
        let path = root.appending("theirs")
        try SafeDirectory.ensure(path, sharing: .ownerOnly)
        XCTAssertEqual(chown(path.string, 65534, 65534), 0)

        let error = try storageError { try SafeDirectory.check(path, sharing: .ownerOnly) }

        XCTAssertEqual(error.kind, .wrongOwner(owner: 65534, expected: UInt32(geteuid())))
        XCTAssertTrue(error.description.contains("uid 65534"), error.description)
    }

    func testMissingDirectoryFailsTheCheck() throws {
        let error = try storageError { try SafeDirectory.check(root.appending("absent"), sharing: .ownerOnly) }

        XCTAssertEqual(error.kind, .system(.noSuchFileOrDirectory))
    }
}
