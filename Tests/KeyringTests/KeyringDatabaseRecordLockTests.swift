#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation
import GroupVaultTestKit
import SealedStorage
import SystemPackage
import XCTest

@testable import Keyring

/// A member of a `unixGroup` home who plants a hard link of `keyring.db` (group read-write, so
/// `fs.protected_hardlinks` lets them) at a name the keyring opens next cannot make this
/// process drop SQLite's locks on the database (issue 18). SQLite's locks are POSIX record
/// locks, released by closing *any* descriptor of the file; the keyring used to open the
/// planted name, refuse it, and close it, and with it the shared lock its WAL connection holds
/// on `keyring.db` for as long as it is open: another process could then take the database's
/// exclusive lock, believe itself the last connection, checkpoint and delete the WAL under it.
///
/// Whether the lock is still held is asked from another process (the fixture's
/// `record-lock-holder`): a process never sees its own record locks as conflicts.
final class KeyringDatabaseRecordLockTests: XCTestCase {
    private var directory: TemporaryDirectory!
    private var home: KeyringHome!
    private var keychains: FilePath { home.keychainsDirectory }
    private var database: FilePath { keychains.appending(KeyringDatabase.fileName) }

    override func setUpWithError() throws {
        directory = try TemporaryDirectory(prefix: "keyring-record-locks")
        home = KeyringHome(root: directory.url.appendingPathComponent("home"), sharing: .unixGroup)
        // Opens keyring.db (creating it, and the master key): its connection now holds SQLite's
        // shared lock on the file for as long as it is open (WAL mode).
        _ = try KeyringDatabase.shared(for: home).changeStamp()
        XCTAssertEqual(try recordLockHolder(), "held \(getpid())", "the arrangement: another process sees this one's lock on keyring.db")
    }

    override func tearDown() {
        KeyringDatabase.closeAll()
        directory?.remove()
        directory = nil
    }

    /// What another process hears when it asks who holds a record lock on keyring.db.
    private func recordLockHolder(file: StaticString = #filePath, line: UInt = #line) throws -> String {
        let result = try FixtureProcess.run(["record-lock-holder", database.string])
        XCTAssertEqual(result.status, 0, result.errors, file: file, line: line)
        return result.output.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Replaces `name` in `Keychains/` (a member may remove entries of the shared directory) by
    /// a hard link of keyring.db.
    private func plantLinkOfTheDatabase(as name: String) {
        let planted = keychains.appending(name)
        if unlink(planted.string) != 0 { XCTAssertEqual(errno, ENOENT) }
        XCTAssertEqual(link(database.string, planted.string), 0, String(cString: strerror(errno)))
    }

    /// The attack through the master key's read: `master.key` became a second name of
    /// keyring.db, which the keyring opened, found too large, refused and closed.
    func testKeyringDBLinkedAsTheMasterKeyIsRefusedWithoutReleasingTheDatabaseLock() throws {
        plantLinkOfTheDatabase(as: "master.key")

        XCTAssertThrowsError(try home.masterKey()) { error in
            XCTAssertTrue("\(error)".contains("2 hard links"), "\(error)")
        }

        XCTAssertEqual(try recordLockHolder(), "held \(getpid())", "reading the planted master key released keyring.db's lock")
    }

    /// A member who *renames* keyring.db (or its `-shm`) to a name this process reads leaves it
    /// one link, which the link-count check cannot see; the connection registers both files it
    /// holds record locks on, so the file layer refuses them unopened under any name
    /// (`RecordLockKeepingTests.testARegisteredLockedFileRenamedToARecordNameIsRefusedWithoutReleasingTheLock`),
    /// and unregisters them when it closes.
    func testTheOpenKeyringDatabaseAndItsIndexAreRegisteredAsRecordLockedUntilClosed() throws {
        let files = [database, keychains.appending(KeyringDatabase.fileName + "-shm")]
        let statuses = try files.map { try XCTUnwrap(try Syscall.statusIfPresent($0), "\($0) exists while open") }
        XCTAssertEqual(statuses.map(RecordLockedFiles.contains), [true, true])

        KeyringDatabase.closeAll()

        XCTAssertEqual(statuses.map(RecordLockedFiles.contains), [false, false])
    }

    /// The attack through the master key's lock: with `master.key` gone, the keyring locks
    /// `.master.key.lock` to create one, and that name was keyring.db's second name.
    func testKeyringDBLinkedAsTheMasterKeyLockIsRefusedWithoutReleasingTheDatabaseLock() throws {
        XCTAssertEqual(unlink(keychains.appending("master.key").string), 0)
        plantLinkOfTheDatabase(as: ".master.key.lock")

        XCTAssertThrowsError(try home.masterKey()) { error in
            XCTAssertTrue("\(error)".contains("2 hard links"), "\(error)")
        }

        XCTAssertEqual(try recordLockHolder(), "held \(getpid())", "opening the planted lock file released keyring.db's lock")
        XCTAssertEqual(unlink(keychains.appending(".master.key.lock").string), 0)
        XCTAssertFalse(FileManager.default.fileExists(atPath: keychains.appending("master.key").string), "no master key was minted while the lock was refused")
    }

    /// The attack as it happens: another user, a member of the home's group, plants the link
    /// (which `fs.protected_hardlinks` allows, keyring.db being group read-write) while this
    /// process has the database open, replacing `master.key` (the member may remove entries of
    /// the group-writable `Keychains/`).
    func testKeyringDBLinkedByAnotherMemberAsTheMasterKeyIsRefusedWithoutReleasingTheDatabaseLock() throws {
        try XCTSkipUnless(geteuid() == 0, "playing a second member of the group needs root")
        // The second member must reach Keychains/ (2770, this process's group) through the
        // temporary directory, which is this user's alone.
        XCTAssertEqual(chmod(directory.path, 0o710), 0)
        let planted = keychains.appending("master.key")
        let member = try FixtureProcess.run([
            "link-as-member", "--target", database.string, "--at", planted.string, "--uid", "4242", "--gid", "\(getegid())",
        ])
        XCTAssertEqual(member.status, 0, member.errors)
        XCTAssertEqual(member.output, "linked\n")

        XCTAssertThrowsError(try home.masterKey()) { error in
            XCTAssertTrue("\(error)".contains("2 hard links"), "\(error)")
        }

        XCTAssertEqual(try recordLockHolder(), "held \(getpid())", "reading the member's planted master key released keyring.db's lock")
    }
}
