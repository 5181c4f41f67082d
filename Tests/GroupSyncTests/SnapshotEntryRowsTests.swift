@testable import GroupSync
import GroupSyncCore
import GroupSyncTestKit
import XCTest

/// A machine keeps each entry's accepted blob and no digest of it (docs/SYNC.md, section 7,
/// "The state's body"), whether the entry came from the space's snapshot or from a row: a row
/// served again at the entry's sequence is still judged against the blob accepted there, a
/// duplicate when it is that blob and `conflictingContent` when it is another.
final class SnapshotEntryRowsTests: SyncServerTestCase {
    /// Machine 0 writes `count` keys once each and pushes them (100 make it write the space's
    /// snapshot, 10 do not); machine 1, which has read nothing, syncs. Returns machine 1 and
    /// the server's rows, each of which machine 1 accepted, from the snapshot or as a row.
    private func reader(afterWriting count: Int) async throws -> (reader: UbiquitousKeyValueStore, rows: [ServerRow]) {
        let writer = try sandbox.store(0, url: server.url)
        for index in 0..<count { try writer.setValue(.string("a-\(index)"), forKey: "k\(index)") }
        try await writer.synchronizeWithServer()
        let reader = try sandbox.store(1, url: server.url)
        try await reader.synchronizeWithServer()
        let entries = reader.replica.state.entries.values
        XCTAssertEqual(entries.count, count)
        XCTAssertTrue(entries.allSatisfy { $0.seenDigest == nil && $0.accepted != nil }, "every entry keeps its blob and no digest")

        let connection = try await ServerConnection.open(SyncConfiguration(url: try SyncServerURL(server.url)))
        let rows = try await connection.rows(space: reader.replica.space, after: 0, within: CatchUpPageLimit(rows: 1_000, bytes: 4 << 20))
        await connection.close()
        XCTAssertEqual(rows.count, count)
        return (reader, rows)
    }

    private func readerFromTheSnapshot() async throws -> (reader: UbiquitousKeyValueStore, rows: [ServerRow]) {
        try await reader(afterWriting: 100)
    }

    private func readerFromTheRows() async throws -> (reader: UbiquitousKeyValueStore, rows: [ServerRow]) {
        try await reader(afterWriting: 10)
    }

    private func assertServedAgainAreDuplicates(_ reader: UbiquitousKeyValueStore, _ rows: [ServerRow], file: StaticString = #filePath, line: UInt = #line) throws {
        let entries = reader.replica.state.entries

        let refused = try reader.replica.apply(rows)

        XCTAssertEqual(refused.map(\.code), [], file: file, line: line)
        XCTAssertEqual(reader.replica.state.entries, entries, file: file, line: line)
        XCTAssertEqual(reader.status.refusals, [:], file: file, line: line)
    }

    private func assertAnotherBlobAtTheSequenceIsConflictingContent(_ reader: UbiquitousKeyValueStore, _ rows: [ServerRow], file: StaticString = #filePath, line: UInt = #line) throws {
        let row = try XCTUnwrap(rows.first, file: file, line: line)
        let replica = reader.replica
        let shown = try SyncEnvelope.open(row.blob, name: row.name, naming: replica.naming, space: replica.space, key: replica.keyLookup())
        // Sealed by a key holder at the same sequence, under the same name, with another value:
        // a second history of the entry.
        let other = try SyncEnvelope.seal(
            key: shown.key, value: try UbiquitousValue.string("other").encoded(), sequence: UInt64(row.sequence),
            issuedAtMilliseconds: shown.issuedAtMilliseconds, groupKey: try sandbox.keyrings[0].groupKey(for: SyncSandbox.group), name: row.name)

        let refused = try replica.apply([ServerRow(name: row.name, sequence: row.sequence, change: row.change, blob: other)])

        XCTAssertEqual(refused.map(\.code), [.conflictingContent], file: file, line: line)
        XCTAssertEqual(reader.status.refusals, ["conflictingContent": 1], file: file, line: line)
        XCTAssertEqual(reader.string(forKey: shown.key), "a-\(shown.key.dropFirst())", "the value accepted first is kept", file: file, line: line)
    }

    func testARowTheSnapshotCoveredServedAgainIsADuplicate() async throws {
        let (reader, rows) = try await readerFromTheSnapshot()
        try assertServedAgainAreDuplicates(reader, rows)
    }

    func testAnotherBlobAtTheSequenceTheSnapshotGaveIsRefusedAsConflictingContent() async throws {
        let (reader, rows) = try await readerFromTheSnapshot()
        try assertAnotherBlobAtTheSequenceIsConflictingContent(reader, rows)
    }

    func testARowAcceptedServedAgainIsADuplicate() async throws {
        let (reader, rows) = try await readerFromTheRows()
        try assertServedAgainAreDuplicates(reader, rows)
    }

    func testAnotherBlobAtTheSequenceOfAnAcceptedRowIsRefusedAsConflictingContent() async throws {
        let (reader, rows) = try await readerFromTheRows()
        try assertAnotherBlobAtTheSequenceIsConflictingContent(reader, rows)
    }
}
