import Foundation
import GroupVaultTestKit
@testable import Keyring
import XCTest

/// A write transaction's commit is flushed (`synchronous=FULL`) unless its caller defers the
/// flush, for that commit alone: whatever happens to a deferred commit, the next one is flushed.
final class CommitDurabilityTests: ItemTestCase {
    private var database: KeyringDatabase!

    override func setUpWithError() throws {
        try super.setUpWithError()
        database = try KeyringDatabase.shared(for: home.home)
    }

    func testACommitIsFlushedByDefault() throws {
        let before = database.flushedCommitCount()

        XCTAssertEqual(try synchronous(during: .flushed), 2, "FULL")
        XCTAssertEqual(database.flushedCommitCount() - before, 1)
    }

    func testADeferredCommitRunsWithoutAFlushOfItsOwn() throws {
        let before = database.flushedCommitCount()

        XCTAssertEqual(try synchronous(during: .deferred), 1, "NORMAL")
        XCTAssertEqual(database.flushedCommitCount(), before)
    }

    func testTheCommitAfterADeferredOneIsFlushed() throws {
        _ = try synchronous(during: .deferred)

        XCTAssertEqual(try synchronous(during: .flushed), 2)
    }

    func testTheCommitAfterAFailedDeferredOneIsFlushed() throws {
        XCTAssertThrowsError(try database.write("fail", durability: .deferred) { (_: borrowing KeyringDatabase.Transaction) throws(KeyringError) in
            throw KeyringError(.ioError, "the body failed")
        })

        XCTAssertEqual(try synchronous(during: .flushed), 2)
    }

    /// `PRAGMA synchronous` as a write transaction of `durability` sees it.
    private func synchronous(during durability: KeyringDatabase.CommitDurability) throws -> Int64? {
        try database.write("read the synchronous setting", durability: durability) { (transaction: borrowing KeyringDatabase.Transaction) throws(KeyringError) -> Int64? in
            try transaction.query("PRAGMA synchronous") { $0.integer(0) }.first
        }
    }
}
