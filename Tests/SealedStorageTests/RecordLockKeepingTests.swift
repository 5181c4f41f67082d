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

/// A member of the group who plants another name of a file this process holds POSIX record locks
/// on (as SQLite holds them on `keyring.db`) where the layer opens a file next cannot make the
/// process drop those locks: closing *any* descriptor of the inode would release them all, so a
/// shared directory's files are vetted through a descriptor whose close releases nothing
/// (`O_PATH`) before they are opened (issue 18).
///
/// The locked file stands for the database: this process opens it and takes an exclusive
/// `fcntl` lock on all of it. Whether the lock is still held is asked from another process (the
/// fixture's `record-lock-holder`), since a process never sees its own record locks as conflicts.
final class RecordLockKeepingTests: XCTestCase {
    private var directory: TemporaryDirectory!
    /// A directory shared with the group (2770), held as GroupVault holds one.
    private var shared: FilePath { FilePath(directory.path).appending("shared") }
    private var handle: DirectoryHandle!
    /// The locked file, and this process's only descriptor of it (kept open: closing it is what
    /// would drop the lock).
    private var database: FilePath { shared.appending("keyring.db") }
    private var databaseDescriptor: Int32 = -1

    override func setUpWithError() throws {
        directory = try TemporaryDirectory(prefix: "groupvault-record-locks")
        XCTAssertEqual(mkdir(shared.string, 0o770), 0)
        XCTAssertEqual(chmod(shared.string, 0o2770), 0)
        handle = try DirectoryHandle(opening: shared, sharing: .unixGroup)
        try FileInspection.write(Array("SQLite format 3\0 and pages".utf8), to: database)
        XCTAssertEqual(chmod(database.string, 0o660), 0)
        databaseDescriptor = open(database.string, O_RDWR | O_CLOEXEC)
        XCTAssertGreaterThanOrEqual(databaseDescriptor, 0)
        var lock = flock()
        lock.l_type = Int16(F_WRLCK)
        lock.l_whence = Int16(SEEK_SET)
        lock.l_start = 0
        lock.l_len = 0
        XCTAssertEqual(fcntl(databaseDescriptor, F_SETLK, &lock), 0, String(cString: strerror(errno)))
        XCTAssertEqual(try recordLockHolder(), "held \(getpid())", "the arrangement: another process sees this one's lock")
    }

    override func tearDown() {
        if databaseDescriptor >= 0 { close(databaseDescriptor) }
        handle = nil
        directory?.remove()
        directory = nil
    }

    /// What another process hears when it asks who holds a record lock on the locked file:
    /// `held <pid>` or `free`.
    private func recordLockHolder(of path: FilePath? = nil, file: StaticString = #filePath, line: UInt = #line) throws -> String {
        let result = try FixtureProcess.run(["record-lock-holder", (path ?? database).string])
        XCTAssertEqual(result.status, 0, result.errors, file: file, line: line)
        return result.output.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Plants a second name of the locked file, as a member who can read and write it may
    /// (`fs.protected_hardlinks` allows it).
    private func linkDatabase(as name: String) {
        XCTAssertEqual(link(database.string, shared.appending(name).string), 0, String(cString: strerror(errno)))
    }

    /// The attack: `FileLock` opened the planted link, saw two links, refused it and closed it,
    /// and the close released this process's lock on the database.
    func testAHardLinkOfALockedFileAtALockFileNameIsRefusedWithoutReleasingTheLock() throws {
        linkDatabase(as: "record.lock")

        XCTAssertThrowsError(try withExclusiveLock(in: handle, name: "record.lock") {}) { error in
            XCTAssertEqual((error as? StorageError)?.kind, .wrongFileType)
            XCTAssertTrue("\(error)".contains("2 hard links"), "\(error)")
        }

        XCTAssertEqual(try recordLockHolder(), "held \(getpid())", "refusing the planted lock file released the database's record lock")
    }

    /// The same through a lock taken by path (`FileLock(exclusiveAt:)`).
    func testAHardLinkOfALockedFileAtALockPathIsRefusedWithoutReleasingTheLock() throws {
        linkDatabase(as: ".master.key.lock")

        XCTAssertThrowsError(try withExclusiveLock(at: shared.appending(".master.key.lock"), sharing: .unixGroup) {}) { error in
            XCTAssertEqual((error as? StorageError)?.kind, .wrongFileType)
        }

        XCTAssertEqual(try recordLockHolder(), "held \(getpid())", "refusing the planted lock file released the database's record lock")
    }

    /// A link has two names, so a count shows it; the locked file itself renamed to a lock
    /// file's name has one. A lock file is always empty, so it is refused by its size, still
    /// before it is opened.
    func testALockedFileRenamedToALockFileNameIsRefusedWithoutReleasingTheLock() throws {
        let renamed = shared.appending("record.lock")
        XCTAssertEqual(rename(database.string, renamed.string), 0)

        XCTAssertThrowsError(try withExclusiveLock(in: handle, name: "record.lock") {}) { error in
            XCTAssertEqual((error as? StorageError)?.kind, .wrongFileType)
            XCTAssertTrue("\(error)".contains("a lock file is always empty"), "\(error)")
        }

        XCTAssertEqual(try recordLockHolder(of: renamed), "held \(getpid())", "refusing the renamed file released its record lock")
    }

    /// The attack on the read path: a record read through the held directory opened the
    /// planted link, read or refused it, and closed it, releasing the lock.
    func testReadingAHardLinkOfALockedFileIsRefusedWithoutReleasingTheLock() throws {
        linkDatabase(as: "record.gvr")

        XCTAssertThrowsError(try handle.read("record.gvr", maximumSize: 4096)) { error in
            XCTAssertEqual((error as? StorageError)?.kind, .wrongFileType)
            XCTAssertTrue("\(error)".contains("2 hard links"), "\(error)")
        }

        XCTAssertEqual(try recordLockHolder(), "held \(getpid())", "reading the planted record released the database's record lock")
    }

    /// A member who can write both directories can also rename the database to a record's
    /// name, where it has one link. A file its store registered as record-locked is refused
    /// under any name, before it is opened.
    func testARegisteredLockedFileRenamedToARecordNameIsRefusedWithoutReleasingTheLock() throws {
        var status = stat()
        XCTAssertEqual(fstat(databaseDescriptor, &status), 0)
        let identity = RecordLockedFiles.Identity(device: UInt64(status.st_dev), inode: UInt64(status.st_ino))
        RecordLockedFiles.insert(identity)
        defer { RecordLockedFiles.remove(identity) }
        let renamed = shared.appending("record.gvr")
        XCTAssertEqual(rename(database.string, renamed.string), 0)

        XCTAssertThrowsError(try handle.read("record.gvr", maximumSize: 4096)) { error in
            XCTAssertEqual((error as? StorageError)?.kind, .wrongFileType)
            XCTAssertTrue("\(error)".contains("holds record locks on"), "\(error)")
        }

        XCTAssertEqual(try recordLockHolder(of: renamed), "held \(getpid())", "reading the renamed database released its record lock")
    }

    /// The same through ``SafeFile/readIfPresent(_:maximumSize:)``, which reads by path.
    func testReadingAHardLinkOfALockedFileByPathIsRefusedWithoutReleasingTheLock() throws {
        linkDatabase(as: "state")

        XCTAssertThrowsError(try SafeFile.readIfPresent(shared.appending("state"), maximumSize: 4096)) { error in
            XCTAssertEqual((error as? StorageError)?.kind, .wrongFileType)
        }

        XCTAssertEqual(try recordLockHolder(), "held \(getpid())", "reading the planted file released the database's record lock")
    }

    /// What the vetting must not cost: an existing lock file and an ordinary record of a shared
    /// directory are still locked and read, through the descriptor the vetting opened.
    func testAnExistingLockFileAndARecordOfASharedDirectoryAreStillUsed() throws {
        try withExclusiveLock(in: handle, name: "record.lock") {}
        try withExclusiveLock(in: handle, name: "record.lock") {}
        try FileInspection.write(Array("sealed".utf8), to: shared.appending("record.gvr"))
        XCTAssertEqual(chmod(shared.appending("record.gvr").string, 0o660), 0)

        XCTAssertEqual(try handle.read("record.gvr", maximumSize: 4096), Array("sealed".utf8))
        XCTAssertEqual(try SafeFile.readIfPresent(shared.appending("record.gvr"), maximumSize: 4096), Array("sealed".utf8))
        XCTAssertNil(try handle.read("absent.gvr", maximumSize: 4096))
    }
}
