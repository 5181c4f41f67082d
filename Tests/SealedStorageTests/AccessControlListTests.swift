import Foundation
import GroupVaultTestKit
import SealedStorage
import SystemPackage
import XCTest

/// The mode bits cannot show a POSIX ACL's named entries (with one, the group bits show the
/// ACL's mask), so a directory reading 2770 can grant a user outside the group full access,
/// and its default ACL is inherited by every file made in it (`fchmod(0660)` narrows the entry
/// to `rw-`, it does not remove it). A shared directory carrying an ACL is refused when it is
/// opened as a home's (``DirectoryHandle/boundToItsGroup()``,
/// ``DirectoryHandle/checkNoAccessControlList()``).
final class AccessControlListTests: XCTestCase {
    private var directory: TemporaryDirectory!
    /// A user outside the group.
    private let outsider: UInt32 = 4243

    override func setUpWithError() throws {
        directory = try TemporaryDirectory(prefix: "acl")
        try XCTSkipIf(Self.setExtendedAttribute == nil, "setxattr not found")
    }

    override func tearDown() { directory?.remove() }

    private typealias SetAttribute = @convention(c) (UnsafePointer<CChar>, UnsafePointer<CChar>, UnsafeRawPointer, Int, Int32) -> Int32
    private static let setExtendedAttribute: SetAttribute? = dlsym(nil, "setxattr").map { unsafeBitCast($0, to: SetAttribute.self) }

    /// Linux's xattr form of an ACL (version 2; entries tag, permissions, id, sorted by tag):
    /// owner rwx, `user` rwx, owning group rwx, mask rwx, others nothing.
    private func acl(granting user: UInt32) -> [UInt8] {
        var bytes: [UInt8] = []
        func append32(_ value: UInt32) { withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) } }
        func append16(_ value: UInt16) { withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) } }
        append32(2)
        for (tag, permissions, id) in [(UInt16(0x01), UInt16(7), UInt32.max), (0x02, 7, user), (0x04, 7, .max), (0x10, 7, .max), (0x20, 0, .max)] {
            append16(tag); append16(permissions); append32(id)
        }
        return bytes
    }

    /// A member's shared directory: mode 2770, and the ACLs `attributes` granting `outsider`.
    private func makeDirectory(withACLs attributes: [String], at path: FilePath? = nil) throws -> FilePath {
        let path = path ?? FilePath(directory.path).appending("shared")
        XCTAssertEqual(mkdir(path.string, 0o700), 0)
        XCTAssertEqual(chmod(path.string, 0o2770), 0)
        let entries = acl(granting: outsider)
        for name in attributes {
            let result = entries.withUnsafeBytes { Self.setExtendedAttribute!(path.string, name, $0.baseAddress!, $0.count, 0) }
            try XCTSkipIf(result != 0 && (errno == ENOTSUP || errno == EOPNOTSUPP), "no ACL support on this file system")
            XCTAssertEqual(result, 0, "setxattr \(name): errno \(errno)")
        }
        var status = stat()
        XCTAssertEqual(stat(path.string, &status), 0)
        XCTAssertEqual(status.st_mode & 0o7777, 0o2770, "the mode bits show nothing of the outsider")
        return path
    }

    private func assertRefusedForItsACL(_ error: any Error, file: StaticString = #filePath, line: UInt = #line) {
        let error = error as? StorageError
        XCTAssertEqual(error?.kind, .insecurePermissions(mode: 0o2770), file: file, line: line)
        XCTAssertTrue(error?.hint?.contains("setfacl -b") == true, "\(String(describing: error))", file: file, line: line)
    }

    func testAHomesRootWhoseACLGrantsAUserOutsideTheGroupIsRefused() throws {
        let path = try makeDirectory(withACLs: ["system.posix_acl_access", "system.posix_acl_default"])

        XCTAssertThrowsError(try DirectoryHandle(opening: path, sharing: .unixGroup).boundToItsGroup()) { assertRefusedForItsACL($0) }
    }

    /// Only a default ACL: the directory itself admits nobody more, but every file made in it
    /// would inherit the outsider's entry.
    func testASharedDirectoryWithADefaultACLIsRefusedWhenOpened() throws {
        let path = try makeDirectory(withACLs: ["system.posix_acl_default"])

        XCTAssertThrowsError(try DirectoryHandle(opening: path, sharing: .unixGroup)) { assertRefusedForItsACL($0) }
    }

    /// Below a container (`GroupVault/`, `GroupDatabase/`, `notifications/`): every shared
    /// directory opened is asked, not only the home's and the containers.
    func testASharedSubdirectoryWithADefaultACLIsRefusedWhenOpenedFromItsParent() throws {
        let parent = try makeDirectory(withACLs: [])
        _ = try makeDirectory(withACLs: ["system.posix_acl_default"], at: parent.appending("child"))
        let handle = try DirectoryHandle(opening: parent, sharing: .unixGroup)

        XCTAssertThrowsError(try handle.subdirectory("child", creating: false)) { assertRefusedForItsACL($0) }
    }

    func testASharedDirectoryWithoutAnACLIsAccepted() throws {
        let path = try makeDirectory(withACLs: [])

        XCTAssertNoThrow(try DirectoryHandle(opening: path, sharing: .unixGroup).boundToItsGroup().checkNoAccessControlList())
    }

    /// Owner-only directories are not asked: only this user can set an ACL on them.
    func testAnOwnerOnlyDirectoryIsNotAskedForAnACL() throws {
        let path = try makeDirectory(withACLs: [])
        XCTAssertEqual(chmod(path.string, 0o700), 0)
        let handle = try DirectoryHandle(opening: path, sharing: .ownerOnly)

        try FaultInjection.withFault(.fail(.ioError), at: .call(.readExtendedAttribute)) {
            XCTAssertNoThrow(try handle.checkNoAccessControlList())
        }
    }

    /// What cannot be asked is not trusted: a failing fgetxattr refuses the directory.
    func testAFailingACLQueryRefusesTheDirectory() throws {
        let path = try makeDirectory(withACLs: [])
        let handle = try DirectoryHandle(opening: path, sharing: .unixGroup)

        try FaultInjection.withFault(.fail(.ioError), at: .call(.readExtendedAttribute)) {
            XCTAssertThrowsError(try handle.checkNoAccessControlList()) { error in
                XCTAssertEqual((error as? StorageError)?.kind, .system(.ioError))
            }
        }
    }
}
