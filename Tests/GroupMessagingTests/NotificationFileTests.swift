import Foundation
import GroupMessaging
import GroupVaultTestKit
import Keyring
import SealedStorage
import SystemPackage
import XCTest

/// The notification files and their directory in a shared (`unixGroup`) container, against a
/// member of the group who plants or swaps things there.
final class NotificationFileTests: XCTestCase {
    private var sandbox: MessagingSandbox!
    private var shared: Keyring!
    private var center: GroupNotificationCenter!
    /// `<container>/GroupMessaging/notifications`.
    private var directory: String!

    override func setUpWithError() throws {
        sandbox = try MessagingSandbox()
        XCTAssertEqual(chmod(sandbox.home.path, 0o750), 0)
        shared = Keyring(identity: sandbox.keyring.identity, home: KeyringHome(root: sandbox.home.url, sharing: .unixGroup))
        center = try GroupNotificationCenter(keyring: shared, group: MessagingSandbox.group)
        directory = sandbox.home.path + "/Group Containers/\(MessagingSandbox.group)/GroupMessaging/notifications"
    }

    override func tearDown() { sandbox.remove() }

    func testPostRefusesAHardLinkAndLeavesItsTargetsModeAlone() throws {
        let victim = sandbox.home.path + "/victim"
        XCTAssertTrue(FileManager.default.createFile(atPath: victim, contents: Data("private".utf8)))
        XCTAssertEqual(chmod(victim, 0o640), 0)
        XCTAssertEqual(link(victim, directory + "/linked"), 0)
        XCTAssertThrowsError(try center.post("linked")) { error in
            XCTAssertEqual((error as? GroupMessagingError)?.code, .system)
            XCTAssertTrue("\(error)".contains("hard links"), "\(error)")
        }
        XCTAssertEqual(mode(of: victim), 0o640, "post changed the mode of another file through its hard link")
    }

    func testPostRefusesAHardLinkOfTheKeyringDatabaseWithoutReleasingItsLock() throws {
        // keyring.db is group read-write in a unixGroup home, so a member may hard-link it at a
        // notification name. Opening that name, refusing it and closing it would drop this
        // process's SQLite (POSIX record) locks on the database: it must be refused unopened.
        _ = try shared.groupKey(for: MessagingSandbox.group)  // opens keyring.db, and keeps it open
        let database = sandbox.home.path + "/Keychains/keyring.db"
        XCTAssertEqual(try recordLockHolder(of: database), "held \(getpid())", "the arrangement: keyring.db is locked by this process")
        XCTAssertEqual(link(database, directory + "/wake"), 0, String(cString: strerror(errno)))

        XCTAssertThrowsError(try center.post("wake")) { error in
            XCTAssertTrue("\(error)".contains("hard links"), "\(error)")
        }

        XCTAssertEqual(try recordLockHolder(of: database), "held \(getpid())", "post released keyring.db's lock")
    }

    /// What another process hears when it asks who holds a record lock on `path` (a process
    /// never sees its own record locks as conflicts).
    private func recordLockHolder(of path: String) throws -> String {
        let result = try FixtureProcess.run(["record-lock-holder", path])
        XCTAssertEqual(result.status, 0, result.errors)
        return result.output.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    func testPostAfterTheDirectoryWasSwappedForASymlinkWritesNothingInItsTarget() throws {
        try XCTSkipUnless(geteuid() == 0, "playing a second member of the group needs root")
        let elsewhere = sandbox.home.path + "/elsewhere"
        XCTAssertEqual(mkdir(elsewhere, 0o700), 0)
        let member = try FixtureProcess(
            ["plant", "--at", directory, "--target", elsewhere, "--kind", "symlink", "--move-aside", "yes", "--uid", "4242", "--gid", "\(getegid())"],
            environment: ["GROUPVAULT_HOME": sandbox.home.path], executable: "GroupMessagingFixture")
        XCTAssertEqual(member.wait(), 0, member.standardError)
        XCTAssertEqual(try FileManager.default.destinationOfSymbolicLink(atPath: directory), elsewhere)
        try? center.post("swapped")
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: elsewhere), [], "post followed the swapped-in link")
    }

    func testObservingAfterTheDirectoryWasSwappedForAnotherIsRefused() throws {
        XCTAssertEqual(rename(directory, directory + ".moved"), 0)
        XCTAssertEqual(mkdir(directory, 0o2770), 0)
        XCTAssertThrowsError(try center.notifications(named: "swapped")) { error in
            XCTAssertTrue("\(error)".contains("replaced"), "\(error)")
        }
    }

    func testObservingWithAHandlerAfterTheDirectoryWasSwappedForAnotherIsRefused() throws {
        XCTAssertEqual(rename(directory, directory + ".moved"), 0)
        XCTAssertEqual(mkdir(directory, 0o2770), 0)
        XCTAssertThrowsError(try center.observe("swapped") { _ in }) { error in
            XCTAssertTrue("\(error)".contains("replaced"), "\(error)")
        }
    }

    #if os(Linux)
    func testWaitingAfterTheDirectoryWasSwappedForAnotherIsRefused() throws {
        XCTAssertEqual(rename(directory, directory + ".moved"), 0)
        XCTAssertEqual(mkdir(directory, 0o2770), 0)
        XCTAssertThrowsError(try center.waiter(named: "swapped")) { error in
            XCTAssertTrue("\(error)".contains("replaced"), "\(error)")
        }
    }
    #endif

    func testPostRefusesWhatAMemberPlantedThatIsNotARegularFile() throws {
        try XCTSkipUnless(geteuid() == 0, "playing a second member of the group needs root")
        for kind in ["fifo", "directory", "symlink"] {
            let member = try FixtureProcess(
                ["plant", "--at", directory + "/" + kind, "--target", sandbox.home.path, "--kind", kind, "--uid", "4242", "--gid", "\(getegid())"],
                environment: ["GROUPVAULT_HOME": sandbox.home.path], executable: "GroupMessagingFixture")
            XCTAssertEqual(member.wait(), 0, member.standardError)
            XCTAssertThrowsError(try center.post(kind), kind) { error in
                XCTAssertEqual((error as? GroupMessagingError)?.code, .system, "\(error)")
            }
        }
    }

    func testPostKeepsWorkingAfterAnotherMemberCreatedTheFile() throws {
        try XCTSkipUnless(geteuid() == 0, "playing a second member of the group needs root")
        let member = try FixtureProcess(
            ["notify-post", "--group", MessagingSandbox.group.rawValue, "--name", "theirs", "--uid", "4242", "--gid", "\(getegid())"],
            environment: ["GROUPVAULT_HOME": sandbox.home.path, "GROUPVAULT_SHARING": "unixGroup"], executable: "GroupMessagingFixture")
        XCTAssertEqual(member.wait(), 0, member.standardError)
        XCTAssertNoThrow(try center.post("theirs"))
    }

    func testAFirstPostMakesItsFileAppearOnceWithItsModeAndNothingAfter() async throws {
        // What an observer of the name sees, through the same entry watch it uses. A file
        // created in place and then closed would show up as two writes for one post; the
        // removal afterwards is only a marker: every event of the post comes before it.
        let events = try DirectoryWatcher(directory: FilePath(directory), entry: "first").events()
        try center.post("first")
        XCTAssertEqual(mode(of: directory + "/first"), 0o660)
        XCTAssertEqual(unlink(directory + "/first"), 0)

        var seen: [DirectoryWatcher.Event.Kind] = []
        for await event in events {
            seen.append(event.kind)
            if event.kind != .written { break }
        }
        XCTAssertEqual(seen, [.written, .removed])
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: directory), [], "no temporary file is left")
    }

    private func mode(of path: String) -> mode_t {
        var status = stat()
        XCTAssertEqual(lstat(path, &status), 0, path)
        return status.st_mode & 0o7777
    }
}
