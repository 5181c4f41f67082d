import Foundation
import GRDB
import GroupDatabase
import GroupVaultTestKit
import Keyring
import XCTest

/// Real child processes (GroupStoresFixture) opening, migrating, writing and observing one database.
final class GroupDatabaseMultiProcessTests: XCTestCase {
    static let group = GroupIdentifier(rawValue: "group.com.example.shared")!
    private var directory: TemporaryDirectory!

    override func setUpWithError() throws { directory = try TemporaryDirectory(prefix: "groupdb-mp-test") }
    override func tearDown() { directory.remove() }

    private var environment: [String: String] { ["GROUPVAULT_HOME": directory.path] }

    private func start(_ arguments: [String]) throws -> FixtureProcess {
        try FixtureProcess(arguments, environment: environment, executable: "GroupStoresFixture")
    }

    /// The database the fixtures wrote, opened without migrations.
    private func open() throws -> GroupDatabase {
        let keyring = Keyring(
            identity: Identity(teamID: "ABCDE12345", bundleID: "com.example.app", applicationGroups: [Self.group]),
            home: KeyringHome(root: directory.url))
        return try GroupDatabase(name: "shared", group: Self.group, keyring: keyring)
    }

    func testWriterProcessesRacingToOpenKeepEveryRowAndMigrateOnce() throws {
        let writers = 4, rows = 100
        let children = try (0..<writers).map { index in
            try start(["db-write", "--writer", "w\(index)", "--rows", "\(rows)"])
        }
        for child in children {
            XCTAssertEqual(child.wait(), 0, child.standardError)
            XCTAssertEqual(child.standardOutput, "done\n")
        }
        let database = try open()
        try database.pool.read { db in
            XCTAssertEqual(try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM migration_run"), 1, "the migration ran once")
            XCTAssertEqual(try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM row"), writers * rows)
            for index in 0..<writers {
                XCTAssertEqual(try Int.fetchOne(db, sql: "SELECT COUNT(DISTINCT number) FROM row WHERE writer = ?", arguments: ["w\(index)"]), rows)
            }
        }
    }

    func testAnObserverProcessSeesTheLastCommitOfAnotherProcess() throws {
        // The observer migrates first, so the writer's opening commits nothing it would miss.
        let observer = try start(["db-observe", "--until-rows", "50"])
        while !observer.standardOutput.contains("ready") {
            XCTAssertTrue(observer.standardError.isEmpty, observer.standardError)
            if !observer.standardError.isEmpty { return }
            usleep(1000)
        }
        let writer = try start(["db-write", "--writer", "w", "--rows", "50"])
        XCTAssertEqual(writer.wait(), 0, writer.standardError)
        XCTAssertEqual(observer.wait(), 0, observer.standardError)
        XCTAssertTrue(observer.standardOutput.hasSuffix("rows 50\n"), observer.standardOutput)
    }
}
