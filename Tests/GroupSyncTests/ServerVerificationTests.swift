import GroupSync
import GroupSyncTestKit
import XCTest

/// A verification reads every entry the server holds for a store and compares each with what
/// the machine accepted (docs/SYNC.md, section 6, "Verifying the server"): what a catch-up
/// never reads, a row dropped or an older one put back below every cursor, is found at once,
/// counted, and written back.
final class ServerVerificationTests: SyncServerTestCase {
    override class var machines: Int { 3 }

    private var writer: UbiquitousKeyValueStore!
    private var reader: UbiquitousKeyValueStore!

    override func setUpWithError() throws {
        try super.setUpWithError()
        writer = try sandbox.store(0, url: server.url)
        reader = try sandbox.store(1, url: server.url)
    }

    /// Writes each value on the writer in turn, pushing each before the next (so change
    /// numbers follow the order given), and brings the reader up to date.
    private func write(_ values: KeyValuePairs<String, String>) async throws {
        for (key, value) in values {
            try writer.setValue(.string(value), forKey: key)
            try await writer.synchronizeWithServer()
        }
        try await reader.synchronizeWithServer()
    }

    /// What a machine that has never synced reads from the server now.
    private func aFreshMachinesValue(forKey key: String) async throws -> String? {
        let fresh = try sandbox.store(2, url: server.url)
        try await fresh.synchronizeWithServer()
        return fresh.string(forKey: key)
    }

    func testAServerHoldingWhatTheMachineAcceptedVerifiesClean() async throws {
        try await write(["a": "1", "b": "2", "c": "3"])

        let verification = try await reader.verifyWithServer()

        XCTAssertTrue(verification.isClean, "\(verification)")
        XCTAssertEqual(verification.rowsRead, 3)
        XCTAssertEqual(verification.entriesCompared, 3)
        XCTAssertEqual(verification.refusals, [:])
        XCTAssertEqual(reader.status.refusals, [:])
    }

    func testARowTheServerDroppedIsFoundCountedAndWrittenBack() async throws {
        try await write(["dropped": "kept", "other": "value"])
        try server.psql("DELETE FROM groupsync_entry WHERE change = (SELECT min(change) FROM groupsync_entry)")

        let verification = try await reader.verifyWithServer()

        XCTAssertEqual(verification.missing, 1, "\(verification)")
        XCTAssertEqual(verification.refusals, ["notFound": 1])
        XCTAssertEqual(verification.restored, 1)
        XCTAssertFalse(verification.isClean)
        XCTAssertEqual(reader.status.refusals, ["notFound": 1], "a finding is counted as a catch-up's refusals are")
        let fresh = try await aFreshMachinesValue(forKey: "dropped")
        XCTAssertEqual(fresh, "kept", "the accepted row is written back")
    }

    func testADroppedRowWrittenBackIsNoFindingOfTheNextVerification() async throws {
        try await write(["dropped": "kept"])
        try server.psql("DELETE FROM groupsync_entry")
        _ = try await reader.verifyWithServer()

        let again = try await writer.verifyWithServer()

        XCTAssertTrue(again.isClean, "\(again)")
        XCTAssertEqual(writer.status.refusals, [:], "the row written back is the one the writer accepted")
    }

    func testAnOlderRowPutBackBelowEveryCursorIsRefusedAsARollbackAndOverwritten() async throws {
        try await write(["token": "old"])
        let dump = server.dumpPath
        try server.dump(to: dump)
        try await write(["token": "new"])
        try server.restore(from: dump)
        // The operator hides the restore: no catch-up sees the counter go back, and none
        // reads the old row, which lies below every cursor.
        try server.psql("SELECT setval('groupsync_change', 1000000)")
        try await reader.synchronizeWithServer()
        XCTAssertEqual(reader.status.refusals, [:], "a catch-up does not see this restore")

        let verification = try await reader.verifyWithServer()

        XCTAssertEqual(verification.older, 1, "\(verification)")
        XCTAssertEqual(verification.refusals, ["rollback": 1])
        XCTAssertEqual(verification.restored, 1)
        XCTAssertEqual(reader.string(forKey: "token"), "new")
        let fresh = try await aFreshMachinesValue(forKey: "token")
        XCTAssertEqual(fresh, "new", "the accepted row is written over the old one")
    }

    func testARowAlteredAtTheAcceptedSequenceIsRefusedAndLeftOnTheServer() async throws {
        try await write(["token": "value"])
        // Altered in place, its change number kept: no catch-up reads it again.
        try tamperWithBlobs(announcing: false)
        let altered = try server.value("SELECT encode(blob, 'hex') FROM groupsync_entry")

        let verification = try await reader.verifyWithServer()

        XCTAssertEqual(verification.differing, 1, "\(verification)")
        XCTAssertEqual(verification.refusals, ["authenticationFailed": 1])
        XCTAssertEqual(verification.restored, 0)
        XCTAssertEqual(reader.string(forKey: "token"), "value")
        XCTAssertEqual(try server.value("SELECT encode(blob, 'hex') FROM groupsync_entry"), altered, "which history a group keeps is not one machine's to decide")
    }

    func testAnAuthenticRowBelowTheCursorTheMachineNeverReadIsTakenIn() async throws {
        try await write(["first": "1"])
        try writer.setValue(.string("hidden"), forKey: "second")
        try await writer.synchronizeWithServer()
        // The second row is moved below the first, which the reader has read: no catch-up of
        // the reader's reads it (what a write that commits late would have done).
        try server.psql("UPDATE groupsync_entry SET change = 0 WHERE change = (SELECT max(change) FROM groupsync_entry)")
        try await reader.synchronizeWithServer()
        XCTAssertNil(reader.string(forKey: "second"), "a catch-up does not read below the cursor")

        let verification = try await reader.verifyWithServer()

        XCTAssertEqual(verification.unread, 1, "\(verification)")
        XCTAssertEqual(verification.refusals, [:])
        XCTAssertEqual(reader.string(forKey: "second"), "hidden")
    }

    func testRowsWrittenAfterTheMachineCaughtUpAreReadAsACatchUpAndAreNoFinding() async throws {
        try await write(["a": "1"])
        try writer.setValue(.string("2"), forKey: "a")
        try writer.setValue(.string("3"), forKey: "b")
        try await writer.synchronizeWithServer()

        let verification = try await reader.verifyWithServer()

        XCTAssertTrue(verification.isClean, "\(verification)")
        XCTAssertEqual(reader.string(forKey: "a"), "2")
        XCTAssertEqual(reader.string(forKey: "b"), "3")
    }

    func testSyncedRecordsAreVerifiedAsTheKeyValueStoreIs() async throws {
        let (writing, reading) = (try sandbox.records(0, url: server.url), try sandbox.records(1, url: server.url))
        try writing.write(SyncedNote(text: "kept"), to: "note")
        try await writing.synchronizeWithServer()
        try await reading.synchronizeWithServer()
        try server.psql("DELETE FROM groupsync_entry")

        let verification = try await reading.verifyWithServer()

        XCTAssertEqual(verification.missing, 1, "\(verification)")
        XCTAssertEqual(verification.restored, 1)
        let fresh = try sandbox.records(2, url: server.url)
        try await fresh.synchronizeWithServer()
        XCTAssertEqual(try fresh.read(SyncedNote.self, from: "note")?.text, "kept")
    }

    func testEveryPageOfAStoreLargerThanOnePageIsCompared() async throws {
        let (writing, reading) = (try sandbox.records(0, url: server.url), try sandbox.records(1, url: server.url))
        // Two pages: 500 rows, then up to 1,000.
        let count = 1_100
        for index in 0..<count { try writing.write(SyncedNote(text: "\(index)"), to: "note-\(index)") }
        try await writing.synchronizeWithServer()
        try await reading.synchronizeWithServer()
        // The row whose name sorts last, on the last page.
        try server.psql("DELETE FROM groupsync_entry WHERE name = (SELECT name FROM groupsync_entry ORDER BY name DESC LIMIT 1)")

        let verification = try await reading.verifyWithServer()

        XCTAssertEqual(verification.rowsRead, count - 1, "\(verification)")
        XCTAssertEqual(verification.entriesCompared, count)
        XCTAssertEqual(verification.missing, 1)
    }

    func testVerifyingWithoutAServerIsRefusedAsConfiguration() async throws {
        let local = try sandbox.store(2, url: nil)

        do {
            _ = try await local.verifyWithServer()
            XCTFail("a store with no server cannot verify one")
        } catch {
            XCTAssertEqual(error.code, .configuration)
        }
    }
}
