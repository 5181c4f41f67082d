import Foundation
import GroupVaultTestKit
@testable import Keyring
import SealedStorage
import XCTest

/// Operations that span several access groups: all of it or none of it, and never an item
/// missing from a reader's view while it moves.
final class ItemAtomicityTests: ItemTestCase {
    private func addInBothGroups(_ keyring: Keyring) throws {
        try keyring.add(KeychainItem(service: "api", account: "a", accessGroup: ItemTestHome.shared, secret: Data("one".utf8)))
        try keyring.add(KeychainItem(service: "api", account: "b", accessGroup: ItemTestHome.appGroup, secret: Data("two".utf8)))
    }

    func testADeleteAcrossGroupsThatFailsHalfwayChangesNothing() throws {
        let keyring = home.keyring()
        try addInBothGroups(keyring)
        // Both groups' rows are deleted inside the transaction; its commit fails.
        try FaultInjection.withFault(.fail(.noSpace), at: .step(.itemCommit)) {
            XCTAssertThrowsError(try keyring.delete(matching: ItemQuery(service: "api"))) { error in
                XCTAssertEqual((error as? KeyringError)?.status, .ioError)
            }
        }

        XCTAssertEqual(try keyring.items(matching: ItemQuery(service: "api")).compactMap(\.account).sorted(), ["a", "b"],
                       "a reported failure must mean that no group changed")
    }

    func testAnUpdateAcrossGroupsThatFailsHalfwayChangesNothing() throws {
        let keyring = home.keyring()
        try addInBothGroups(keyring)
        var changes = ItemChanges()
        changes.secret = Data("new".utf8)
        try FaultInjection.withFault(.fail(.ioError), at: .step(.itemCommit)) {
            XCTAssertThrowsError(try keyring.update(matching: ItemQuery(service: "api"), with: changes))
        }

        let secrets = try keyring.items(matching: ItemQuery(service: "api")).map { String(decoding: $0.secret, as: UTF8.self) }
        XCTAssertEqual(secrets.sorted(), ["one", "two"], "no group may keep the new secret after a reported failure")
    }

    func testASearchAcrossGroupsNeverMissesAnItemBeingMovedBetweenThem() throws {
        let keyring = home.keyring()
        try keyring.add(KeychainItem(service: "api", account: "roaming", accessGroup: ItemTestHome.appGroup, secret: Data("s".utf8)))
        let moves = 40
        let mover = Thread.detachedWork {
            for index in 0..<moves {
                var changes = ItemChanges()
                // Back and forth, so half the moves go from a later searched group to an earlier one.
                changes.accessGroup = index.isMultiple(of: 2) ? ItemTestHome.shared : ItemTestHome.appGroup
                try keyring.update(matching: ItemQuery(service: "api", account: "roaming"), with: changes)
            }
        }
        var searches = 0
        while !mover.isFinished {
            XCTAssertEqual(try keyring.items(matching: ItemQuery(service: "api", account: "roaming")).count, 1,
                           "search \(searches) saw the item in neither group (or both)")
            searches += 1
        }
        try mover.result()
        XCTAssertGreaterThan(searches, 0)
    }

    /// Keyring items no longer sync a directory (SQLite's commit is the durable point); a
    /// directory sync failing elsewhere in the home must still not fail an add.
    func testAFailedDirectorySyncAfterTheRenameStillCountsAsAdded() throws {
        let keyring = home.keyring()
        try keyring.add(KeychainItem(service: "warm-up", secret: Data("x".utf8)))
        // The change is in effect once renamed; reporting failure would make a retry a duplicate.
        _ = try FaultInjection.withFault(.fail(.ioError), at: .step(.syncDirectory)) {
            try keyring.add(KeychainItem(service: "api", account: "a", secret: Data("one".utf8)))
        }

        XCTAssertEqual(try keyring.item(matching: ItemQuery(service: "api", account: "a")).secret, Data("one".utf8))
    }

    func testReadingThroughASymbolicLinkForTheKeyringDatabaseIsRefused() throws {
        let keyring = home.keyring()
        try keyring.add(KeychainItem(service: "api", accessGroup: ItemTestHome.shared, secret: Data("one".utf8)))
        let real = home.home.root.appendingPathComponent("Keychains").appendingPathComponent("keyring.db")
        let elsewhere = home.directory.url.appendingPathComponent("elsewhere.db")
        try FileManager.default.moveItem(at: real, to: elsewhere)
        try FileManager.default.createSymbolicLink(at: real, withDestinationURL: elsewhere)
        // This process opened the real file already; a new process would find the link.
        KeyringDatabase.closeAll()

        XCTAssertThrowsError(try keyring.items(matching: ItemQuery(service: "api", accessGroup: ItemTestHome.shared))) { error in
            XCTAssertEqual((error as? KeyringError)?.status, .notAvailable, "\(error)")
        }
    }
}

/// Work on another thread whose completion can be polled and whose error is rethrown.
private final class DetachedWork: @unchecked Sendable {
    private let lock = NSLock()
    private var outcome: Result<Void, any Error>?

    init(_ body: @escaping @Sendable () throws -> Void) {
        Thread { [self] in
            let result = Result { try body() }
            lock.withLock { outcome = result }
        }.start()
    }

    var isFinished: Bool { lock.withLock { outcome != nil } }

    func result() throws {
        while !isFinished { Thread.sleep(forTimeInterval: 0.001) }
        try lock.withLock { outcome! }.get()
    }
}

private extension Thread {
    static func detachedWork(_ body: @escaping @Sendable () throws -> Void) -> DetachedWork { DetachedWork(body) }
}
