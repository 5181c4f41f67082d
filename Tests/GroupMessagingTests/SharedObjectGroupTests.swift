import Foundation
import GroupMessaging
import GroupVaultTestKit
import Keyring
import XCTest

/// Under `unixGroup`, a semaphore or shared-memory object in `/dev/shm` that another user made
/// is used only when it belongs to the home's group (the gid of the home's root). `/dev/shm` is
/// every local user's and the names are predictable: a user outside the app group who shares
/// any one other group with the victim (`users` on many systems; group 0 here, the test
/// process's) could otherwise plant the object first, in that group with mode 0660, and then
/// read and write the group's shared memory or signal its semaphores. The outsider (uid 4242)
/// is played in process, as root, with `fchown`.
final class SharedObjectGroupTests: XCTestCase {
    private var sandbox: MessagingSandbox!
    /// The home's group, the app group's Unix group: the outsider (uid 4242, group 0) is not in it.
    private let homeGroup: gid_t = 4300
    private var keyring: Keyring!

    override func setUpWithError() throws {
        try XCTSkipUnless(geteuid() == 0, "playing a user outside the group needs root")
        sandbox = try MessagingSandbox()
        XCTAssertEqual(chown(sandbox.home.path, 0, homeGroup), 0)
        XCTAssertEqual(chmod(sandbox.home.path, 0o2770), 0)
        keyring = Keyring(identity: sandbox.keyring.identity, home: KeyringHome(root: sandbox.home.url, sharing: .unixGroup))
    }

    override func tearDown() { sandbox?.remove() }

    private func name(_ kind: GroupIPCName.Kind, _ prefix: String) throws -> GroupIPCName {
        try GroupIPCName(kind, "\(prefix)\(getpid() % 100000)", in: MessagingSandbox.group, keyring: keyring)
    }

    /// The file `/dev/shm` keeps `name` in (glibc's layout).
    private func file(of name: GroupIPCName) -> String {
        let bare = name.posixName.dropFirst()
        return name.kind == .semaphore ? "/dev/shm/sem.\(bare)" : "/dev/shm/\(bare)"
    }

    /// Makes the object's file first, as `owner` in `group`, mode 0660, `size` zero bytes.
    private func plant(_ name: GroupIPCName, owner: uid_t, group: gid_t, size: Int = 0) {
        let planted = open(file(of: name), O_CREAT | O_EXCL | O_RDWR | O_CLOEXEC, 0o600)
        XCTAssertGreaterThanOrEqual(planted, 0, "errno \(errno)")
        if size > 0 { XCTAssertEqual(write(planted, [UInt8](repeating: 0, count: size), size), size) }
        XCTAssertEqual(fchown(planted, owner, group), 0)
        XCTAssertEqual(fchmod(planted, 0o660), 0)
        XCTAssertEqual(close(planted), 0)
    }

    func testSharedMemoryPlantedByAUserOutsideTheHomesGroupThroughAnotherSharedGroupIsRefused() throws {
        let name = try name(.sharedMemory, "r")
        defer { unlink(file(of: name)) }
        plant(name, owner: 4242, group: 0)

        XCTAssertThrowsError(try GroupSharedMemory.open(name, keyring: keyring).close(),
                             "uid 4242, outside the home's group \(homeGroup), had its shared-memory object adopted through group 0") { error in
            XCTAssertTrue("\(error)".contains("the home's group \(homeGroup)"), "\(error)")
        }
    }

    func testASemaphorePlantedByAUserOutsideTheHomesGroupThroughAnotherSharedGroupIsRefused() throws {
        let name = try name(.semaphore, "r")
        defer { unlink(file(of: name)) }
        plant(name, owner: 4242, group: 0, size: 32)  // a sem_t's size, as sem_open maps it

        XCTAssertThrowsError(try GroupSemaphore(name, keyring: keyring),
                             "uid 4242, outside the home's group \(homeGroup), had its semaphore adopted through group 0")
    }

    /// `/dev/shm` is not setgid: what this process creates there gets its own primary group (0)
    /// unless it is given the home's.
    func testSharedMemoryThisProcessCreatesBelongsToTheHomesGroup() throws {
        let name = try name(.sharedMemory, "c")
        defer { unlink(file(of: name)) }

        try GroupSharedMemory.open(name, keyring: keyring).close()

        var status = stat()
        XCTAssertEqual(stat(file(of: name), &status), 0)
        XCTAssertEqual(status.st_gid, homeGroup)
        XCTAssertEqual(status.st_mode & 0o7777, 0o660)
    }

    func testASemaphoreThisProcessCreatesBelongsToTheHomesGroup() throws {
        let name = try name(.semaphore, "c")
        defer { unlink(file(of: name)) }

        _ = try GroupSemaphore(name, keyring: keyring)

        var status = stat()
        XCTAssertEqual(stat(file(of: name), &status), 0)
        XCTAssertEqual(status.st_gid, homeGroup)
        XCTAssertEqual(status.st_mode & 0o7777, 0o660)
    }

    func testSharedMemoryOfAMemberInTheHomesGroupIsUsed() throws {
        let name = try name(.sharedMemory, "m")
        defer { unlink(file(of: name)) }
        plant(name, owner: 4242, group: homeGroup)
        var original = [gid_t](repeating: 0, count: Int(max(getgroups(0, nil), 0)))
        original = Array(original.prefix(Int(max(getgroups(Int32(original.count), &original), 0))))
        XCTAssertEqual(setgroups(original.count + 1, original + [homeGroup]), 0)
        defer { XCTAssertEqual(setgroups(original.count, original), 0) }

        XCTAssertNoThrow(try GroupSharedMemory.open(name, keyring: keyring).close())
    }
}
