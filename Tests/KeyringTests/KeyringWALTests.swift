import Foundation
import GroupVaultTestKit
@testable import Keyring
import XCTest

/// A process never closes its keyring connection, so its WAL outlives it; the next process to
/// open the database with nobody else holding it open reads every frame since the last
/// checkpoint to rebuild the WAL's index. Commits checkpoint at
/// ``KeyringDatabase/checkpointPages`` pages, so that read stays bounded.
final class KeyringWALTests: ItemTestCase {
    func testWritesLeaveNoMoreThanTheCheckpointLimitOfFramesInTheWAL() throws {
        let keyring = home.keyring()
        // Each add writes several pages (its row and five indexes): well over SQLite's default
        // limit of 1,000 pages in all, which would let the WAL grow to about 1,000 frames.
        for index in 0..<400 {
            _ = try keyring.add(KeychainItem(service: "service", account: "account \(index)", accessGroup: ItemTestHome.appGroup, secret: Data(repeating: 1, count: 64)))
        }

        // A WAL file keeps the size of its longest run of frames: after a checkpoint the next
        // commit writes from its first frame again.
        let wal = home.databaseFile.path + "-wal"
        let size = try XCTUnwrap(FileManager.default.attributesOfItem(atPath: wal)[.size] as? Int)
        let pageSize = try XCTUnwrap(KeyringDatabase.shared(for: home.home).write("read the page size") { (transaction: borrowing KeyringDatabase.Transaction) throws(KeyringError) -> Int64? in
            try transaction.query("PRAGMA page_size") { $0.integer(0) }.first
        })
        let frame = 24 + Int(pageSize)
        // The limit, and the commit that crossed it.
        XCTAssertLessThanOrEqual(size, 32 + (KeyringDatabase.checkpointPages + 16) * frame, "\(size / frame) frames")
    }
}
