import Foundation
import GroupMessaging
import GroupVaultTestKit
import Keyring
import XCTest

final class GroupIPCNameTests: XCTestCase {
    private var sandbox: MessagingSandbox!

    override func setUpWithError() throws { sandbox = try MessagingSandbox() }
    override func tearDown() { sandbox.remove() }

    func testServiceNameIsGroupDotName() throws {
        let name = try GroupIPCName(.service, "sync", in: MessagingSandbox.group, keyring: sandbox.keyring)
        XCTAssertEqual(name.rawValue, "group.com.example.msg.sync")
    }

    func testSemaphoreNameIsGroupSlashNameAndMapsToOneSlashOnLinux() throws {
        let name = try GroupIPCName(.semaphore, "lock", in: MessagingSandbox.group, keyring: sandbox.keyring)
        XCTAssertEqual(name.rawValue, "group.com.example.msg/lock")
        XCTAssertEqual(name.posixName, "/group.com.example.msg_lock")
    }

    func testSemaphoreNameOverThirtyOneBytesSaysLengthLimitAndHowMuchToCut() throws {
        // "group.com.example.msg/" is 22 bytes: 9 are left.
        XCTAssertNoThrow(try GroupIPCName(.semaphore, "123456789", in: MessagingSandbox.group, keyring: sandbox.keyring))
        XCTAssertThrowsError(try GroupIPCName(.sharedMemory, "1234567890", in: MessagingSandbox.group, keyring: sandbox.keyring)) { error in
            let error = error as! GroupMessagingError
            XCTAssertEqual(error.code, .invalidName)
            XCTAssertTrue(error.reason.contains("is 32 bytes"), error.reason)
            XCTAssertTrue(error.reason.contains("the limit is 31"), error.reason)
            XCTAssertTrue(error.reason.contains("PSHMNAMLEN"), error.reason)
            XCTAssertTrue(error.reason.contains("shorten the name by 1 bytes"), error.reason)
        }
    }

    func testServiceNameLimitIs127Bytes() throws {
        let room = 127 - "group.com.example.msg.".utf8.count
        XCTAssertNoThrow(try GroupIPCName(.service, String(repeating: "a", count: room), in: MessagingSandbox.group, keyring: sandbox.keyring))
        XCTAssertThrowsError(try GroupIPCName(.service, String(repeating: "a", count: room + 1), in: MessagingSandbox.group, keyring: sandbox.keyring)) { error in
            XCTAssertTrue((error as! GroupMessagingError).reason.contains("BOOTSTRAP_MAX_NAME_LEN"))
        }
    }

    func testSocketPathIsInTheContainerAndLimitedBySunPath() throws {
        let name = try GroupIPCName(.socket, "s", in: MessagingSandbox.group, keyring: sandbox.keyring)
        XCTAssertTrue(name.rawValue.hasSuffix("/Group Containers/group.com.example.msg/s"), name.rawValue)
        let room = GroupIPCName.socketPathCapacity - 1 - name.rawValue.utf8.count + 1
        XCTAssertNoThrow(try GroupIPCName(.socket, String(repeating: "s", count: room), in: MessagingSandbox.group, keyring: sandbox.keyring))
        XCTAssertThrowsError(try GroupIPCName(.socket, String(repeating: "s", count: room + 1), in: MessagingSandbox.group, keyring: sandbox.keyring)) { error in
            let reason = (error as! GroupMessagingError).reason
            XCTAssertTrue(reason.contains("sun_path"), reason)
            XCTAssertTrue(reason.contains("GROUPVAULT_HOME"), reason)
        }
    }

    func testNameWithSlashOrControlCharacterIsRefused() throws {
        for bad in ["a/b", "", ".hidden", "tab\there"] {
            XCTAssertThrowsError(try GroupIPCName(.semaphore, bad, in: MessagingSandbox.group, keyring: sandbox.keyring), bad) { error in
                XCTAssertEqual((error as! GroupMessagingError).code, .invalidName)
                XCTAssertFalse((error as! GroupMessagingError).reason.contains("\t"), "control characters are escaped")
            }
        }
    }

    func testIdentityOutsideTheGroupGetsNoName() throws {
        XCTAssertThrowsError(try GroupIPCName(.service, "sync", in: MessagingSandbox.group, keyring: sandbox.outsider)) { error in
            XCTAssertEqual((error as! GroupMessagingError).code, .notEntitled)
        }
    }

    func testSemaphoreIsCreatedWithTheGroupSharingModeDespiteUmask() throws {
        let name = try GroupIPCName(.semaphore, "t\(getpid() % 100000)", in: MessagingSandbox.group, keyring: sandbox.keyring)
        defer { try? GroupSemaphore.unlink(name) }
        let previous = umask(0o022)
        defer { umask(previous) }
        let shared = Keyring(identity: sandbox.keyring.identity, home: KeyringHome(root: sandbox.home.url, sharing: .unixGroup))
        let semaphore = try GroupSemaphore(name, keyring: shared)
        try semaphore.signal()
        XCTAssertTrue(try semaphore.tryWait())
        XCTAssertFalse(try semaphore.tryWait(), "one signal allows one wait")
        var status = stat()
        XCTAssertEqual(stat("/dev/shm/sem." + name.posixName.dropFirst(), &status), 0)
        XCTAssertEqual(status.st_mode & 0o777, 0o660)
    }

    func testSharedMemoryIsCreatedWithTheGroupSharingMode() throws {
        let name = try GroupIPCName(.sharedMemory, "m\(getpid() % 100000)", in: MessagingSandbox.group, keyring: sandbox.keyring)
        defer { try? GroupSharedMemory.unlink(name) }
        let descriptor = try GroupSharedMemory.open(name, keyring: sandbox.keyring)
        defer { try? descriptor.close() }
        var status = stat()
        XCTAssertEqual(fstat(descriptor.rawValue, &status), 0)
        XCTAssertEqual(status.st_mode & 0o777, 0o600)
    }

    func testSemaphoreCreatedByAnotherMemberOfTheUnixGroupOpensForThisOne() throws {
        try XCTSkipUnless(geteuid() == 0, "playing a second user of the group needs root")
        let name = try GroupIPCName(.semaphore, "o\(getpid() % 100000)", in: MessagingSandbox.group, keyring: sandbox.keyring)
        defer { try? GroupSemaphore.unlink(name) }
        let shared = Keyring(identity: sandbox.keyring.identity, home: KeyringHome(root: sandbox.home.url, sharing: .unixGroup))
        let semaphore = try GroupSemaphore(name, keyring: shared)
        try semaphore.signal()
        let other = try secondMember("semaphore-open", name)
        XCTAssertEqual(other.wait(), 0, other.standardError)
        XCTAssertEqual(other.standardOutput, "opened took=true\n", "the other member took the signal")
    }

    func testSharedMemoryCreatedByAnotherMemberOfTheUnixGroupOpensForThisOne() throws {
        try XCTSkipUnless(geteuid() == 0, "playing a second user of the group needs root")
        let name = try GroupIPCName(.sharedMemory, "o\(getpid() % 100000)", in: MessagingSandbox.group, keyring: sandbox.keyring)
        defer { try? GroupSharedMemory.unlink(name) }
        let shared = Keyring(identity: sandbox.keyring.identity, home: KeyringHome(root: sandbox.home.url, sharing: .unixGroup))
        try GroupSharedMemory.open(name, keyring: shared).close()
        let other = try secondMember("shared-memory-open", name)
        XCTAssertEqual(other.wait(), 0, other.standardError)
        XCTAssertEqual(other.standardOutput, "opened\n")
    }

    func testSemaphorePlantedByAUserOutsideTheGroupIsRefused() throws {
        try XCTSkipUnless(geteuid() == 0, "playing another user needs root")
        let name = try GroupIPCName(.semaphore, "p\(getpid() % 100000)", in: MessagingSandbox.group, keyring: sandbox.keyring)
        defer { try? GroupSemaphore.unlink(name) }
        // uid 4242 in its own group 4242 creates the name first, for itself alone.
        let planter = try FixtureProcess(
            ["semaphore-open", "--group", MessagingSandbox.group.rawValue, "--name", name.name, "--uid", "4242", "--gid", "4242"],
            environment: ["GROUPVAULT_HOME": sandbox.home.path], executable: "GroupMessagingFixture")
        XCTAssertEqual(planter.wait(), 0, planter.standardError)
        XCTAssertThrowsError(try GroupSemaphore(name, keyring: sandbox.keyring)) { error in
            XCTAssertEqual((error as? GroupMessagingError)?.code, .system)
            XCTAssertTrue((error as? GroupMessagingError)?.reason.contains("belongs to uid 4242") == true, "\(error)")
        }
    }

    /// A fixture running `command` on `name` as another user (uid 4242) whose only group is
    /// this process's group, over a unixGroup home: the second member of a shared group. The
    /// home is opened to that group (2770, as GroupVault makes a home), since a member learns
    /// the objects' group from the home's root.
    private func secondMember(_ command: String, _ name: GroupIPCName) throws -> FixtureProcess {
        XCTAssertEqual(chmod(sandbox.home.path, 0o2770), 0)
        return try FixtureProcess(
            [command, "--group", MessagingSandbox.group.rawValue, "--name", name.name, "--uid", "4242", "--gid", "\(getegid())"],
            environment: ["GROUPVAULT_HOME": sandbox.home.path, "GROUPVAULT_SHARING": "unixGroup"],
            executable: "GroupMessagingFixture")
    }
}
