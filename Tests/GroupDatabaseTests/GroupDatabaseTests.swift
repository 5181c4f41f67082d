import Foundation
import GRDB
import GroupDatabase
import GroupVaultTestKit
import Keyring
import XCTest

/// Opening, file modes, entitlement, migrations and the change signal of a group database,
/// in this process.
final class GroupDatabaseTests: XCTestCase {
    static let group = GroupIdentifier(rawValue: "group.com.example.shared")!
    private var directory: TemporaryDirectory!

    override func setUpWithError() throws { directory = try TemporaryDirectory(prefix: "groupdb-test") }
    override func tearDown() { directory.remove() }

    private func keyring(sharing: StorageSharing = .ownerOnly, groups: [GroupIdentifier] = [GroupDatabaseTests.group]) -> Keyring {
        Keyring(
            identity: Identity(teamID: "ABCDE12345", bundleID: "com.example.app", applicationGroups: groups),
            home: KeyringHome(root: directory.url, sharing: sharing))
    }

    private func migrator() -> DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1") { db in
            try db.execute(sql: "CREATE TABLE note (id INTEGER PRIMARY KEY, text TEXT NOT NULL)")
        }
        return migrator
    }

    private func mode(_ url: URL) throws -> Int {
        (try FileManager.default.attributesOfItem(atPath: url.path)[.posixPermissions] as? NSNumber)?.intValue ?? -1
    }

    func testADatabaseIsCreatedInTheGroupContainerAndHoldsWrites() throws {
        let database = try GroupDatabase(name: "notes", group: Self.group, keyring: keyring(), migrator: migrator())
        try database.pool.write { db in try db.execute(sql: "INSERT INTO note (text) VALUES ('hello')") }
        let container = try XCTUnwrap(try keyring().containerURL(for: Self.group))
        XCTAssertTrue(database.url.path.hasPrefix(container.path), database.url.path)
        let reopened = try GroupDatabase(name: "notes", group: Self.group, keyring: keyring(), migrator: migrator())
        XCTAssertEqual(try reopened.pool.read { db in try String.fetchOne(db, sql: "SELECT text FROM note") }, "hello")
    }

    func testTheDatabaseUsesWriteAheadLogging() throws {
        let database = try GroupDatabase(name: "notes", group: Self.group, keyring: keyring())
        XCTAssertEqual(try database.pool.read { db in try String.fetchOne(db, sql: "PRAGMA journal_mode") }, "wal")
    }

    func testOwnerOnlySharingGivesTheDatabaseAndItsWalAndShmFilesMode0600() throws {
        let database = try GroupDatabase(name: "notes", group: Self.group, keyring: keyring(), migrator: migrator())
        try database.pool.write { db in try db.execute(sql: "INSERT INTO note (text) VALUES ('x')") }
        for suffix in ["", "-wal", "-shm"] {
            XCTAssertEqual(try mode(URL(fileURLWithPath: database.url.path + suffix)), 0o600, suffix)
        }
    }

    func testUnixGroupSharingGivesTheDatabaseAndItsWalAndShmFilesMode0660() throws {
        let database = try GroupDatabase(name: "notes", group: Self.group, keyring: keyring(sharing: .unixGroup), migrator: migrator())
        try database.pool.write { db in try db.execute(sql: "INSERT INTO note (text) VALUES ('x')") }
        for suffix in ["", "-wal", "-shm"] {
            XCTAssertEqual(try mode(URL(fileURLWithPath: database.url.path + suffix)), 0o660, suffix)
        }
    }

    func testADatabaseFileReadableByOthersIsRefused() throws {
        let database = try GroupDatabase(name: "notes", group: Self.group, keyring: keyring())
        let url = database.url
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: url.path)
        XCTAssertThrowsError(try GroupDatabase(name: "notes", group: Self.group, keyring: keyring())) { error in
            XCTAssertEqual((error as? GroupDatabaseError)?.code, .storage, "\(error)")
        }
    }

    func testASymbolicLinkInPlaceOfTheDatabaseIsRefused() throws {
        let database = try GroupDatabase(name: "notes", group: Self.group, keyring: keyring())
        let url = database.url
        try FileManager.default.removeItem(at: url)
        try FileManager.default.createSymbolicLink(atPath: url.path, withDestinationPath: directory.url.appendingPathComponent("elsewhere").path)
        XCTAssertThrowsError(try GroupDatabase(name: "notes", group: Self.group, keyring: keyring())) { error in
            XCTAssertEqual((error as? GroupDatabaseError)?.code, .storage, "\(error)")
        }
    }

    func testOpeningIsRefusedWithoutTheApplicationGroupEntitlement() {
        XCTAssertThrowsError(try GroupDatabase(name: "notes", group: Self.group, keyring: keyring(groups: []))) { error in
            XCTAssertEqual((error as? GroupDatabaseError)?.code, .missingEntitlement, "\(error)")
        }
    }

    func testNamesThatCouldEscapeTheDirectoryAreRefused() {
        for name in ["", "../notes", "a/b", ".hidden", String(repeating: "n", count: GroupDatabase.maximumNameLength + 1)] {
            XCTAssertThrowsError(try GroupDatabase(name: name, group: Self.group, keyring: keyring()), name) { error in
                XCTAssertEqual((error as? GroupDatabaseError)?.code, .invalidName, "\(error)")
            }
        }
    }

    func testMigrationsAlreadyAppliedDoNotRunAgain() throws {
        let runs = RunCounter()
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1") { db in
            runs.increment()
            try db.execute(sql: "CREATE TABLE note (id INTEGER PRIMARY KEY)")
        }
        _ = try GroupDatabase(name: "notes", group: Self.group, keyring: keyring(), migrator: migrator)
        _ = try GroupDatabase(name: "notes", group: Self.group, keyring: keyring(), migrator: migrator)
        XCTAssertEqual(runs.count, 1)
    }

    func testAFailingMigrationIsReportedAsADatabaseError() {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("broken") { db in try db.execute(sql: "NOT SQL") }
        XCTAssertThrowsError(try GroupDatabase(name: "notes", group: Self.group, keyring: keyring(), migrator: migrator)) { error in
            XCTAssertEqual((error as? GroupDatabaseError)?.code, .database, "\(error)")
            XCTAssertNotNil((error as? GroupDatabaseError)?.underlyingError)
        }
    }

    func testAFailingMigrationKeepsGRDBsErrorWithItsResultCode() throws {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("broken") { db in try db.execute(sql: "NOT SQL") }
        XCTAssertThrowsError(try GroupDatabase(name: "notes", group: Self.group, keyring: keyring(), migrator: migrator)) { error in
            let cause = (error as? GroupDatabaseError)?.cause(as: DatabaseError.self)
            XCTAssertEqual(cause?.resultCode, .SQLITE_ERROR, "\(error)")
        }
    }

    func testACommitIsSignalledToAnotherOpenerOfTheDatabase() throws {
        let writer = try GroupDatabase(name: "notes", group: Self.group, keyring: keyring(), migrator: migrator())
        let observer = try GroupDatabase(name: "notes", group: Self.group, keyring: keyring(), migrator: migrator())
        let changes = try observer.changes()
        let expectation = expectation(description: "the commit is signalled and visible")
        let task = Task {
            for await _ in changes {
                let count = try? await observer.pool.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM note") }
                if count == 1 {
                    expectation.fulfill()
                    return
                }
            }
        }
        try writer.pool.write { db in try db.execute(sql: "INSERT INTO note (text) VALUES ('x')") }
        wait(for: [expectation], timeout: 60)
        task.cancel()
    }
}

/// Counts migration runs from inside a migration closure.
final class RunCounter: @unchecked Sendable {
    private let lock = NSLock()
    private var runs = 0
    func increment() { lock.withLock { runs += 1 } }
    var count: Int { lock.withLock { runs } }
}
