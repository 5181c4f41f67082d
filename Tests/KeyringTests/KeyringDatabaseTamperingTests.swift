import Foundation
import GroupVaultTestKit
@testable import Keyring
import XCTest

/// A `keyring.db` changed behind the keyring's back, by a damaged disk or by someone who can
/// write the keychains directory: each change is refused with a reason, never adopted,
/// re-initialised or obeyed.
final class KeyringDatabaseTamperingTests: ItemTestCase {
    override func setUpWithError() throws {
        try super.setUpWithError()
        try keyring.add(KeychainItem(service: "api", account: "a", secret: Data("first".utf8)))
        KeyringDatabase.closeAll()
    }

    private var path: String { home.databaseFile.path }

    // MARK: Empty, truncated, unbound

    func testAnEmptyKeyringDatabaseIsRefusedNotStartedAnew() throws {
        XCTAssertEqual(truncate(path, 0), 0)
        for suffix in ["-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }

        assertRefused(containing: ["keyring.db", "empty", "backup", "remove it deliberately"])
        XCTAssertEqual(try fileSize(), 0, "the empty file was written to: a new keyring was started in it")
    }

    func testAKeyringDatabaseCutShortOfAWholePageIsRefused() throws {
        XCTAssertEqual(truncate(path, 1_000), 0)

        assertRefused(containing: ["keyring.db", "truncated", "backup"])
        XCTAssertEqual(try fileSize(), 1_000)
    }

    func testADatabaseWhoseHomeBindingWasDeletedIsRefusedNotBoundAgain() throws {
        // A database copied from another home, its binding row removed, would otherwise be
        // bound to this home as if new and its items, keys and ledger adopted.
        execute("DELETE FROM meta WHERE name = 'home'")

        assertRefused(containing: ["keyring.db", "no binding", "backup"])
        XCTAssertEqual(rows("SELECT COUNT(*) FROM meta WHERE name = 'home'"), 0, "the database was bound again")
    }

    // MARK: Planted schema objects

    func testATriggerOnATableTheKeyringDoesNotKnowIsRefused() throws {
        // A table it does not know is left to the module that adopts it (ExtensionTableTests);
        // a trigger never is: it acts on statements that do not name it.
        execute("CREATE TABLE planted (x); CREATE TRIGGER keep_planted BEFORE INSERT ON planted BEGIN SELECT RAISE(IGNORE); END")

        assertRefused(containing: ["keyring.db", "trigger", "keep_planted", "backup"])
    }

    func testATriggerThatIgnoresItemDeletesIsRefused() throws {
        execute("CREATE TRIGGER keep_items BEFORE DELETE ON items BEGIN SELECT RAISE(IGNORE); END")

        assertRefused(containing: ["keyring.db", "trigger", "keep_items"])
    }

    func testAPlantedViewIsRefused() throws {
        execute("CREATE VIEW planted AS SELECT * FROM items")

        assertRefused(containing: ["keyring.db", "view", "planted"])
    }

    func testAPlantedObjectsNameReachesTheReasonEscaped() throws {
        execute("CREATE TRIGGER \"x\u{1B}]0;owned\u{07}\" BEFORE DELETE ON items BEGIN SELECT RAISE(IGNORE); END")

        XCTAssertThrowsError(try KeyringDatabase.shared(for: home.home)) { error in
            let reason = (error as? KeyringError)?.reason ?? "\(error)"
            XCTAssertFalse(reason.unicodeScalars.contains { $0.value == 0x1B || $0.value == 0x07 }, reason)
            XCTAssertTrue(reason.contains("trigger"), reason)
        }
    }

    func testATriggerPlantedWhileTheKeyringIsOpenStopsTheNextDeleteLoudly() throws {
        let open = keyring
        XCTAssertEqual(try open.items(matching: ItemQuery(accessGroup: ItemTestHome.shared)).count, 1)
        // Another process of the home plants it behind this process's open connection.
        execute("CREATE TRIGGER keep_items BEFORE DELETE ON items BEGIN SELECT RAISE(IGNORE); END")

        XCTAssertThrowsError(try open.delete(matching: ItemQuery(accessGroup: ItemTestHome.shared)), "a delete that deleted nothing reported success") { error in
            XCTAssertEqual((error as? KeyringError)?.status, .decode, "\(error)")
        }
        XCTAssertEqual(try open.items(matching: ItemQuery(accessGroup: ItemTestHome.shared)).count, 1)
    }

    func testAWriteThatChangesFewerRowsThanItMustFailsAndCommitsNothing() throws {
        let database = try KeyringDatabase.shared(for: home.home)
        XCTAssertThrowsError(try database.write("test") { (transaction: borrowing KeyringDatabase.Transaction) throws(KeyringError) in
            try transaction.apply("DELETE FROM items", expecting: .anyNumber)
            try transaction.apply("DELETE FROM items WHERE id = -1", expecting: .exactly(1))
        }) { error in
            XCTAssertEqual((error as? KeyringError)?.status, .decode, "\(error)")
            XCTAssertTrue(((error as? KeyringError)?.reason ?? "").contains("changed 0 rows"), "\(error)")
        }
        XCTAssertEqual(try keyring.items(matching: ItemQuery(accessGroup: ItemTestHome.shared)).count, 1, "the first delete was committed")
    }

    // MARK: The file itself

    func testAKeyringDatabaseWithASecondHardLinkIsRefused() throws {
        // The second name could be another file of this user's that an attacker linked in
        // place of the database: SQLite would write into it.
        let other = home.directory.url.appendingPathComponent("other-name.db").path
        XCTAssertEqual(link(path, other), 0)

        XCTAssertThrowsError(try KeyringDatabase.shared(for: home.home)) { error in
            let reason = (error as? KeyringError)?.reason ?? "\(error)"
            XCTAssertEqual((error as? KeyringError)?.status, .notAvailable, reason)
            XCTAssertTrue(reason.contains("keyring.db") && reason.contains("hard links"), reason)
        }
    }

    func testADirectoryPlantedAsTheWalFileIsRefusedBeforeSQLiteUsesIt() throws {
        try? FileManager.default.removeItem(atPath: path + "-wal")
        XCTAssertEqual(mkdir(path + "-wal", 0o700), 0)

        XCTAssertThrowsError(try KeyringDatabase.shared(for: home.home)) { error in
            let reason = (error as? KeyringError)?.reason ?? "\(error)"
            XCTAssertEqual((error as? KeyringError)?.status, .notAvailable, reason)
            XCTAssertTrue(reason.contains("keyring.db-wal"), reason)
        }
    }

    func testAHardLinkPlantedAsTheShmFileIsRefusedAndTheLinkedFileKept() throws {
        try? FileManager.default.removeItem(atPath: path + "-shm")
        let victim = home.directory.url.appendingPathComponent("victim.txt").path
        let content = Data(repeating: 0x41, count: 64 * 1024)
        XCTAssertTrue(FileManager.default.createFile(atPath: victim, contents: content, attributes: [.posixPermissions: 0o600]))
        XCTAssertEqual(link(victim, path + "-shm"), 0)

        XCTAssertThrowsError(try KeyringDatabase.shared(for: home.home)) { error in
            XCTAssertTrue(((error as? KeyringError)?.reason ?? "\(error)").contains("keyring.db-shm"), "\(error)")
        }
        XCTAssertEqual(FileManager.default.contents(atPath: victim), content, "SQLite wrote into the linked file")
    }

    // MARK: Helpers

    /// Opening the home's database is refused as damaged (`decode`) with a reason naming each
    /// of `fragments`.
    private func assertRefused(containing fragments: [String], file: StaticString = #filePath, line: UInt = #line) {
        assertRefusedAsDamaged({ _ = try KeyringDatabase.shared(for: home.home) }, naming: fragments, file: file, line: line)
    }

    /// Runs `sql` on the database through a connection of its own, as another program would.
    private func execute(_ sql: String, line: UInt = #line) {
        OutsideSQL.execute(sql, on: path, line: line)
    }

    /// The integer `sql` returns, read through a connection of its own.
    private func rows(_ sql: String) -> Int64? {
        OutsideSQL.integer(sql, on: path)
    }

    private func fileSize() throws -> Int {
        (try FileManager.default.attributesOfItem(atPath: path)[.size] as? NSNumber)?.intValue ?? -1
    }
}
