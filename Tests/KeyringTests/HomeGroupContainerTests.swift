import Foundation
import GroupVaultTestKit
import Keyring
import XCTest

/// A `unixGroup` home's group is its root's: a group container a member made first in another
/// group they share with the victim (`users`; group 0 here) is refused, not used, since every
/// file the victim made there would belong to that group. The member (uid 4242) is played in
/// process, as root.
final class HomeGroupContainerTests: XCTestCase {
    private var directory: TemporaryDirectory!
    private let homeGroup: gid_t = 4300
    private let appGroup = GroupIdentifier(rawValue: "group.com.example")!

    override func setUpWithError() throws {
        try XCTSkipUnless(geteuid() == 0, "playing a member and other groups needs root")
        directory = try TemporaryDirectory(prefix: "home-group")
        XCTAssertEqual(mkdir(home.path, 0o700), 0)
        XCTAssertEqual(chown(home.path, 0, homeGroup), 0)
        XCTAssertEqual(chmod(home.path, 0o2770), 0)
    }

    override func tearDown() { directory?.remove() }

    private var home: URL { directory.url.appendingPathComponent("home") }

    private var keyring: Keyring {
        Keyring(identity: Identity(teamID: "ABCDE12345", bundleID: "com.example.app", applicationGroups: [appGroup]),
                home: KeyringHome(root: home, sharing: .unixGroup))
    }

    func testAContainerAMemberPutInAnotherGroupThanTheHomesIsRefused() throws {
        let containers = home.appendingPathComponent("Group Containers").path
        XCTAssertEqual(mkdir(containers, 0o700), 0)
        XCTAssertEqual(chown(containers, 0, homeGroup), 0)
        XCTAssertEqual(chmod(containers, 0o2770), 0)
        let planted = containers + "/" + appGroup.rawValue
        XCTAssertEqual(mkdir(planted, 0o700), 0)
        XCTAssertEqual(chown(planted, 4242, 0), 0)
        XCTAssertEqual(chmod(planted, 0o2770), 0)

        XCTAssertThrowsError(try keyring.containerURL(for: appGroup)) { error in
            XCTAssertEqual((error as? KeyringError)?.status, .notAvailable)
            XCTAssertTrue("\(error)".contains("not to the home's group \(homeGroup)"), "\(error)")
        }
    }

    func testAContainerThisProcessCreatesBelongsToTheHomesGroup() throws {
        let url = try XCTUnwrap(try keyring.containerURL(for: appGroup))

        var status = stat()
        XCTAssertEqual(stat(url.path, &status), 0)
        XCTAssertEqual(status.st_gid, homeGroup)
        XCTAssertEqual(status.st_mode & 0o7777, 0o2770)
    }

    func testAContainerAMemberMadeWithADefaultACLIsRefused() throws {
        typealias SetAttribute = @convention(c) (UnsafePointer<CChar>, UnsafePointer<CChar>, UnsafeRawPointer, Int, Int32) -> Int32
        let setAttribute = try XCTUnwrap(dlsym(nil, "setxattr").map { unsafeBitCast($0, to: SetAttribute.self) })
        let containers = home.appendingPathComponent("Group Containers").path
        XCTAssertEqual(mkdir(containers, 0o700), 0)
        XCTAssertEqual(chown(containers, 0, homeGroup), 0)
        XCTAssertEqual(chmod(containers, 0o2770), 0)
        let planted = containers + "/" + appGroup.rawValue
        XCTAssertEqual(mkdir(planted, 0o700), 0)
        XCTAssertEqual(chown(planted, 0, homeGroup), 0)
        XCTAssertEqual(chmod(planted, 0o2770), 0)
        // owner rwx, uid 4243 (outside the group) rwx, group rwx, mask rwx, others nothing.
        var acl: [UInt8] = []
        func append32(_ value: UInt32) { withUnsafeBytes(of: value.littleEndian) { acl.append(contentsOf: $0) } }
        func append16(_ value: UInt16) { withUnsafeBytes(of: value.littleEndian) { acl.append(contentsOf: $0) } }
        append32(2)
        for (tag, permissions, id) in [(UInt16(0x01), UInt16(7), UInt32.max), (0x02, 7, 4243), (0x04, 7, .max), (0x10, 7, .max), (0x20, 0, .max)] {
            append16(tag); append16(permissions); append32(id)
        }
        let result = acl.withUnsafeBytes { setAttribute(planted, "system.posix_acl_default", $0.baseAddress!, $0.count, 0) }
        try XCTSkipIf(result != 0 && (errno == ENOTSUP || errno == EOPNOTSUPP), "no ACL support on this file system")
        XCTAssertEqual(result, 0, "errno \(errno)")

        XCTAssertThrowsError(try keyring.containerURL(for: appGroup)) { error in
            XCTAssertEqual((error as? KeyringError)?.status, .notAvailable)
            XCTAssertTrue("\(error)".contains("setfacl -b -k"), "\(error)")
        }
    }
}
