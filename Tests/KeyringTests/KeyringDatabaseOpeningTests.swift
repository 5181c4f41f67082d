import CSQLite
import Foundation
@testable import Keyring
import XCTest

/// Opening the keyring database while other processes open or write it.
final class KeyringDatabaseOpeningTests: XCTestCase {
    /// A new home's database, opened while another connection holds the write lock of the
    /// not-yet-WAL file (what a second process opening the same new home does), waits for that
    /// lock instead of failing with "database is locked": SQLite does not wait on its own there.
    func testOpeningANewDatabaseWhileAnotherConnectionHoldsItsWriteLockWaits() throws {
        let home = try ItemTestHome()
        defer { home.remove() }
        _ = try home.home.masterKey()
        try home.home.prepareKeychains()
        let path = home.databaseFile.path
        let fileMode = home.home.sharing.fileSharing.fileMode
        XCTAssertTrue(FileManager.default.createFile(atPath: path, contents: nil, attributes: [.posixPermissions: Int(fileMode)]))

        // The other "process": a connection that took the write lock of the empty file.
        var holder: OpaquePointer?
        XCTAssertEqual(sqlite3_open_v2(path, &holder, SQLITE_OPEN_READWRITE, nil), SQLITE_OK)
        defer { sqlite3_close_v2(holder) }
        XCTAssertEqual(sqlite3_exec(holder, "BEGIN IMMEDIATE; CREATE TABLE other_process (a)", nil, nil, nil), SQLITE_OK)
        let released = DispatchSemaphore(value: 0)
        // Used by the one thread below, after this thread's last use.
        nonisolated(unsafe) let holding = holder
        DispatchQueue.global().async {
            // Long enough that the open below meets the lock; it has no bearing on the result.
            usleep(300_000)
            sqlite3_exec(holding, "COMMIT", nil, nil, nil)
            released.signal()
        }
        defer { released.wait() }

        KeyringDatabase.closeAll()
        let database = try KeyringDatabase.shared(for: home.home)
        let mode = try database.read("test") { (transaction: borrowing KeyringDatabase.Transaction) throws(KeyringError) -> String in
            try transaction.query("PRAGMA journal_mode", []) { $0.text(0) }.first ?? ""
        }
        XCTAssertEqual(mode.lowercased(), "wal")
    }
}
