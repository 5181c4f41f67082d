@testable import GroupSync
import GroupSyncCore
import GroupSyncTestKit
import XCTest

/// A machine that started from the space's snapshot keeps each entry's accepted blob and no
/// digest of it (docs/SYNC.md, section 7, "The state's body"): a row served again at the
/// sequence the snapshot gave an entry is still judged against the blob accepted there, a
/// duplicate when it is that blob and `conflictingContent` when it is another.
final class SnapshotEntryRowsTests: SyncServerTestCase {
    /// Machine 0 writes 100 keys once each and pushes them, which makes it write the space's
    /// snapshot; machine 1, which has read nothing, syncs from that snapshot. Returns machine 1
    /// and the server's rows, every one of which the snapshot covers.
    private func readerFromTheSnapshot() async throws -> (reader: UbiquitousKeyValueStore, rows: [ServerRow]) {
        let writer = try sandbox.store(0, url: server.url)
        for index in 0..<100 { try writer.setValue(.string("a-\(index)"), forKey: "k\(index)") }
        try await writer.synchronizeWithServer()
        let reader = try sandbox.store(1, url: server.url)
        try await reader.synchronizeWithServer()
        let entries = reader.replica.state.entries.values
        XCTAssertEqual(entries.count, 100)
        XCTAssertTrue(entries.allSatisfy { $0.seenDigest == nil && $0.accepted != nil }, "every entry came from the snapshot")

        let connection = try await ServerConnection.open(SyncConfiguration(url: try SyncServerURL(server.url)))
        let rows = try await connection.rows(space: reader.replica.space, after: 0, within: CatchUpPageLimit(rows: 1_000, bytes: 4 << 20))
        await connection.close()
        XCTAssertEqual(rows.count, 100)
        return (reader, rows)
    }

    func testARowTheSnapshotCoveredServedAgainIsADuplicate() async throws {
        let (reader, rows) = try await readerFromTheSnapshot()
        let entries = reader.replica.state.entries

        let refused = try reader.replica.apply(rows)

        XCTAssertEqual(refused.map(\.code), [])
        XCTAssertEqual(reader.replica.state.entries, entries)
        XCTAssertEqual(reader.status.refusals, [:])
    }

    func testAnotherBlobAtTheSequenceTheSnapshotGaveIsRefusedAsConflictingContent() async throws {
        let (reader, rows) = try await readerFromTheSnapshot()
        let row = try XCTUnwrap(rows.first)
        let replica = reader.replica
        let shown = try SyncEnvelope.open(row.blob, name: row.name, naming: replica.naming, space: replica.space, key: replica.keyLookup())
        // Sealed by a key holder at the same sequence, under the same name, with another value:
        // a second history of the entry.
        let other = try SyncEnvelope.seal(
            key: shown.key, value: try UbiquitousValue.string("other").encoded(), sequence: UInt64(row.sequence),
            issuedAtMilliseconds: shown.issuedAtMilliseconds, groupKey: try sandbox.keyrings[0].groupKey(for: SyncSandbox.group), name: row.name)

        let refused = try replica.apply([ServerRow(name: row.name, sequence: row.sequence, change: row.change, blob: other)])

        XCTAssertEqual(refused.map(\.code), [.conflictingContent])
        XCTAssertEqual(reader.status.refusals, ["conflictingContent": 1])
        XCTAssertEqual(reader.string(forKey: shown.key), "a-\(shown.key.dropFirst())", "the value the snapshot gave is kept")
    }
}
