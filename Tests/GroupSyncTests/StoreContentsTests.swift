import Foundation
import GroupSyncCore
import GroupSyncTestKit
import Keyring
import XCTest
@testable import GroupSync

/// An entry that is authentic and named as its key says, but is no entry of its store (sealed
/// by a key holder's other program, or a bug), is counted as `invalidRecord` and shown as
/// absent, and its sequence is taken, so that the key can be written again above it
/// (docs/SYNC.md, section 5).
final class StoreContentsTests: SyncServerTestCase {
    private var kvstore: String { "kvstore:\(SyncSandbox.storeIdentifier.rawValue)" }

    /// Seals `value` for `key` of `store` as machine 0's key holder would, at `sequence`, and
    /// stores it on the server as the row of that entry (after machine 0's first exchange,
    /// which creates the schema).
    private func plant(key: String, value: [UInt8]?, sequence: UInt64, store: String) async throws {
        try await sandbox.store(0, url: server.url).synchronizeWithServer()
        let keyring = sandbox.keyrings[0]
        let naming = try SyncNaming.load(group: SyncSandbox.group, keyring: keyring)
        let space = naming.space(store: store)
        let name = naming.name(space: space, key: key)
        let blob = try SyncEnvelope.seal(
            key: key, value: value, sequence: sequence, issuedAtMilliseconds: 1_700_000_000_000,
            groupKey: keyring.groupKey(for: SyncSandbox.group), name: name)
        func hex(_ bytes: [UInt8]) -> String { bytes.map { String(format: "%02x", $0) }.joined() }
        try server.psql("""
            INSERT INTO groupsync_entry (space, name, sequence, change, blob)
            VALUES (decode('\(hex(space))', 'hex'), decode('\(hex(name))', 'hex'), \(sequence), nextval('groupsync_change'), decode('\(hex(blob))', 'hex'))
            ON CONFLICT (space, name) DO UPDATE SET sequence = EXCLUDED.sequence, change = EXCLUDED.change, blob = EXCLUDED.blob
            """)
    }

    /// Machine 1's store after it exchanged with the server once.
    private func machine1Exchanged() async throws -> UbiquitousKeyValueStore {
        let store = try sandbox.store(1, url: server.url)
        try await store.synchronizeWithServer()
        return store
    }

    func testAKeyValueStoreEntryWhoseValueIsOfNoKnownTypeIsCountedAsInvalid() async throws {
        try await plant(key: "theme", value: Array(#"{"colour":"red"}"#.utf8), sequence: 1, store: kvstore)
        let store = try await machine1Exchanged()
        XCTAssertEqual(store.status.refusals, ["invalidRecord": 1])
    }

    func testAKeyValueStoreEntryWhoseValueNamesAMemberTwiceIsCountedAsInvalid() async throws {
        try await plant(key: "theme", value: Array(#"{"dict":{"a":{"int":1},"a":{"int":2}}}"#.utf8), sequence: 1, store: kvstore)
        let store = try await machine1Exchanged()
        XCTAssertEqual(store.status.refusals, ["invalidRecord": 1])
    }

    /// Machine 0 wrote `theme`, machine 1 read it, then a key holder put an entry of no known
    /// type over it; machine 1 exchanged again.
    private func machine1AfterAnUnreadableEntryOverTheTheme() async throws -> UbiquitousKeyValueStore {
        let writer = try sandbox.store(0, url: server.url)
        writer.set("dark", forKey: "theme")
        try await writer.synchronizeWithServer()
        let store = try await machine1Exchanged()
        try await plant(key: "theme", value: Array(#"{"int":1.5}"#.utf8), sequence: 2, store: kvstore)
        try await store.synchronizeWithServer()
        return store
    }

    /// The entry is the key's newest on the server: what the key held before is not shown as
    /// if nothing had replaced it.
    func testAnEntryOfNoKnownTypeOverAValueShowsTheKeyAsAbsent() async throws {
        let store = try await machine1AfterAnUnreadableEntryOverTheTheme()
        XCTAssertNil(store.object(forKey: "theme"))
        XCTAssertEqual(store.status.refusals, ["invalidRecord": 1])
    }

    /// Its sequence is taken as seen, so this machine's next write of the key goes above it
    /// (kept at the one below, the write's compare-and-swap would fail for ever).
    func testAKeyWhoseEntryIsNoEntryOfTheStoreIsWrittenAgainAboveIt() async throws {
        let store = try await machine1AfterAnUnreadableEntryOverTheTheme()
        store.set("light", forKey: "theme")
        try await store.synchronizeWithServer()
        XCTAssertEqual(store.status.pendingWrites, 0)
        let other = try sandbox.store(0, url: server.url)
        try await other.synchronizeWithServer()
        XCTAssertEqual(other.string(forKey: "theme"), "light")
    }

    func testAKeyValueStoreEntryWithAKeyLongerThanSixtyFourBytesIsCountedAsInvalid() async throws {
        try await plant(key: String(repeating: "k", count: 65), value: Array(#"{"bool":true}"#.utf8), sequence: 1, store: kvstore)
        let store = try await machine1Exchanged()
        XCTAssertEqual(store.status.refusals, ["invalidRecord": 1])
        XCTAssertEqual(store.dictionaryRepresentation.count, 0)
    }

    func testAKeyValueStoreEntryWithAnEmptyKeyIsCountedAsInvalid() async throws {
        try await plant(key: "", value: Array(#"{"bool":true}"#.utf8), sequence: 1, store: kvstore)
        let store = try await machine1Exchanged()
        XCTAssertEqual(store.status.refusals, ["invalidRecord": 1])
    }

    func testASyncedRecordShorterThanItsSchemaVersionIsCountedAsInvalid() async throws {
        try await plant(key: "note-1", value: [0, 1], sequence: 1, store: "records")
        let records = try sandbox.records(1, url: server.url)
        try await records.synchronizeWithServer()
        XCTAssertEqual(records.status.refusals, ["invalidRecord": 1])
    }

    func testASyncedRecordWhoseKeyIsNoRecordNameIsCountedAsInvalid() async throws {
        try await plant(key: "../note", value: [0, 0, 0, 1] + Array("{}".utf8), sequence: 1, store: "records")
        let records = try sandbox.records(1, url: server.url)
        try await records.synchronizeWithServer()
        XCTAssertEqual(records.status.refusals, ["invalidRecord": 1])
        XCTAssertEqual(records.names(), [])
    }

    /// A removal carries no value: it is an entry of every store.
    func testARemovalIsAnEntryOfTheKeyValueStore() async throws {
        try await plant(key: "theme", value: nil, sequence: 1, store: kvstore)
        let store = try await machine1Exchanged()
        XCTAssertEqual(store.status.refusals, [:])
    }
}
