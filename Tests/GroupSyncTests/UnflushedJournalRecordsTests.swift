import Foundation
import GroupSync
import GroupSyncTestKit
import SealedStorage
import XCTest

/// The two changes a round appends to the journal without an `fdatasync` of their own
/// (docs/SYNC.md, section 7, "What is flushed"): the server's acknowledgement of a push, and a
/// catch-up page that accepted nothing. Under a process-wide fault at that `fdatasync`, a flushed
/// append fails; a power failure's loss of unflushed records is the journal cut back to its
/// size before them.
final class UnflushedJournalRecordsTests: SyncServerTestCase {
    // MARK: Arrangement

    /// Machine `index`'s journals (one per synced space), found under its home.
    private func journals(of index: Int) throws -> [URL] {
        let files = FileManager.default.enumerator(at: sandbox.homes[index], includingPropertiesForKeys: nil)
        let found = (files?.allObjects as? [URL] ?? []).filter { $0.pathExtension == "journal" && $0.path.contains("/GroupSync/") }
        XCTAssertFalse(found.isEmpty, "machine \(index) has no sync journal")
        return found
    }

    private func sizes(of files: [URL]) throws -> [URL: Int] {
        var sizes: [URL: Int] = [:]
        for file in files { sizes[file] = try Data(contentsOf: file).count }
        return sizes
    }

    /// A power failure that loses every record written after `sizes` were taken.
    private func cut(back sizes: [URL: Int]) throws {
        for (file, size) in sizes {
            let handle = try FileHandle(forWritingTo: file)
            try handle.truncate(atOffset: UInt64(size))
            try handle.close()
        }
    }

    /// Machine 0 having done its first sync and then written `value` locally: from here on its
    /// journal holds every flushed record, and the next push's records come after them.
    private func machineWithAPendingWrite(_ value: String) async throws -> UbiquitousKeyValueStore {
        let store = try sandbox.store(0, url: server.url)
        try await store.synchronizeWithServer()
        try store.setValue(.string(value), forKey: "token")
        XCTAssertEqual(store.status.pendingWrites, 1)
        return store
    }

    // MARK: Not flushed

    func testAPushAndItsCatchUpOfDuplicatesMakeNoFdatasync() async throws {
        let store = try await machineWithAPendingWrite("pushed")
        try await FaultInjection.withProcessWideFault(.fail(.ioError), at: .step(.syncAppended)) {
            try await store.synchronizeWithServer()
            // A second round reads the pushed row back as a duplicate (the cursor moves).
            try await store.synchronizeWithServer()
        }
        XCTAssertEqual(store.status.pendingWrites, 0, "the push must have been acknowledged: \(store.status)")
        XCTAssertEqual(store.status.pushedWrites, 1)
    }

    func testAValuePulledFromTheServerIsFlushedBeforeItIsShown() async throws {
        let writer = try sandbox.store(1, url: server.url)
        writer.set("from elsewhere", forKey: "token")
        try await writer.synchronizeWithServer()
        let reader = try sandbox.store(0, url: server.url)

        await assertSyncFailsAsStorage(at: .syncAppended, "a pulled value was applied without its fdatasync") {
            try await reader.synchronizeWithServer()
        }
        XCTAssertNil(reader.string(forKey: "token"), "a value not known to be durable was shown")
        try await reader.synchronizeWithServer()
        XCTAssertEqual(reader.string(forKey: "token"), "from elsewhere")
    }

    // MARK: Lost in a power failure

    /// Machine 0 pushes a write and reads it back (its acknowledgement and a catch-up of a
    /// duplicate, neither flushed), then loses both in a power failure and starts again.
    private func restartAfterLosingAnAcknowledgement(of value: String) async throws -> UbiquitousKeyValueStore {
        let store = try await machineWithAPendingWrite(value)
        let flushed = try sizes(of: try journals(of: 0))
        try await store.synchronizeWithServer()
        try await store.synchronizeWithServer()
        XCTAssertEqual(store.status.pendingWrites, 0)
        XCTAssertNotEqual(try sizes(of: Array(flushed.keys)), flushed, "the push must have appended its acknowledgement")
        try cut(back: flushed)
        let restarted = try sandbox.store(0, url: server.url)
        XCTAssertEqual(restarted.status.pendingWrites, 1, "the lost acknowledgement leaves the write pending")
        return restarted
    }

    func testAnAcknowledgementLostInAPowerFailureIsRepairedByTheNextRound() async throws {
        let restarted = try await restartAfterLosingAnAcknowledgement(of: "pushed once")
        try await restarted.synchronizeWithServer()

        XCTAssertEqual(restarted.status.pendingWrites, 0, "\(restarted.status)")
        XCTAssertEqual(restarted.string(forKey: "token"), "pushed once")
        XCTAssertEqual(restarted.status.superseded, 0, "its own write, stored before the failure, is not another machine's")
        XCTAssertEqual(restarted.status.refusedCount, 0)
        XCTAssertEqual(try server.value("SELECT sequence FROM groupsync_entry"), "1", "the write was stored once, not pushed again above itself")
    }

    func testAWriteReadBackAfterALostAcknowledgementIsNotAnExternalChange() async throws {
        let restarted = try await restartAfterLosingAnAcknowledgement(of: "mine")
        let changes = restarted.externalChanges()
        try await restarted.synchronizeWithServer()
        // Then another machine's write of another key: the first change the restarted machine
        // reports must be that one.
        let writer = try sandbox.store(1, url: server.url)
        writer.set("theirs", forKey: "other")
        try await writer.synchronizeWithServer()
        try await restarted.synchronizeWithServer()

        var iterator = changes.makeAsyncIterator()
        let first = await iterator.next()
        XCTAssertEqual(first, UbiquitousChange(reason: .serverChange, changedKeys: ["other"]), "its own write, read back, was reported as a change")
        XCTAssertEqual(restarted.string(forKey: "token"), "mine")
    }
}
