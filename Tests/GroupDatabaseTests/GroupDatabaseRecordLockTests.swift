import Foundation
import GroupDatabase
import GroupVaultTestKit
import Keyring
import SealedStorage
import SystemPackage
import XCTest

/// SQLite's locks are POSIX record locks, dropped by closing *any* descriptor of the file. A
/// member who renames a group database (or its `-shm`) to a name this process later reads
/// leaves it one link, so the link-count check cannot see it: the database registers the
/// files its connections hold locks on, and the file layer refuses those unopened under any
/// name (`RecordLockKeepingTests`), for as long as the database is open.
final class GroupDatabaseRecordLockTests: XCTestCase {
    static let group = GroupIdentifier(rawValue: "group.com.example.shared")!
    private var directory: TemporaryDirectory!

    override func setUpWithError() throws { directory = try TemporaryDirectory(prefix: "groupdb-record-locks") }
    override func tearDown() { directory.remove() }

    func testAnOpenDatabaseAndItsIndexAreRegisteredAsRecordLockedUntilReleased() throws {
        let keyring = Keyring(
            identity: Identity(teamID: "ABCDE12345", bundleID: "com.example.app", applicationGroups: [Self.group]),
            home: KeyringHome(root: directory.url, sharing: .unixGroup))
        var database: GroupDatabase? = try GroupDatabase(name: "notes", group: Self.group, keyring: keyring)
        let file = FilePath(try XCTUnwrap(database).url.path)
        let files = [file, FilePath(file.string + "-shm")]
        let statuses = try files.map { try XCTUnwrap(try Syscall.statusIfPresent($0), "\($0) exists while open") }
        XCTAssertEqual(statuses.map(RecordLockedFiles.contains), [true, true])

        database = nil

        XCTAssertEqual(statuses.map(RecordLockedFiles.contains), [false, false])
    }
}
