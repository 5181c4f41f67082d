import Foundation
import GroupVaultTestKit
@testable import Keyring
import XCTest

/// The stamps every warm lookup and read compares (``KeyringDatabase/ContentStamp``,
/// ``KeyringDatabase/ChangeStamp``) ask SQLite for `PRAGMA data_version` only when the
/// wal-index header moved since they last asked: an unchanged database is seen without a
/// transaction, and every commit, by any connection, is still seen by the next stamp.
final class DataVersionStampTests: ItemTestCase {
    override func setUpWithError() throws {
        try super.setUpWithError()
        try keyring.add(KeychainItem(service: "api", account: "a", secret: Data("first".utf8)))
    }

    func testAStampOfAnUnchangedDatabaseAsksSQLiteNothing() throws {
        let database = try primedDatabase()
        let queries = database.dataVersionQueryCount()
        let content = try database.contentStamp()
        let change = try database.changeStamp()

        XCTAssertEqual(try database.contentStamp(), content)
        XCTAssertEqual(try database.changeStamp(), change)
        XCTAssertEqual(database.dataVersionQueryCount(), queries, "the header was unchanged, so no stamp ran the pragma")
    }

    func testAnotherConnectionsCommitChangesBothStamps() throws {
        let database = try primedDatabase()
        let content = try database.contentStamp()
        let change = try database.changeStamp()

        commitFromAnotherConnection()

        XCTAssertNotEqual(try database.contentStamp(), content)
        XCTAssertNotEqual(try database.changeStamp(), change)
    }

    func testAnotherConnectionsCommitIsSeenByEveryStampAfterIt() throws {
        let database = try primedDatabase()
        commitFromAnotherConnection()
        let seen = try database.contentStamp()

        XCTAssertEqual(try database.contentStamp(), seen, "the commit is seen once, then the database is unchanged again")
        commitFromAnotherConnection()
        XCTAssertNotEqual(try database.contentStamp(), seen)
    }

    func testThisConnectionsOwnWriteMakesTheNextStampAsk() throws {
        let database = try primedDatabase()
        let content = try database.contentStamp()
        let queries = database.dataVersionQueryCount()

        try keyring.add(KeychainItem(service: "api", account: "b", secret: Data("second".utf8)))

        XCTAssertNotEqual(try database.contentStamp(), content)
        XCTAssertEqual(database.dataVersionQueryCount(), queries + 1)
    }

    func testAStampAfterThisConnectionsRolledBackWriteAsksSQLiteAgain() throws {
        // A rollback writes no header, and the pragma's answer after one is SQLite's to give.
        let database = try primedDatabase()
        let queries = database.dataVersionQueryCount()

        XCTAssertThrowsError(try database.write("fail on purpose") { (transaction: borrowing KeyringDatabase.Transaction) throws(KeyringError) in
            _ = try transaction.run("INSERT INTO meta (name, value) VALUES ('rolled back', 1)")
            throw KeyringError(.ioError, "failed on purpose")
        })

        _ = try database.contentStamp()
        XCTAssertEqual(database.dataVersionQueryCount(), queries + 1)
    }

    // MARK: Arrangement

    private var path: String { home.databaseFile.path }

    private var outsideCommits = 0

    /// A commit of a new row by a connection of another program. (An `UPDATE` that writes the
    /// bytes a row already has commits nothing: SQLite leaves its page clean.)
    private func commitFromAnotherConnection() {
        outsideCommits += 1
        OutsideSQL.execute("INSERT INTO meta (name, value) VALUES ('outside \(outsideCommits)', 1)", on: path)
    }

    /// The database as a new process opens it, after the two stamps that map its wal-index and
    /// remember the header: from then on an unchanged database is seen without the pragma.
    private func primedDatabase() throws -> KeyringDatabase {
        KeyringDatabase.closeAll()
        let database = try KeyringDatabase.shared(for: home.home)
        _ = try database.contentStamp()
        _ = try database.contentStamp()
        return database
    }
}
