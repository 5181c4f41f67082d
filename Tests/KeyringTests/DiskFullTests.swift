import Foundation
import GroupVaultTestKit
@testable import Keyring
import SealedStorage
import XCTest

/// A full disk (ENOSPC injected into a keyring database transaction) fails the write with
/// errSecIO and a reason that says so, and leaves what was stored before, and no partial row, behind.
final class DiskFullTests: ItemTestCase {
    override func setUpWithError() throws {
        try super.setUpWithError()
        // Written before any fault is armed, so the master key and the group directory exist.
        try keyring.add(KeychainItem(service: "api", account: "a", secret: Data("first".utf8)))
        try keyring.add(KeychainItem(service: "api", account: "b", secret: Data("second".utf8)))
    }

    /// How many item rows the database holds, matched or not.
    private func rowCount() throws -> Int64 {
        try KeyringDatabase.shared(for: home.home).read("test") { (transaction: borrowing KeyringDatabase.Transaction) throws(KeyringError) -> Int64 in
            try transaction.query("SELECT count(*) FROM items") { $0.integer(0) }.first ?? -1
        }
    }

    private func storedSecrets() throws -> [Data] {
        try keyring.items(matching: ItemQuery(service: "api")).map(\.secret)
    }

    private func assertDiskFullError(_ body: () throws -> Void, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertThrowsError(try body(), file: file, line: line) { error in
            guard let error = error as? KeyringError else { return XCTFail("not a KeyringError: \(error)", file: file, line: line) }
            XCTAssertEqual(error.status, .ioError, error.reason, file: file, line: line)
            XCTAssertTrue(error.reason.contains("free disk space"), error.reason, file: file, line: line)
        }
    }

    func testAddOnAFullDiskIsIOErrorSayingTheDiskIsFull() {
        FaultInjection.withFault(.fail(.noSpace), at: .step(.itemCommit)) {
            assertDiskFullError { try keyring.add(KeychainItem(service: "api", account: "c", secret: Data("third".utf8))) }
        }
    }

    func testAddOnAFullDiskKeepsTheEarlierItems() throws {
        FaultInjection.withFault(.fail(.noSpace), at: .step(.itemCommit)) {
            _ = try? keyring.add(KeychainItem(service: "api", account: "c", secret: Data("third".utf8)))
        }
        XCTAssertEqual(try storedSecrets(), [Data("first".utf8), Data("second".utf8)])
    }

    func testAddOnAFullDiskLeavesNoPartialRow() throws {
        FaultInjection.withFault(.fail(.noSpace), at: .step(.itemCommit)) {
            _ = try? keyring.add(KeychainItem(service: "api", account: "c", secret: Data("third".utf8)))
        }
        XCTAssertEqual(try rowCount(), 2)
    }

    func testUpdateOnAFullDiskKeepsTheOldSecret() throws {
        var changes = ItemChanges()
        changes.secret = Data("replacement".utf8)
        FaultInjection.withFault(.fail(.noSpace), at: .step(.itemCommit)) {
            assertDiskFullError { try keyring.update(matching: ItemQuery(service: "api", account: "a"), with: changes) }
        }
        XCTAssertEqual(try storedSecrets(), [Data("first".utf8), Data("second".utf8)])
    }

    func testDeleteOnAFullDiskDeletesNothing() throws {
        FaultInjection.withFault(.fail(.noSpace), at: .step(.itemCommit)) {
            assertDiskFullError { try keyring.delete(matching: ItemQuery(service: "api")) }
        }
        XCTAssertEqual(try storedSecrets(), [Data("first".utf8), Data("second".utf8)])
    }

    func testAFailedCommitKeepsTheEarlierItems() throws {
        try FaultInjection.withFault(.fail(.ioError), at: .step(.itemCommit)) {
            XCTAssertThrowsError(try keyring.add(KeychainItem(service: "api", account: "c", secret: Data("third".utf8)))) { error in
                XCTAssertEqual((error as? KeyringError)?.status, .ioError)
            }
        }
        XCTAssertEqual(try storedSecrets(), [Data("first".utf8), Data("second".utf8)])
    }

    func testAnAddAfterSpaceIsFreedSucceeds() throws {
        FaultInjection.withFault(.fail(.noSpace), at: .step(.itemCommit)) {
            _ = try? keyring.add(KeychainItem(service: "api", account: "c", secret: Data("third".utf8)))
        }
        try keyring.add(KeychainItem(service: "api", account: "c", secret: Data("third".utf8)))
        XCTAssertEqual(try storedSecrets(), [Data("first".utf8), Data("second".utf8), Data("third".utf8)])
    }

    func testAMoveThatFailsWritingTheTargetLeavesTheItemInTheSource() throws {
        // Failing right after the item is written to the target, before it leaves the source.
        var changes = ItemChanges()
        changes.accessGroup = ItemTestHome.appGroup
        FaultInjection.withFault(.fail(.noSpace), at: .step(.itemStep)) {
            assertDiskFullError { try keyring.update(matching: ItemQuery(service: "api", account: "a"), with: changes) }
        }
        XCTAssertEqual(try keyring.items(matching: ItemQuery(service: "api", account: "a")).map(\.accessGroup), [ItemTestHome.shared])
    }

    /// A reported failure changes nothing: the move is one transaction, rolled back whole. (A
    /// crash at any step never loses the item: ItemMultiProcessTests kills a mover at every step.)
    func testAMoveThatFailsWritingTheSourceIsUndoneInTheTarget() throws {
        // Both rows are written; the commit fails.
        var changes = ItemChanges()
        changes.accessGroup = ItemTestHome.appGroup
        FaultInjection.withFault(.fail(.noSpace), at: .step(.itemCommit)) {
            assertDiskFullError { try keyring.update(matching: ItemQuery(service: "api", account: "a"), with: changes) }
        }
        let copies = try keyring.items(matching: ItemQuery(service: "api", account: "a"))
        XCTAssertEqual(copies.map(\.accessGroup), [ItemTestHome.shared])
        XCTAssertEqual(copies.map(\.secret), [Data("first".utf8)])
    }
}
