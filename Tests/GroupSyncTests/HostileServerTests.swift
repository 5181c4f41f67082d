import Foundation
@testable import GroupSync
import GroupSyncCore
import GroupSyncTestKit
import Keyring
import XCTest

/// The server as an attacker: an operator who rolls the database back, edits, swaps or replays
/// rows. Every such row is refused with the Vault's reason, counted in the machine's status,
/// and the machine keeps the value it trusted (docs/SYNC.md, "The server as an attacker").
final class HostileServerTests: SyncServerTestCase {
    private var writer: UbiquitousKeyValueStore!
    private var reader: UbiquitousKeyValueStore!

    override func setUpWithError() throws {
        try super.setUpWithError()
        writer = try sandbox.store(0, url: server.url)
        reader = try sandbox.store(1, url: server.url)
    }

    /// Writes on the writer and brings the reader up to date.
    private func write(_ values: [String: String]) async throws {
        for (key, value) in values { try writer.setValue(.string(value), forKey: key) }
        try await writer.synchronizeWithServer()
        try await reader.synchronizeWithServer()
    }


    /// `token` written as "old" and then "new" (both machines read it), then the server restored
    /// from a dump taken between the two: it serves "old" again.
    private func restoreADumpOfTheOlderValue() async throws {
        try await write(["token": "old"])
        let dump = server.dumpPath
        try server.dump(to: dump)
        try await write(["token": "new"])
        XCTAssertEqual(reader.string(forKey: "token"), "new")
        try server.restore(from: dump)
    }

    func testAServerRestoredFromAnEarlierDumpIsRefusedAsARollback() async throws {
        try await restoreADumpOfTheOlderValue()

        try await reader.synchronizeWithServer()

        XCTAssertEqual(reader.string(forKey: "token"), "new", "the rolled-back value must not replace the newer one")
        XCTAssertGreaterThanOrEqual(reader.status.refusals["rollback"] ?? 0, 1, "\(reader.status)")
    }

    func testAWriteMadeAfterARestoredDumpIsPushedOverTheRolledBackRow() async throws {
        try await restoreADumpOfTheOlderValue()

        // The push comes first, and its failed swap draws a change number: the counter is back
        // where this machine's cursor is, so the catch-up after it does not see it go back.
        try writer.setValue(.string("newest"), forKey: "token")
        try await writer.synchronizeWithServer()

        XCTAssertEqual(writer.status.pendingWrites, 0, "the write is pushed over the old row: \(writer.status)")
        XCTAssertEqual(writer.status.refusals["rollback"], 1, "the old row, read by its name, is refused: \(writer.status)")
        try await reader.synchronizeWithServer()
        XCTAssertEqual(reader.string(forKey: "token"), "newest")
    }

    func testAWriteOverARestoredDumpWhoseCounterWasMovedOnRefusesTheOldRowAndIsPushed() async throws {
        try await restoreADumpOfTheOlderValue()
        // The operator hides the restore: the change counter moves past every number a machine
        // read, so no catch-up finds it going back, and no catch-up returns the old row.
        try server.psql("SELECT setval('groupsync_change', 1000000)")

        try writer.setValue(.string("newest"), forKey: "token")
        try await writer.synchronizeWithServer()

        XCTAssertEqual(writer.status.pendingWrites, 0, "the write is pushed over the old row: \(writer.status)")
        XCTAssertEqual(writer.status.refusals["rollback"], 1, "the old row is refused when its entry is read: \(writer.status)")
        try await reader.synchronizeWithServer()
        XCTAssertEqual(reader.string(forKey: "token"), "newest")
        XCTAssertEqual(reader.status.refusedCount, 0, "\(reader.status)")
    }

    func testAWriteWhoseRolledBackRowAnotherMachineHealedFirstIsPushedOverTheHealedRow() async throws {
        try await restoreADumpOfTheOlderValue()
        // The writer judges the old row (a rollback: it will push over sequence 1)...
        let columns = try server.value("""
            SELECT translate(encode(name, 'base64') || ' ' || sequence || ' ' || change || ' ' || encode(blob, 'base64'), E'\\n', '')
            FROM groupsync_entry
            """).split(separator: " ").map(String.init)
        let old = ServerRow(
            name: [UInt8](try XCTUnwrap(Data(base64Encoded: columns[0]))), sequence: try XCTUnwrap(Int64(columns[1])),
            change: try XCTUnwrap(Int64(columns[2])), blob: [UInt8](try XCTUnwrap(Data(base64Encoded: columns[3]))))
        try writer.replica.apply([old])
        XCTAssertEqual(writer.status.refusals["rollback"], 1)
        // ...but the reader heals the server first, putting back the row both accepted.
        try await reader.synchronizeWithServer()
        XCTAssertEqual(try server.value("SELECT sequence FROM groupsync_entry"), "2")

        try writer.setValue(.string("newest"), forKey: "token")
        try await writer.synchronizeWithServer()

        XCTAssertEqual(writer.status.pendingWrites, 0, "the write's swap names the healed row: \(writer.status)")
        try await reader.synchronizeWithServer()
        XCTAssertEqual(reader.string(forKey: "token"), "newest")
    }

    func testARowTheServerDroppedIsCountedWhenItsEntryIsNextWrittenAndWrittenAgain() async throws {
        try await write(["token": "old"])
        XCTAssertEqual(writer.status.refusals, [:], "a first write replaces no row, and that is no finding")
        try server.psql("DELETE FROM groupsync_entry")

        try writer.setValue(.string("new"), forKey: "token")
        try await writer.synchronizeWithServer()

        XCTAssertEqual(writer.status.refusals, ["notFound": 1], "\(writer.status)")
        XCTAssertEqual(writer.status.pendingWrites, 0, "the write puts the entry back")
        try await reader.synchronizeWithServer()
        XCTAssertEqual(reader.string(forKey: "token"), "new")
    }

    func testAReplayedOlderRowIsRefusedAsARollback() async throws {
        try await write(["token": "old"])
        let old = try server.psql("SELECT encode(blob, 'hex') || ' ' || sequence FROM groupsync_entry").split(separator: " ")
        try await write(["token": "new"])

        try server.psql("UPDATE groupsync_entry SET blob = decode('\(old[0])', 'hex'), sequence = \(old[1]), change = nextval('groupsync_change')")
        try await reader.synchronizeWithServer()

        XCTAssertEqual(reader.string(forKey: "token"), "new")
        XCTAssertEqual(reader.status.refusals["rollback"], 1, "\(reader.status)")
    }

    func testATamperedBlobIsRefusedAsFailingAuthentication() async throws {
        try await write(["token": "value"])
        try tamperWithBlobs()
        try await reader.synchronizeWithServer()

        XCTAssertEqual(reader.string(forKey: "token"), "value")
        XCTAssertEqual(reader.status.refusals["authenticationFailed"], 1, "\(reader.status)")
    }

    func testAnEditedSequenceColumnIsRefusedAsMalformed() async throws {
        try await write(["token": "value"])
        try server.psql("UPDATE groupsync_entry SET sequence = sequence + 1, change = nextval('groupsync_change')")
        try await reader.synchronizeWithServer()

        XCTAssertEqual(reader.string(forKey: "token"), "value")
        XCTAssertEqual(reader.status.refusals["malformed"], 1, "\(reader.status)")
    }

    func testAValueSwappedBetweenKeysIsRefusedAsFailingAuthentication() async throws {
        try await write(["a": "value of a"])
        try await write(["b": "value of b"])
        // Give a's row the blob (and sequence) of b's.
        try server.psql("""
            UPDATE groupsync_entry AS a SET blob = b.blob, sequence = b.sequence, change = nextval('groupsync_change')
            FROM groupsync_entry AS b
            WHERE a.change = (SELECT min(change) FROM groupsync_entry) AND b.change = (SELECT max(change) FROM groupsync_entry)
            """)
        try await reader.synchronizeWithServer()

        XCTAssertEqual(reader.string(forKey: "a"), "value of a")
        XCTAssertEqual(reader.string(forKey: "b"), "value of b")
        XCTAssertEqual(reader.status.refusals["authenticationFailed"], 1, "\(reader.status)")
    }

    func testAValueSwappedInFromAnotherGroupIsRefusedAsFailingAuthentication() async throws {
        try await write(["token": "ours"])
        let elsewhere = try sandbox.store(0, url: server.url, group: SyncSandbox.otherGroup)
        try elsewhere.setValue(.string("theirs"), forKey: "token")
        try await elsewhere.synchronizeWithServer()
        // The other group's entry is the newest row; copy its blob over ours.
        try server.psql("""
            UPDATE groupsync_entry AS ours SET blob = theirs.blob, sequence = theirs.sequence + 1, change = nextval('groupsync_change')
            FROM groupsync_entry AS theirs
            WHERE ours.change = (SELECT min(change) FROM groupsync_entry) AND theirs.change = (SELECT max(change) FROM groupsync_entry)
            """)
        try await reader.synchronizeWithServer()

        XCTAssertEqual(reader.string(forKey: "token"), "ours")
        XCTAssertEqual(reader.status.refusals.values.reduce(0, +), 1, "\(reader.status)")
        XCTAssertNotNil(reader.status.refusals["authenticationFailed"] ?? reader.status.refusals["malformed"], "\(reader.status)")
    }

    func testTheServerSeesNeitherKeysNorValues() async throws {
        try await write(["api-token-name": "secret-value-1234"])
        let everything = try server.psql("SELECT encode(space, 'escape') || encode(name, 'escape') || encode(blob, 'escape') FROM groupsync_entry")
        XCTAssertFalse(everything.contains("api-token-name"))
        XCTAssertFalse(everything.contains("secret-value-1234"))
        XCTAssertFalse(everything.contains("group.com.example.sync"))
    }
}
