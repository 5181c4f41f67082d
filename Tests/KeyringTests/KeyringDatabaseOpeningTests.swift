import CSQLite
import Foundation
@testable import Keyring
import SealedStorage
import XCTest

/// Opening the keyring database while other processes open or write it.
final class KeyringDatabaseOpeningTests: ItemTestCase {
    /// A new home's database, opened while another opener is switching it to WAL (what a
    /// second process opening the same new home meets: a new database is published in
    /// rollback-journal mode, and its first opener switches it), waits for that opener instead
    /// of failing with "database is locked". SQLite does not wait on its own for the lock the
    /// switch takes; every opener switches under the database's open lock
    /// (`DatabaseFile.withOpenLock`), and that is what the second one waits on.
    func testOpeningANewDatabaseWhileAnotherOpenerIsSwitchingItWaits() throws {
        // A database as the home publishes it, before any opener switched it to WAL. (An empty
        // file in its place is no longer adopted: it is refused as damaged.)
        _ = try KeyringDatabase.shared(for: home.home)
        KeyringDatabase.closeAll()
        let path = home.databaseFile.path
        var switcher: OpaquePointer?
        XCTAssertEqual(sqlite3_open_v2(path, &switcher, SQLITE_OPEN_READWRITE, nil), SQLITE_OK)
        XCTAssertEqual(sqlite3_exec(switcher, "PRAGMA journal_mode = DELETE", nil, nil, nil), SQLITE_OK)
        sqlite3_close_v2(switcher)

        // The other opener: holding the open lock, it holds the write lock of the not-yet-WAL file.
        let keychains = try home.home.keychains()
        let holding = DispatchSemaphore(value: 0)
        let released = DispatchSemaphore(value: 0)
        // Written by the one thread below, read only after `released` is signalled.
        nonisolated(unsafe) var steps: [String: Int32] = [:]
        // A thread of its own, not a shared queue whose threads earlier tests may have taken.
        Thread.detachNewThread {
            do {
                try DatabaseFile.withOpenLock(of: KeyringDatabase.fileName, in: keychains) {
                    var holder: OpaquePointer?
                    steps["open"] = sqlite3_open_v2(path, &holder, SQLITE_OPEN_READWRITE, nil)
                    steps["begin"] = sqlite3_exec(holder, "BEGIN IMMEDIATE; UPDATE meta SET value = value WHERE name = 'schema'", nil, nil, nil)
                    holding.signal()
                    // Long enough that the open below meets the lock; it has no bearing on the result.
                    usleep(300_000)
                    steps["commit"] = sqlite3_exec(holder, "COMMIT", nil, nil, nil)
                    sqlite3_close_v2(holder)
                }
            } catch {
                steps["lock"] = SQLITE_ERROR
                holding.signal()
            }
            released.signal()
        }
        holding.wait()
        defer {
            released.wait()
            XCTAssertEqual(steps, ["open": SQLITE_OK, "begin": SQLITE_OK, "commit": SQLITE_OK], "the other opener's steps")
        }

        let database = try KeyringDatabase.shared(for: home.home)
        let mode = try database.read("test") { (transaction: borrowing KeyringDatabase.Transaction) throws(KeyringError) -> String in
            try transaction.query("PRAGMA journal_mode", []) { $0.text(0) }.first ?? ""
        }
        XCTAssertEqual(mode.lowercased(), "wal")
    }

    // MARK: Creating the file

    // Every step of creating a new database is a checked call of the file layer: a failure of
    // any of them fails the open with a reason and leaves no keyring.db (and no temporary).

    func testAFailedSyncWhileCreatingTheDatabaseFailsTheOpenAndLeavesNoFile() throws {
        try assertCreationFails(at: .sync)
    }

    func testAFailedModeChangeWhileCreatingTheDatabaseFailsTheOpenAndLeavesNoFile() throws {
        try assertCreationFails(at: .changeMode)
    }

    private func assertCreationFails(at call: SystemCall, line: UInt = #line) throws {
        _ = try home.home.masterKey()
        try home.home.prepareKeychains()
        KeyringDatabase.closeAll()

        FaultInjection.withFault(.fail(.ioError), at: .call(call)) { () throws(Never) in
            XCTAssertThrowsError(try KeyringDatabase.shared(for: home.home), "the \(call.rawValue) failure was not noticed", line: line) { error in
                let reason = (error as? KeyringError)?.reason ?? "\(error)"
                XCTAssertEqual((error as? KeyringError)?.status, .ioError, reason, line: line)
                XCTAssertTrue(reason.contains("keyring database"), reason, line: line)
            }
        }
        let keychains = home.databaseFile.deletingLastPathComponent().path
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: keychains).filter { $0.contains("keyring.db") }, [], line: line)
    }

    // MARK: The database file's owner, mode and type

    // The file is vetted when a process first opens it; SQLite then keeps its descriptors, so
    // each test forgets the open connections (`closeAll`) to stand for a process starting after
    // the file was changed.

    func testADatabaseFileReadableByOthersInAnOwnerOnlyHomeIsRefused() throws {
        try assertOpeningIsRefused(after: { home in
            XCTAssertEqual(chmod(home.databaseFile.path, 0o644), 0)
        })
    }

    func testADatabaseFileWritableByItsGroupInAnOwnerOnlyHomeIsRefused() throws {
        try assertOpeningIsRefused(after: { home in
            XCTAssertEqual(chmod(home.databaseFile.path, 0o620), 0)
        })
    }

    func testASymbolicLinkInPlaceOfTheDatabaseIsRefusedNotFollowed() throws {
        try assertOpeningIsRefused(after: { home in
            // The real database moved aside, a link to it in its place: following the link
            // would open a file the home's checks never looked at.
            let aside = home.directory.url.appendingPathComponent("elsewhere.db").path
            XCTAssertEqual(rename(home.databaseFile.path, aside), 0)
            XCTAssertEqual(symlink(aside, home.databaseFile.path), 0)
        })
    }

    func testAHomeBelowASymbolicallyLinkedDirectoryStoresItems() throws {
        // What lies above a home's root is the user's choice (a symlinked $HOME): followed.
        // From the root down nothing is; SQLite's descriptor is proven to be the vetted file.
        let scratch: ItemTestHome = home
        let real = scratch.directory.url.appendingPathComponent("real", isDirectory: true)
        try FileManager.default.createDirectory(at: real, withIntermediateDirectories: false)
        let linked = scratch.directory.url.appendingPathComponent("linked-parent")
        XCTAssertEqual(symlink(real.path, linked.path), 0)
        let home = KeyringHome(root: linked.appendingPathComponent("home", isDirectory: true))
        defer { KeyringDatabase.closeAll() }
        let keyring = Keyring(identity: ItemTestHome.identity, home: home)

        XCTAssertNoThrow(try keyring.add(KeychainItem(service: "api", account: "a", secret: Data("x".utf8))))
        XCTAssertEqual(try keyring.item(matching: ItemQuery(service: "api", account: "a")).secret, Data("x".utf8))
    }

    func testADatabaseFileOwnedByAnotherUserIsRefused() throws {
        // Giving a file away takes root; as anyone else the test cannot set the scene.
        try XCTSkipUnless(geteuid() == 0, "chown to another user needs root")
        try assertOpeningIsRefused(after: { home in
            XCTAssertEqual(chown(home.databaseFile.path, 4_242, 4_242), 0)
        })
    }

    func testAnUnchangedDatabaseFileIsOpenedAgainByANewProcess() throws {
        // The counterpart of the refusals above: the check passes the file the home made.
        _ = try KeyringDatabase.shared(for: home.home)
        KeyringDatabase.closeAll()

        XCTAssertNoThrow(try KeyringDatabase.shared(for: home.home))
    }

    /// Creates a home's database, lets `change` alter the file, and checks that a process
    /// opening it next is refused: `keyring.db` named, the status a device gives for storage
    /// it will not use.
    private func assertOpeningIsRefused(after change: (ItemTestHome) -> Void, line: UInt = #line) throws {
        _ = try KeyringDatabase.shared(for: home.home)
        KeyringDatabase.closeAll()
        change(home)

        XCTAssertThrowsError(try KeyringDatabase.shared(for: home.home), line: line) { error in
            guard let error = error as? KeyringError else {
                return XCTFail("expected a KeyringError, got \(error)", line: line)
            }
            XCTAssertEqual(error.status, .notAvailable, error.reason, line: line)
            XCTAssertTrue(error.reason.contains("keyring.db"), error.reason, line: line)
        }
    }
}
