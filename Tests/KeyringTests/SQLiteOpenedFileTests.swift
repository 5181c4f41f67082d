import CSQLite
import Foundation
import GroupVaultTestKit
@testable import Keyring
import SealedStorage
import SystemPackage
import XCTest

/// The proof that a SQLite connection has the vetted file open (`SQLiteDefenses`,
/// `DatabaseFile.checkOpened`): it finds the descriptor SQLite holds, passes the vetted file,
/// and refuses anything else, including when the descriptor cannot be found at all.
final class SQLiteOpenedFileTests: XCTestCase {
    private var directory: TemporaryDirectory!
    private var held: DirectoryHandle!

    override func setUpWithError() throws {
        directory = try TemporaryDirectory(prefix: "sqlite-opened")
        held = try DirectoryHandle(opening: FilePath(directory.path), sharing: .ownerOnly)
        for name in ["vetted.db", "other.db"] {
            XCTAssertTrue(FileManager.default.createFile(atPath: path(name), contents: nil, attributes: [.posixPermissions: 0o600]))
        }
    }

    override func tearDown() {
        held = nil
        directory.remove()
    }

    private func path(_ name: String) -> String { directory.url.appendingPathComponent(name).path }

    private func connect(_ name: String, vfs: String? = nil) throws -> OpaquePointer {
        var connection: OpaquePointer?
        XCTAssertEqual(sqlite3_open_v2(path(name), &connection, SQLITE_OPEN_READWRITE, vfs), SQLITE_OK)
        return try XCTUnwrap(connection)
    }

    func testTheDescriptorFoundForAConnectionIsThatOfItsDatabaseFile() throws {
        let connection = try connect("vetted.db")
        defer { sqlite3_close_v2(connection) }
        let descriptor = SQLiteDefenses.mainFileDescriptor(connection)
        XCTAssertGreaterThanOrEqual(descriptor, 0, "no descriptor found: the unix VFS's layout differs from os_unix.c's unixFile")
        var opened = stat(), named = stat()
        XCTAssertEqual(fstat(descriptor, &opened), 0)
        XCTAssertEqual(stat(path("vetted.db"), &named), 0)
        XCTAssertEqual([opened.st_dev, opened.st_ino], [named.st_dev, named.st_ino])
    }

    func testTheVettedFileOpenedBySQLitePasses() throws {
        let vetted = try XCTUnwrap(try DatabaseFile.vet("vetted.db", in: held))
        let connection = try connect("vetted.db")
        defer { sqlite3_close_v2(connection) }

        XCTAssertNoThrow(try SQLiteDefenses.checkOpenedFile(connection, vetted, path: FilePath(path("vetted.db")), sharing: .ownerOnly))
    }

    func testAConnectionToAnotherFileThanTheOneVettedIsRefused() throws {
        // What a rename of another file into place between the vetting and SQLite's open gives.
        let vetted = try XCTUnwrap(try DatabaseFile.vet("vetted.db", in: held))
        let connection = try connect("other.db")
        defer { sqlite3_close_v2(connection) }

        XCTAssertThrowsError(try SQLiteDefenses.checkOpenedFile(connection, vetted, path: FilePath(path("vetted.db")), sharing: .ownerOnly)) { error in
            XCTAssertTrue("\(error)".contains("not the one vetted"), "\(error)")
        }
    }

    func testAConnectionThroughAnotherVFSIsRefusedForWantOfADescriptor() throws {
        // Another VFS's file has another layout: nothing is read from it, the open is refused.
        let vetted = try XCTUnwrap(try DatabaseFile.vet("vetted.db", in: held))
        let connection = try connect("vetted.db", vfs: "unix-excl")
        defer { sqlite3_close_v2(connection) }

        XCTAssertEqual(SQLiteDefenses.mainFileDescriptor(connection), -1)
        XCTAssertThrowsError(try SQLiteDefenses.checkOpenedFile(connection, vetted, path: FilePath(path("vetted.db")), sharing: .ownerOnly)) { error in
            XCTAssertTrue("\(error)".contains("could not be found"), "\(error)")
        }
    }

    func testDefensiveModeIsOnAndTheSchemaUntrustedAfterHardening() throws {
        let connection = try connect("vetted.db")
        defer { sqlite3_close_v2(connection) }

        XCTAssertNil(SQLiteDefenses.harden(connection))
        XCTAssertEqual(groupvault_sqlite_set_config(connection, SQLITE_DBCONFIG_DEFENSIVE, -1), 1)
        XCTAssertEqual(groupvault_sqlite_set_config(connection, SQLITE_DBCONFIG_TRUSTED_SCHEMA, -1), 0)
    }
}
