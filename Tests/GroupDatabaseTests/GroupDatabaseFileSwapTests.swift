import Foundation
import GRDB
import GroupDatabase
import GroupVaultTestKit
import Keyring
import SealedStorage
import XCTest

/// A member of the group who can write the container changes the database's files between
/// the opener's checks and SQLite's use of them: each change is refused before SQLite reads or
/// writes a byte, and the file it pointed at is left as it was.
final class GroupDatabaseFileSwapTests: XCTestCase {
    static let group = GroupIdentifier(rawValue: "group.com.example.shared")!
    private var directory: TemporaryDirectory!

    override func setUpWithError() throws { directory = try TemporaryDirectory(prefix: "groupdb-swap") }
    override func tearDown() { directory.remove() }

    private func keyring(sharing: StorageSharing = .ownerOnly) -> Keyring {
        Keyring(
            identity: Identity(teamID: "ABCDE12345", bundleID: "com.example.app", applicationGroups: [Self.group]),
            home: KeyringHome(root: directory.url, sharing: sharing))
    }

    /// `v1` makes the app's table; `v2`, new in this release, writes a marker wherever the
    /// opener ends up migrating.
    private func migrator(upTo version: Int) -> DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1") { db in try db.execute(sql: "CREATE TABLE note (text TEXT)") }
        if version >= 2 {
            migrator.registerMigration("v2") { db in try db.execute(sql: "CREATE TABLE migrated_here (x)") }
        }
        return migrator
    }

    private var databaseDirectory: URL {
        get throws { try XCTUnwrap(try keyring().containerURL(for: Self.group)).appendingPathComponent("GroupDatabase") }
    }

    /// This user's private database somewhere else (`notes.sqlite` in `elsewhere`, by default
    /// `private/`), which the attack steers the opener into.
    private func makePrivateDatabase(in elsewhere: URL? = nil) throws -> URL {
        let elsewhere = elsewhere ?? directory.url.appendingPathComponent("private", isDirectory: true)
        try FileManager.default.createDirectory(at: elsewhere, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let queue = try DatabaseQueue(path: elsewhere.appendingPathComponent("notes.sqlite").path)
        try queue.write { db in try db.execute(sql: "CREATE TABLE private_data (secret TEXT); INSERT INTO private_data VALUES ('mine')") }
        try queue.close()
        // Owner-only like the group's own database, so only its identity can tell them apart.
        XCTAssertEqual(chmod(elsewhere.appendingPathComponent("notes.sqlite").path, 0o600), 0)
        return elsewhere
    }

    private func tables(in database: URL) throws -> [String] {
        let queue = try DatabaseQueue(path: database.path, configuration: { var c = Configuration(); c.readonly = true; return c }())
        defer { try? queue.close() }
        return try queue.read { db in try String.fetchAll(db, sql: "SELECT name FROM sqlite_schema WHERE type = 'table' ORDER BY name") }
    }

    func testADirectorySwappedForALinkWhileTheOpenerWaitsForTheOpenLockIsRefused() throws {
        _ = try GroupDatabase(name: "notes", group: Self.group, keyring: keyring(), migrator: migrator(upTo: 1))
        let elsewhere = try makePrivateDatabase()
        let shared = try databaseDirectory
        let lockPath = shared.appendingPathComponent("notes.sqlite-open.lock").path

        // The member holds the open lock, as any opener does for a few milliseconds.
        let lock = open(lockPath, O_RDONLY | O_CLOEXEC)
        XCTAssertGreaterThanOrEqual(lock, 0)
        XCTAssertEqual(flock(lock, LOCK_EX), 0)

        let outcome = startOpener(keyring(), migrator: migrator(upTo: 2))
        // The opener has vetted the file and waits on the lock once it holds the lock file open.
        try waitUntilOpened(lockPath, times: 2, unless: outcome)

        // The swap: the real directory moved aside, a link to the private one in its place.
        XCTAssertEqual(rename(shared.path, shared.path + ".moved"), 0)
        XCTAssertEqual(symlink(elsewhere.path, shared.path), 0)
        XCTAssertEqual(close(lock), 0)

        let error = try XCTUnwrap(outcome.wait(), "the opener followed the link and migrated another database")
        XCTAssertEqual((error as? GroupDatabaseError)?.code, .storage, "\(error)")
        XCTAssertTrue("\(error)".contains("not the one vetted"), "\(error)")
        XCTAssertEqual(try tables(in: elsewhere.appendingPathComponent("notes.sqlite")), ["private_data"])
    }

    func testAnotherMemberWhoSwapsTheDirectoryWhileHoldingTheOpenLockIsRefused() throws {
        try XCTSkipUnless(geteuid() == 0, "playing a second member of the group needs root")
        // The group's home: directories 2770 of this process's group, which uid 4242 is in.
        XCTAssertEqual(chmod(directory.path, 0o2770), 0)
        let shared = keyring(sharing: .unixGroup)
        _ = try GroupDatabase(name: "notes", group: Self.group, keyring: shared, migrator: migrator(upTo: 1))
        let elsewhere = try makePrivateDatabase()
        let databaseDirectory = try XCTUnwrap(try shared.containerURL(for: Self.group)).appendingPathComponent("GroupDatabase")
        let go = directory.url.appendingPathComponent("go").path

        let member = try FixtureProcess(
            ["db-swap-directory", "--directory", databaseDirectory.path, "--name", "notes", "--link-to", elsewhere.path,
             "--go", go, "--uid", "4242", "--gid", "\(getegid())"],
            executable: "GroupStoresFixture")
        while !member.standardOutput.contains("locked") {
            XCTAssertTrue(member.standardError.isEmpty, member.standardError)
            guard member.standardError.isEmpty else { return }
            usleep(1_000)
        }
        let outcome = startOpener(shared, migrator: migrator(upTo: 2))
        try waitUntilOpened(databaseDirectory.appendingPathComponent("notes.sqlite-open.lock").path, times: 1, unless: outcome)
        XCTAssertTrue(FileManager.default.createFile(atPath: go, contents: nil))
        XCTAssertEqual(member.wait(), 0, member.standardError)
        XCTAssertEqual(member.standardOutput, "locked\nswapped\n")

        let error = try XCTUnwrap(outcome.wait(), "the opener followed the member's link and migrated another database")
        XCTAssertEqual((error as? GroupDatabaseError)?.code, .storage, "\(error)")
        XCTAssertTrue("\(error)".contains("not the one vetted"), "\(error)")
        XCTAssertEqual(try tables(in: elsewhere.appendingPathComponent("notes.sqlite")), ["private_data"])
    }

    func testGroupContainersSwappedForALinkAfterTheKeyringVettedTheContainerIsNotFollowedIntoAPrivateDatabase() throws {
        // A unixGroup home: its root is the group's (2770), so any member may rename `Group Containers`.
        let shared = keyring(sharing: .unixGroup)
        _ = try GroupDatabase(name: "notes", group: Self.group, keyring: shared, migrator: migrator(upTo: 1))
        let container = try XCTUnwrap(try shared.containerURL(for: Self.group)).path
        let (elsewhere, privateDatabase) = try makePrivateContainers()

        let outcome: Result<GroupDatabase, Error> = FileLayerDriver.with { driver in
            // Once the keyring has made and vetted the container: the opener's first step
            // into it, whether by the container's path or by name from a held directory.
            Self.armSwap(of: container, forALinkTo: elsewhere, beforeTheFirstOpenOf: "GroupDatabase", driver: driver)
            return Result { try GroupDatabase(name: "notes", group: Self.group, keyring: shared, migrator: migrator(upTo: 2)) }
        }
        if case .success(let database) = outcome { try database.pool.close() }

        XCTAssertTrue(FileManager.default.fileExists(atPath: Self.containers(of: container) + ".moved"), "the member's swap never happened")
        XCTAssertEqual(try tables(in: privateDatabase), ["private_data"],
                       "the opener followed the swapped Group Containers and migrated this user's private database")
        XCTAssertThrowsError(try outcome.get(), "the opener used a database reached through the swapped Group Containers") { error in
            XCTAssertEqual((error as? GroupDatabaseError)?.code, .storage, "\(error)")
        }
    }

    func testChangesAreNotWatchedInAPrivateDirectoryReachedThroughASwappedGroupContainers() throws {
        let shared = keyring(sharing: .unixGroup)
        let database = try GroupDatabase(name: "notes", group: Self.group, keyring: shared, migrator: migrator(upTo: 1))
        let container = try XCTUnwrap(try shared.containerURL(for: Self.group)).path
        let (elsewhere, _) = try makePrivateContainers()

        Self.swap(Self.containers(of: container), forALinkTo: elsewhere)

        // A watch there would wait for commits that never come: refused, not silent.
        XCTAssertThrowsError(try database.changes(), "changes() watched the directory the swapped Group Containers leads to") { error in
            XCTAssertEqual((error as? GroupDatabaseError)?.code, .storage, "\(error)")
        }
    }

    /// This user's own private `Group Containers` elsewhere (another, owner-only home of the
    /// same user), with a database of the same name holding its private data: the directory and
    /// the database file.
    private func makePrivateContainers() throws -> (directory: URL, database: URL) {
        let elsewhere = directory.url.appendingPathComponent("private", isDirectory: true)
        let databases = elsewhere.appendingPathComponent(Self.group.rawValue).appendingPathComponent("GroupDatabase", isDirectory: true)
        return (elsewhere, try makePrivateDatabase(in: databases).appendingPathComponent("notes.sqlite"))
    }

    /// `Group Containers`, the directory above `container`.
    private static func containers(of container: String) -> String {
        (container as NSString).deletingLastPathComponent
    }

    /// The member's move (the home's root is the group's, 2770, in a unixGroup home):
    /// `Group Containers` renamed aside, a symbolic link to `elsewhere` in its place.
    private static func swap(_ containers: String, forALinkTo elsewhere: URL) {
        XCTAssertEqual(rename(containers, containers + ".moved"), 0)
        XCTAssertEqual(symlink(elsewhere.path, containers), 0)
    }

    /// Arms the member's move (``swap(_:forALinkTo:)``) before the first `open` of `name`
    /// relative to a held directory, or of `container` or anything in it by path. Every other
    /// open passes and re-arms.
    private static func armSwap(of container: String, forALinkTo elsewhere: URL, beforeTheFirstOpenOf name: String, driver: FileLayerDriver) {
        driver.run(before: .call(.open)) {
            guard let call = driver.trace.last, let opened = call.name,
                  call.descriptor == nil ? opened == container || opened.hasPrefix(container + "/") : opened == name else {
                armSwap(of: container, forALinkTo: elsewhere, beforeTheFirstOpenOf: name, driver: driver)
                return
            }
            swap(containers(of: container), forALinkTo: elsewhere)
        }
    }

    func testADatabaseFileWithASecondHardLinkIsRefused() throws {
        _ = try GroupDatabase(name: "notes", group: Self.group, keyring: keyring(), migrator: migrator(upTo: 1))
        let file = try databaseDirectory.appendingPathComponent("notes.sqlite")
        XCTAssertEqual(link(file.path, directory.url.appendingPathComponent("second-name").path), 0)

        XCTAssertThrowsError(try GroupDatabase(name: "notes", group: Self.group, keyring: keyring(), migrator: migrator(upTo: 2))) { error in
            XCTAssertEqual((error as? GroupDatabaseError)?.code, .storage, "\(error)")
            XCTAssertTrue("\(error)".contains("hard links"), "\(error)")
        }
        XCTAssertEqual(try tables(in: file), ["grdb_migrations", "note"])
    }

    func testAnotherFileLinkedInAsTheWalIsRefusedAndKeptIntact() throws {
        _ = try GroupDatabase(name: "notes", group: Self.group, keyring: keyring(), migrator: migrator(upTo: 1))
        let file = try databaseDirectory.appendingPathComponent("notes.sqlite")
        let victim = directory.url.appendingPathComponent("victim.txt")
        let content = Data(repeating: 0x41, count: 8_192)
        XCTAssertTrue(FileManager.default.createFile(atPath: victim.path, contents: content, attributes: [.posixPermissions: 0o600]))
        try? FileManager.default.removeItem(atPath: file.path + "-wal")
        XCTAssertEqual(link(victim.path, file.path + "-wal"), 0)

        XCTAssertThrowsError(try {
            let database = try GroupDatabase(name: "notes", group: Self.group, keyring: keyring(), migrator: migrator(upTo: 2))
            try database.pool.write { db in try db.execute(sql: "INSERT INTO note VALUES ('x')") }
        }()) { error in
            XCTAssertEqual((error as? GroupDatabaseError)?.code, .storage, "\(error)")
            XCTAssertTrue("\(error)".contains("notes.sqlite-wal"), "\(error)")
        }
        XCTAssertEqual(FileManager.default.contents(atPath: victim.path), content, "SQLite wrote into the linked file")
    }

    func testAFIFOPlantedAsTheCommitSignalDoesNotHangTheNextCommit() throws {
        let database = try GroupDatabase(name: "notes", group: Self.group, keyring: keyring(), migrator: migrator(upTo: 1))
        let signal = try databaseDirectory.appendingPathComponent("notes.sqlite-commit").path
        // Planted after the open vetted the signal file: a FIFO nobody reads, on which an open
        // for writing waits forever.
        XCTAssertEqual(unlink(signal), 0)
        XCTAssertEqual(mkfifo(signal, 0o600), 0)

        try database.pool.write { db in try db.execute(sql: "INSERT INTO note VALUES ('x')") }

        var status = stat()
        XCTAssertEqual(lstat(signal, &status), 0)
        XCTAssertEqual(status.st_mode & S_IFMT, S_IFREG, "the commit was announced by a new regular file")
    }

    /// Opens database "notes" with `keyring` on a thread of its own; the outcome tells how it ended.
    private func startOpener(_ keyring: Keyring, migrator: DatabaseMigrator) -> OpenOutcome {
        let outcome = OpenOutcome()
        Thread {
            do {
                _ = try GroupDatabase(name: "notes", group: Self.group, keyring: keyring, migrator: migrator)
                outcome.set(nil)
            } catch {
                outcome.set(error)
            }
        }.start()
        return outcome
    }

    /// Waits until `times` descriptors of this process name `path` (the opener's among them),
    /// or the opener has finished.
    private func waitUntilOpened(_ path: String, times: Int, unless outcome: OpenOutcome) throws {
        let target = URL(fileURLWithPath: path).resolvingSymlinksInPath().path
        while !outcome.isFinished {
            let descriptors = try FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")
            let count = descriptors.filter { (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/\($0)")) == target }.count
            if count >= times { return }
            usleep(1_000)
        }
    }
}

/// What the opener thread ended with: `nil` for success.
private final class OpenOutcome: @unchecked Sendable {
    private let done = DispatchSemaphore(value: 0)
    private let lock = NSLock()
    private var error: (any Error)?
    private var finished = false

    func set(_ error: (any Error)?) {
        lock.withLock { self.error = error; finished = true }
        done.signal()
    }

    var isFinished: Bool { lock.withLock { finished } }

    func wait() -> (any Error)? {
        done.wait()
        return lock.withLock { error }
    }
}
