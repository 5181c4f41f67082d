import Foundation
import GroupSync
import GroupSyncTestKit
import Keyring
import SealedStorage
import Vault
import XCTest

/// The space's snapshot on the server (docs/SYNC.md, section 6, "Snapshots"): a member writes it
/// once half the space's entries (at least 64) changed since the last, a machine that has read
/// nothing starts from it and reads only the rows after it, and a snapshot altered, moved, rolled back or ahead of
/// the rows is refused or corrected as rows are, counted, with nothing lost.
final class SnapshotSyncTests: SyncServerTestCase {
    private var writer: UbiquitousKeyValueStore!

    override func setUpWithError() throws {
        try super.setUpWithError()
        writer = try sandbox.store(0, url: server.url)
    }

    /// Writes `count` keys (`k0`, `k1`, …) with values tagged `tag`, and pushes them.
    private func write(_ count: Int, tag: String) async throws {
        for index in 0..<count { try writer.setValue(.string("\(tag)-\(index)"), forKey: "k\(index)") }
        try await writer.synchronizeWithServer()
    }

    /// A machine that has read nothing, synchronised once.
    private func freshMachine() async throws -> UbiquitousKeyValueStore {
        let store = try SyncSandbox.store(keyring: try sandbox.addMachine(), url: server.url)
        try await store.synchronizeWithServer()
        return store
    }

    private func snapshotChange() throws -> String {
        try server.value("SELECT coalesce(max(change), 0) FROM groupsync_snapshot")
    }

    private func lastEntryChange() throws -> String {
        try server.value("SELECT max(change) FROM groupsync_entry")
    }

    /// The server's snapshot row, to put back later: its change and blob in hex.
    private func snapshotRow() throws -> (change: String, blob: String) {
        let parts = try server.psql("SELECT change || ' ' || encode(blob, 'hex') FROM groupsync_snapshot")
            .trimmingCharacters(in: .whitespacesAndNewlines).split(separator: " ")
        guard parts.count == 2 else { throw SnapshotTestFailure("the server holds no single snapshot row: \(parts.count / 2)") }
        return (String(parts[0]), String(parts[1]))
    }

    private func putSnapshot(_ row: (change: String, blob: String)) throws {
        try server.psql("UPDATE groupsync_snapshot SET change = \(row.change), blob = decode('\(row.blob)', 'hex')")
    }

    /// Writes 100 of the group's synced records from machine 0, and pushes them: another
    /// space, sealed with the same group key, which gets a snapshot of its own.
    private func fillTheGroupsSyncedRecords() async throws {
        let records = try sandbox.records(0, url: server.url)
        for index in 0..<100 { try records.write(SnapshotTestRecord(index: index), to: "record-\(index)") }
        try await records.synchronizeWithServer()
    }

    private func snapshotCount() throws -> String {
        try server.value("SELECT count(*) FROM groupsync_snapshot")
    }

    /// Alters the server's snapshot with `sql` once 100 values are written, then asserts that a
    /// fresh machine refuses it as `code`, counted once, and holds the writer's values from the
    /// rows.
    private func assertAFreshMachineRefusesTheSnapshot(
        alteredBy sql: String, as code: String, file: StaticString = #filePath, line: UInt = #line
    ) async throws {
        try await write(100, tag: "a")
        try server.psql(sql)

        let reader = try await freshMachine()

        assertHoldsTheWritersValues(reader, file: file, line: line)
        XCTAssertEqual(reader.status.refusals, [code: 1], file: file, line: line)
    }

    private func assertHoldsTheWritersValues(_ reader: UbiquitousKeyValueStore, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertEqual(reader.dictionaryRepresentation as NSDictionary, writer.dictionaryRepresentation as NSDictionary, file: file, line: line)
    }

    // MARK: Writing

    func testNoSnapshotIsWrittenForFewerChangesThanTheMinimum() async throws {
        try await write(63, tag: "a")

        XCTAssertEqual(try snapshotChange(), "0")
    }

    func testAMemberWritesASnapshotOnceTheSpaceHasChangedEnough() async throws {
        try await write(100, tag: "a")

        XCTAssertEqual(try snapshotChange(), try lastEntryChange())
    }

    func testNoNewSnapshotIsWrittenUntilTheSpaceHasChangedEnoughAgain() async throws {
        try await write(100, tag: "a")
        let first = try snapshotChange()

        try await write(50, tag: "b")
        XCTAssertEqual(try snapshotChange(), first)

        try await write(100, tag: "c")
        XCTAssertEqual(try snapshotChange(), try lastEntryChange())
    }

    /// The server's change numbers are shared by every space: a space's own changed entries,
    /// not the numbers, make its snapshot due.
    func testAnotherSpacesChangesDoNotMakeASnapshotDue() async throws {
        try await write(1, tag: "a")
        try await fillTheGroupsSyncedRecords()

        try await write(1, tag: "b")

        XCTAssertEqual(try snapshotCount(), "1", "the records' snapshot only")
    }

    /// A machine counts its own writes twice (pushed, then read back); the server's count of
    /// the space's changed entries, asked before writing, decides.
    func testTheServersCountOfChangedEntriesDecidesNotTheMachinesOwn() async throws {
        try await fillTheGroupsSyncedRecords()
        try await write(40, tag: "a")

        try await writer.synchronizeWithServer()

        XCTAssertEqual(try snapshotCount(), "1", "the records' snapshot only")
    }

    func testTheServerSeesNoKeyOrValueInASnapshot() async throws {
        try writer.setValue(.string("secret-value-1234"), forKey: "api-token-name")
        try await write(100, tag: "a")

        let everything = try server.psql("SELECT encode(space, 'escape') || encode(blob, 'escape') FROM groupsync_snapshot")
        XCTAssertFalse(everything.isEmpty)
        XCTAssertFalse(everything.contains("api-token-name"))
        XCTAssertFalse(everything.contains("secret-value-1234"))
        XCTAssertFalse(everything.contains("group.com.example.sync"))
    }

    // MARK: Reading

    func testAFreshMachineStartsFromTheSnapshotAndTheRowsAfterIt() async throws {
        try await write(100, tag: "a")
        try writer.setValue(.string("later"), forKey: "k3")
        try writer.setValue(.string("new"), forKey: "extra")
        writer.removeObject(forKey: "k5")
        try await writer.synchronizeWithServer()

        let reader = try await freshMachine()

        assertHoldsTheWritersValues(reader)
        XCTAssertEqual(reader.status.refusals, [:])
    }

    /// The snapshot and the rows after it are written as one state: no journal record is
    /// appended and flushed for the rows, so a fault at every journal `fdatasync` does not stop
    /// a fresh machine's first sync.
    func testAFreshMachineWritesTheSnapshotAndTheRowsAfterItAsOneStateWithNoJournalRecord() async throws {
        try await write(100, tag: "a")
        try writer.setValue(.string("later"), forKey: "k3")
        try writer.setValue(.string("new"), forKey: "extra")
        try await writer.synchronizeWithServer()
        let machine = try sandbox.addMachine()
        let reader = try SyncSandbox.store(keyring: machine, url: server.url)

        try await FaultInjection.withProcessWideFault(.fail(.ioError), at: .step(.syncAppended)) {
            try await reader.synchronizeWithServer()
        }

        assertHoldsTheWritersValues(reader)
        XCTAssertEqual(reader.string(forKey: "extra"), "new", "a row after the snapshot")
        XCTAssertEqual(try SyncSandbox.store(keyring: machine, url: nil).string(forKey: "extra"), "new", "durable: a store opened again holds it")
    }

    /// The state a fresh machine takes is durable in its snapshot alone, so its observers hear
    /// of the first sync before the journal that follows it is started; a journal that then
    /// cannot be started is reported, loses nothing, and is started by the next write.
    func testAFreshMachineTellsItsFirstSyncBeforeItsJournalIsStarted() async throws {
        try await write(100, tag: "a")
        try writer.setValue(.string("new"), forKey: "extra")
        try await writer.synchronizeWithServer()
        let machine = try sandbox.addMachine()
        let reader = try SyncSandbox.store(keyring: machine, url: server.url)
        let changes = reader.externalChanges()

        // The fresh home's first state and its journal are the first two temporary files
        // created, the snapshot's state the third, the journal after it the fourth.
        do {
            try await FaultInjection.withProcessWideFault(.fail(.ioError), at: .step(.createTemporary), afterPassing: 3) {
                try await reader.synchronizeWithServer()
            }
            XCTFail("starting the journal must have failed")
        } catch {
            XCTAssertEqual((error as? SyncError)?.code, .storage, "\(error)")
        }

        let change = await firstChange(changes, reason: .initialSyncChange)
        XCTAssertEqual(Set(try XCTUnwrap(change).changedKeys), Set((0..<100).map { "k\($0)" } + ["extra"]))
        XCTAssertEqual(try SyncSandbox.store(keyring: machine, url: nil).string(forKey: "extra"), "new", "durable: a store opened again holds it")
        try reader.setValue(.string("after"), forKey: "k1")
        XCTAssertEqual(try SyncSandbox.store(keyring: machine, url: nil).string(forKey: "k1"), "after", "the next write is kept")
    }

    /// Rows the snapshot covers are altered on the server without a new change number: a
    /// machine that read them would refuse them all. One that starts from the snapshot never
    /// reads them.
    func testAFreshMachineDoesNotReadTheRowsTheSnapshotCovers() async throws {
        try await write(100, tag: "a")
        try tamperWithBlobs(announcing: false)

        let reader = try await freshMachine()

        assertHoldsTheWritersValues(reader)
        XCTAssertEqual(reader.status.refusals, [:])
    }

    func testAFreshMachineTellsItsObserversEveryKeyOfTheSnapshotAsTheInitialSync() async throws {
        try await write(100, tag: "a")
        let reader = try SyncSandbox.store(keyring: try sandbox.addMachine(), url: server.url)
        let changes = reader.externalChanges()

        try await reader.synchronizeWithServer()

        let change = await firstChange(changes, reason: .initialSyncChange)
        XCTAssertEqual(Set(try XCTUnwrap(change).changedKeys), Set((0..<100).map { "k\($0)" }))
    }

    /// A machine whose first catch-up found the space empty has read nothing, and takes the
    /// snapshot once there is one: its first sync was told already, so its observers hear of
    /// the snapshot's keys as a server change.
    func testAMachineThatFoundTheSpaceEmptyTellsItsObserversTheSnapshotsKeysAsAServerChange() async throws {
        let reader = try await freshMachine()
        try await write(100, tag: "a")
        let changes = reader.externalChanges()

        try await reader.synchronizeWithServer()

        let change = await firstChange(changes, reason: .serverChange)
        XCTAssertEqual(Set(try XCTUnwrap(change).changedKeys), Set((0..<100).map { "k\($0)" }))
    }

    /// The snapshot and the rows after it are taken in one write of the state, and told in one
    /// server change.
    func testAMachineThatFoundTheSpaceEmptyHearsOfTheSnapshotAndTheRowsAfterItInOneServerChange() async throws {
        let reader = try await freshMachine()
        try await write(100, tag: "a")
        try writer.setValue(.string("new"), forKey: "extra")
        try await writer.synchronizeWithServer()
        XCTAssertLessThan(try XCTUnwrap(Int(try snapshotChange())), try XCTUnwrap(Int(try lastEntryChange())), "a row must come after the snapshot")
        let changes = reader.externalChanges()

        try await reader.synchronizeWithServer()

        let change = await firstChange(changes, reason: .serverChange)
        XCTAssertEqual(Set(try XCTUnwrap(change).changedKeys), Set((0..<100).map { "k\($0)" } + ["extra"]))
    }

    func testAFreshMachineWritesAboveWhatTheSnapshotGaveIt() async throws {
        try await write(100, tag: "a")
        let reader = try await freshMachine()

        try reader.setValue(.string("from the reader"), forKey: "k7")
        try await reader.synchronizeWithServer()
        try await writer.synchronizeWithServer()

        XCTAssertEqual(writer.string(forKey: "k7"), "from the reader")
        XCTAssertEqual(reader.status.pendingWrites, 0)
        XCTAssertEqual(reader.status.refusals, [:])
    }

    /// The snapshot is sealed with key #3 and holds an entry sealed with key #2, which the
    /// joining machine lacks: it reads the rows instead, awaiting key #2 for that one, and its
    /// store opens again (a store opens every accepted blob).
    func testASnapshotHoldingAnEntryUnderAKeyNotHeldIsRefusedAndTheRowsRead() async throws {
        _ = try sandbox.keyrings[0].rotateKey(in: SyncSandbox.group)
        try writer.setValue(.string("dark"), forKey: "theme")
        try await writer.synchronizeWithServer()
        _ = try sandbox.keyrings[0].rotateKey(in: SyncSandbox.group)
        try await write(100, tag: "a")
        let joining = try sandbox.addMachine()
        _ = try joining.importKey(try sandbox.keyrings[0].exportKey(id: 3, in: SyncSandbox.group), id: 3, in: SyncSandbox.group)

        let reader = try SyncSandbox.store(keyring: joining, url: server.url)
        try await reader.synchronizeWithServer()

        XCTAssertEqual(reader.status.refusals, ["unknownKey": 2], "the snapshot, then the row of theme")
        XCTAssertNil(reader.string(forKey: "theme"))
        XCTAssertEqual(reader.string(forKey: "k42"), "a-42")
        XCTAssertEqual(try SyncSandbox.store(keyring: joining, url: nil).string(forKey: "k42"), "a-42")
    }

    /// The snapshot's state is written while the rows after it are read: when the write fails,
    /// the sync fails with nothing taken or shown, and the next sync takes the snapshot.
    func testASnapshotWhoseStateCannotBeWrittenIsTakenByTheNextSync() async throws {
        try await write(100, tag: "a")
        try writer.setValue(.string("later"), forKey: "k3")
        try await writer.synchronizeWithServer()
        let reader = try SyncSandbox.store(keyring: try sandbox.addMachine(), url: server.url)

        // The fresh home's first state and its journal are the first two temporary files
        // created; the snapshot's state, written whole, the third.
        do {
            try await FaultInjection.withProcessWideFault(.fail(.ioError), at: .step(.createTemporary), afterPassing: 2) {
                try await reader.synchronizeWithServer()
            }
            XCTFail("writing the snapshot's state must have failed")
        } catch {
            XCTAssertEqual((error as? SyncError)?.code, .storage, "\(error)")
        }
        XCTAssertEqual(reader.dictionaryRepresentation, [:])

        try await reader.synchronizeWithServer()

        assertHoldsTheWritersValues(reader)
        XCTAssertEqual(reader.status.refusals, [:])
    }

    func testAMachineWithHistoryDoesNotReadTheSnapshot() async throws {
        let reader = try sandbox.store(1, url: server.url)
        try await write(10, tag: "a")
        try await reader.synchronizeWithServer()
        try await write(100, tag: "b")
        try server.psql(Self.tamperWithTheSnapshot)

        try await reader.synchronizeWithServer()

        assertHoldsTheWritersValues(reader)
        XCTAssertEqual(reader.status.refusals, [:])
    }

    // MARK: The server as an attacker

    func testATamperedSnapshotIsRefusedAndTheRowsAreReadInstead() async throws {
        try await assertAFreshMachineRefusesTheSnapshot(alteredBy: Self.tamperWithTheSnapshot, as: "authenticationFailed")
    }

    func testAnEditedChangeColumnIsRefusedAsMalformed() async throws {
        try await assertAFreshMachineRefusesTheSnapshot(alteredBy: "UPDATE groupsync_snapshot SET change = change - 1", as: "malformed")
    }

    func testASnapshotSwappedInFromAnotherSpaceIsRefusedAsFailingAuthentication() async throws {
        try await fillTheGroupsSyncedRecords()
        // The records' snapshot is the older; the key-value store's, written next, the newer:
        // it is given the records' blob and change.
        try await assertAFreshMachineRefusesTheSnapshot(alteredBy: """
            UPDATE groupsync_snapshot AS ours SET blob = theirs.blob, change = theirs.change
            FROM groupsync_snapshot AS theirs
            WHERE ours.change = (SELECT max(change) FROM groupsync_snapshot) AND theirs.space <> ours.space
            """, as: "authenticationFailed")
        XCTAssertEqual(try snapshotCount(), "2")
    }

    /// An older snapshot is what a server that never kept a newer one would show: not
    /// detectable by a machine with no history, and harmless, since the rows after it bring the
    /// machine to the end.
    func testAnOlderSnapshotPutBackLeavesAFreshMachineExactAfterItsCatchUp() async throws {
        try await write(100, tag: "a")
        let older = try snapshotRow()
        try await write(100, tag: "b")
        try await write(100, tag: "c")
        XCTAssertNotEqual(try snapshotChange(), older.change)
        try putSnapshot(older)

        let reader = try await freshMachine()

        assertHoldsTheWritersValues(reader)
        XCTAssertEqual(reader.status.refusals, [:])
    }

    /// The server restored from an earlier dump, but with the newer snapshot kept: the fresh
    /// machine holds the newer values, and its catch-up finds the change counter below the
    /// snapshot's change, a rollback.
    func testASnapshotAheadOfTheRestoredRowsIsCountedAsARollbackAndItsValuesKept() async throws {
        try await write(100, tag: "a")
        let dump = server.dumpPath
        try server.dump(to: dump)
        try await write(100, tag: "b")
        try await write(100, tag: "c")
        let newer = try snapshotRow()
        let expected = writer.dictionaryRepresentation as NSDictionary

        try server.restore(from: dump)
        try putSnapshot(newer)
        let reader = try await freshMachine()

        XCTAssertEqual(reader.dictionaryRepresentation as NSDictionary, expected)
        XCTAssertEqual(reader.status.refusals, ["rollback": 101], "the server's counter behind the snapshot, then each of the 100 rows read again from 0, older than the snapshot's")
    }
}

/// A synced record for ``SnapshotSyncTests``.
private struct SnapshotTestRecord: VaultRecord, Equatable {
    static let schemaVersion: UInt32 = 1
    var index: Int
}

private struct SnapshotTestFailure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
