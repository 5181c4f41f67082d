import Foundation
import GRDB
import GroupDatabase
import GroupVaultTestKit
import Keyring
import XCTest

/// Every member of the group can write the database file, so its schema is untrusted input:
/// SQL stored in it (a planted trigger or view) cannot call the app's functions, and no SQL can
/// corrupt the file behind SQLite's back.
final class GroupDatabaseDefensiveTests: XCTestCase {
    static let group = GroupIdentifier(rawValue: "group.com.example.shared")!
    private var directory: TemporaryDirectory!

    override func setUpWithError() throws { directory = try TemporaryDirectory(prefix: "groupdb-defensive") }
    override func tearDown() { directory.remove() }

    private func open(_ configuration: Configuration = Configuration()) throws -> GroupDatabase {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1") { db in try db.execute(sql: "CREATE TABLE note (text TEXT)") }
        let keyring = Keyring(
            identity: Identity(teamID: "ABCDE12345", bundleID: "com.example.app", applicationGroups: [Self.group]),
            home: KeyringHome(root: directory.url))
        return try GroupDatabase(name: "notes", group: Self.group, keyring: keyring, migrator: migrator, configuration: configuration)
    }

    func testATriggerPlantedInTheFileCannotCallAFunctionOfTheApp() throws {
        let calls = CallCount()
        var configuration = Configuration()
        configuration.prepareDatabase { db in
            db.add(function: DatabaseFunction("upload_note", argumentCount: 1) { _ in calls.increment(); return nil })
        }
        let database = try open(configuration)
        // Another member writes the trigger into the shared file.
        let member = try DatabaseQueue(path: database.url.path)
        try member.write { db in
            try db.execute(sql: "CREATE TRIGGER planted AFTER INSERT ON note BEGIN SELECT upload_note(new.text); END")
        }
        try member.close()

        XCTAssertThrowsError(try database.pool.write { db in try db.execute(sql: "INSERT INTO note (text) VALUES ('private')") }) { error in
            XCTAssertTrue("\(error)".contains("unsafe use of upload_note"), "\(error)")
        }
        XCTAssertEqual(calls.value, 0, "the planted trigger ran the app's function")
    }

    func testTheSchemaCannotBeRewrittenThroughSQL() throws {
        let database = try open()

        XCTAssertThrowsError(try database.pool.write { db in
            try db.execute(sql: "PRAGMA writable_schema = ON")
            try db.execute(sql: "UPDATE sqlite_schema SET sql = 'CREATE TABLE note (x)' WHERE name = 'note'")
        })
        try database.pool.read { db in
            XCTAssertEqual(try String.fetchOne(db, sql: "SELECT sql FROM sqlite_schema WHERE name = 'note'"), "CREATE TABLE note (text TEXT)")
        }
    }
}

/// How many times a function ran.
private final class CallCount: @unchecked Sendable {
    private let lock = NSLock()
    private var count = 0
    func increment() { lock.withLock { count += 1 } }
    var value: Int { lock.withLock { count } }
}
