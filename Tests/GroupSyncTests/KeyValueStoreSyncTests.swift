import Foundation
import GroupSync
import GroupSyncTestKit
import Keyring
import SealedStorage
import XCTest

/// The ubiquitous key-value store between machines through a real PostgreSQL server.
final class KeyValueStoreSyncTests: SyncServerTestCase {
    /// Machine 0 sets `theme` to "dark" within `write`, which also starts both machines'
    /// syncing its own way; whether machine 1 then reads it, with both stores' status.
    private func secondMachineReadsTheTheme(
        _ write: (_ writer: UbiquitousKeyValueStore, _ reader: UbiquitousKeyValueStore) -> Void
    ) async throws -> (arrived: Bool, writer: SyncStatus, reader: SyncStatus) {
        let writer = try sandbox.store(0, url: server.url)
        let reader = try sandbox.store(1, url: server.url)
        let changes = reader.externalChanges()
        write(writer, reader)
        let arrived = await waitForChange(changes) { reader.string(forKey: "theme") == "dark" }
        await writer.stop()
        await reader.stop()
        return (arrived, writer.status, reader.status)
    }

    func testAWriteOnOneMachineIsReadOnAnother() async throws {
        let outcome = try await secondMachineReadsTheTheme { writer, reader in
            writer.start()
            reader.start()
            writer.set("dark", forKey: "theme")
        }
        XCTAssertTrue(outcome.arrived, "status: \(outcome.reader)")
    }

    /// Code written for Apple's store, which always syncs, calls `synchronize()` and never
    /// `start()`.
    func testSynchronizeStartsSyncingAsApplesStoreAlwaysDoes() async throws {
        let outcome = try await secondMachineReadsTheTheme { writer, reader in
            writer.set("dark", forKey: "theme")
            XCTAssertTrue(writer.synchronize())
            XCTAssertTrue(reader.synchronize())
        }
        XCTAssertTrue(outcome.arrived, "status: \(outcome.reader)")
        XCTAssertEqual(outcome.writer.pendingWrites, 0, "the write was pushed")
    }

    /// A first sync's last page of rows marks the catch-up complete in its own journal record,
    /// flushed once: under a fault at every append's `fdatasync` after the page's, the first
    /// sync completes and is told.
    func testAFirstSyncsLastPageMarksItCompleteInItsOwnRecord() async throws {
        let writer = try sandbox.store(0, url: server.url)
        for index in 0..<10 { try writer.setValue(.string("v\(index)"), forKey: "k\(index)") }
        try await writer.synchronizeWithServer()
        let reader = try sandbox.store(1, url: server.url)
        let changes = reader.externalChanges()

        try await FaultInjection.withProcessWideFault(.fail(.ioError), at: .step(.syncAppended), afterPassing: 1) {
            try await reader.synchronizeWithServer()
        }

        let synced = await firstChange(changes, reason: .initialSyncChange)
        XCTAssertEqual(Set(try XCTUnwrap(synced).changedKeys), Set((0..<10).map { "k\($0)" }))
        XCTAssertEqual(reader.dictionaryRepresentation as NSDictionary, writer.dictionaryRepresentation as NSDictionary)
    }
}

/// Apple's conflict rule between two machines' writes of one key.
final class KeyValueStoreConflictTests: SyncServerTestCase {
    func testTheMoreRecentWriteWinsAndTheLoserSeesAServerChange() async throws {
        let older = try sandbox.store(0, url: server.url)
        let newer = try sandbox.store(1, url: server.url)
        let changes = older.externalChanges()
        older.set("older", forKey: "theme")
        // Issued-at is in milliseconds: wait for the clock to move on, so "newer" is newer.
        try await Task.sleep(for: .milliseconds(5))
        newer.set("newer", forKey: "theme")
        try await older.synchronizeWithServer()
        try await newer.synchronizeWithServer()
        try await older.synchronizeWithServer()

        XCTAssertEqual(older.string(forKey: "theme"), "newer")
        XCTAssertEqual(newer.string(forKey: "theme"), "newer")
        XCTAssertEqual(older.status.superseded, 0, "the older write reached the server first; it was overwritten, not superseded")
        var iterator = changes.makeAsyncIterator()
        var change = await iterator.next()
        if change?.reason == .initialSyncChange { change = await iterator.next() }
        XCTAssertEqual(change, UbiquitousChange(reason: .serverChange, changedKeys: ["theme"]))
    }

    func testAnOlderPendingWriteLosesIsCountedAsSupersededAndItsWriterSeesAServerChange() async throws {
        let older = try sandbox.store(0, url: server.url)
        let newer = try sandbox.store(1, url: server.url)
        let changes = older.externalChanges()
        older.set("older", forKey: "theme")
        try await Task.sleep(for: .milliseconds(5))
        newer.set("newer", forKey: "theme")
        try await newer.synchronizeWithServer()
        try await older.synchronizeWithServer()

        XCTAssertEqual(older.string(forKey: "theme"), "newer")
        XCTAssertEqual(older.status.superseded, 1)
        XCTAssertEqual(older.status.pendingWrites, 0)
        let change = await firstChange(changes, reason: .serverChange)
        XCTAssertEqual(change?.changedKeys, ["theme"], "the loser is told, as Apple's store tells it")
    }
}
