import Foundation
import GroupVaultTestKit
import SealedStorage
import SystemPackage
import XCTest

/// In a `unixGroup` home, "the group" is the home's: the gid of its root, carried by the
/// sharing of every handle reached from it (``DirectoryHandle/boundToItsGroup()``). Being in
/// *some* group of an entry is not enough: a member who shares another group with the victim
/// (`users` on many systems; group 0 here, the test process's) could otherwise put a directory
/// of the home in that group, and every file the victim makes there would be open to it.
/// The member (uid 4242) is played in process, as root, with `chown`.
final class HomeGroupTests: XCTestCase {
    private var directory: TemporaryDirectory!
    /// The home's group; the test process (root) is not in it unless a test adds it.
    private let homeGroup: gid_t = 4300
    private let member: uid_t = 4242

    override func setUpWithError() throws {
        try XCTSkipUnless(geteuid() == 0, "playing a member and other groups needs root")
        directory = try TemporaryDirectory(prefix: "home-group")
        XCTAssertEqual(chown(directory.path, 0, homeGroup), 0)
        XCTAssertEqual(chmod(directory.path, 0o2770), 0)
    }

    override func tearDown() { directory?.remove() }

    /// The home's root, opened as HomeDirectories opens it: bound to its own group.
    private func openHome() throws -> DirectoryHandle {
        try DirectoryHandle(opening: FilePath(directory.path), sharing: .unixGroup).boundToItsGroup()
    }

    /// A directory of the home made first by the member: theirs, in `group`, with `mode`.
    private func membersDirectory(_ name: String, group: gid_t, mode: mode_t) -> String {
        let made = FilePath(directory.path).appending(name).string
        XCTAssertEqual(mkdir(made, 0o700), 0)
        XCTAssertEqual(chown(made, member, group), 0)
        XCTAssertEqual(chmod(made, mode), 0)
        return made
    }

    /// Runs `body` with the home's group added to this process's supplementary groups, as a
    /// real member would have it; the groups are restored afterwards.
    private func asMemberOfTheHomesGroup(_ body: () throws -> Void) rethrows {
        var original = [gid_t](repeating: 0, count: Int(max(getgroups(0, nil), 0)))
        let count = getgroups(Int32(original.count), &original)
        original = Array(original.prefix(Int(max(count, 0))))
        XCTAssertEqual(setgroups(original.count + 1, original + [homeGroup]), 0)
        defer { XCTAssertEqual(setgroups(original.count, original), 0) }
        try body()
    }

    func testTheHomesGroupIsItsRootsGroup() throws {
        XCTAssertEqual(try openHome().sharing, .unixGroup(expectedGroup: UInt32(homeGroup)))
    }

    func testADirectoryAMemberPutInAnotherGroupThanTheHomesIsRefused() throws {
        let home = try openHome()
        _ = membersDirectory("GroupVault", group: 0, mode: 0o2770)

        XCTAssertThrowsError(try home.subdirectory(creating: "GroupVault")) { error in
            let error = error as? StorageError
            XCTAssertEqual(error?.kind, .outsideSharedGroup(owner: UInt32(member), group: 0))
            XCTAssertTrue(error?.hint?.contains("not to the home's group \(homeGroup)") == true, "\(String(describing: error))")
            XCTAssertTrue(error?.hint?.contains("chgrp \(homeGroup)") == true, "\(String(describing: error))")
        }
    }

    /// Without setgid a file the victim makes in the member's directory would get the victim's
    /// primary group (0 here), not the home's: the directory is refused instead.
    func testAMembersDirectoryWithoutTheSetgidBitIsRefused() throws {
        let home = try openHome()
        _ = membersDirectory("notifications", group: homeGroup, mode: 0o770)

        try asMemberOfTheHomesGroup {
            XCTAssertThrowsError(try home.subdirectory(creating: "notifications")) { error in
                let error = error as? StorageError
                XCTAssertEqual(error?.kind, .insecurePermissions(mode: 0o770))
                XCTAssertTrue(error?.hint?.contains("chmod g+s") == true, "\(String(describing: error))")
            }
        }
    }

    func testAMembersDirectoryInTheHomesGroupWithSetgidIsAccepted() throws {
        let home = try openHome()
        let made = membersDirectory("notifications", group: homeGroup, mode: 0o2770)

        try asMemberOfTheHomesGroup {
            let shared = try home.subdirectory(creating: "notifications")
            try shared.replace("posted", with: [], durability: .atomic)
        }

        var status = stat()
        XCTAssertEqual(stat(made + "/posted", &status), 0)
        XCTAssertEqual(status.st_gid, homeGroup)
    }

    func testADirectoryThisProcessCreatesInTheHomeIsAccepted() throws {
        let home = try openHome()

        let created = try home.subdirectory(creating: "Keychains")

        XCTAssertEqual(created.sharing, .unixGroup(expectedGroup: UInt32(homeGroup)))
        var status = stat()
        XCTAssertEqual(stat(created.path.string, &status), 0)
        XCTAssertEqual(status.st_gid, homeGroup)
        XCTAssertEqual(status.st_mode & 0o7777, 0o2770)
    }

    func testAFileOfAMemberInAnotherGroupThanTheHomesIsNotRead() throws {
        let home = try openHome()
        let file = FilePath(directory.path).appending("device-lock-state").string
        XCTAssertTrue(FileManager.default.createFile(atPath: file, contents: Data("locked".utf8)))
        XCTAssertEqual(chown(file, member, 0), 0)
        XCTAssertEqual(chmod(file, 0o660), 0)

        XCTAssertThrowsError(try home.read("device-lock-state", maximumSize: 64)) { error in
            XCTAssertEqual((error as? StorageError)?.kind, .outsideSharedGroup(owner: UInt32(member), group: 0))
        }
    }

    /// A file of this user's that grants its group nothing is open to nobody else, whatever its
    /// group: accepted.
    func testAFileOfThisUserInAnotherGroupGrantingItNothingIsRead() throws {
        let home = try openHome()
        let file = FilePath(directory.path).appending("private").string
        XCTAssertTrue(FileManager.default.createFile(atPath: file, contents: Data("ours".utf8)))
        XCTAssertEqual(chown(file, 0, 0), 0)
        XCTAssertEqual(chmod(file, 0o600), 0)

        XCTAssertEqual(try home.read("private", maximumSize: 64), Array("ours".utf8))
    }

    func testAFileOfThisUserInAnotherGroupGrantingItAccessIsNotRead() throws {
        let home = try openHome()
        let file = FilePath(directory.path).appending("opened").string
        XCTAssertTrue(FileManager.default.createFile(atPath: file, contents: Data("ours".utf8)))
        XCTAssertEqual(chown(file, 0, 0), 0)
        XCTAssertEqual(chmod(file, 0o640), 0)

        XCTAssertThrowsError(try home.read("opened", maximumSize: 64)) { error in
            XCTAssertEqual((error as? StorageError)?.kind, .outsideSharedGroup(owner: 0, group: 0))
        }
    }

    func testARootWithoutTheSetgidBitCannotBeTheHomesRoot() throws {
        XCTAssertEqual(chmod(directory.path, 0o770), 0)

        XCTAssertThrowsError(try openHome()) { error in
            XCTAssertEqual((error as? StorageError)?.kind, .insecurePermissions(mode: 0o770))
            XCTAssertTrue((error as? StorageError)?.hint?.contains("chmod g+s") == true)
        }
    }

    func testALockFileOfAMemberInAnotherGroupThanTheHomesIsRefused() throws {
        let home = try openHome()
        let file = FilePath(directory.path).appending("records.lock").string
        XCTAssertTrue(FileManager.default.createFile(atPath: file, contents: nil))
        XCTAssertEqual(chown(file, member, 0), 0)
        XCTAssertEqual(chmod(file, 0o660), 0)

        XCTAssertThrowsError(try withExclusiveLock(in: home, name: "records.lock", waitLimit: .zero) {}) { error in
            XCTAssertEqual((error as? StorageError)?.kind, .outsideSharedGroup(owner: UInt32(member), group: 0))
        }
    }
}
