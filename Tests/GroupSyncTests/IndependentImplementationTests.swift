import Foundation
import GroupSync
import GroupSyncTestKit
import Keyring
import Vault
import XCTest

/// GroupSync against a second implementation of its protocol written from docs/SYNC.md alone
/// (``IndependentSyncClient``), in both directions, on one server: what the docs say is what
/// the Swift machines do.
final class IndependentImplementationTests: SyncServerTestCase {
    private struct Note: VaultRecord, Equatable {
        static let schemaVersion: UInt32 = 1
        var title: String
        var pinned: Bool
    }

    private var kvstore: String { "kvstore:\(SyncSandbox.storeIdentifier.rawValue)" }

    private func client(store: String? = nil, machine: Int = 0) throws -> IndependentSyncClient {
        try IndependentSyncClient(url: server.url, group: SyncSandbox.group, store: store ?? kvstore, keyring: sandbox.keyrings[machine])
    }

    /// The `value` of each key the independent client's `read` printed, as canonical JSON.
    private func valuesRead(by client: IndependentSyncClient) throws -> [String: String] {
        var values: [String: String] = [:]
        for object in try client.succeed(["read"], in: sandbox.directory.url).objects() {
            guard let key = object["key"] as? String else {
                XCTFail("the independent client refused a row: \(object)")
                continue
            }
            values[key] = try canonical(object["value"] ?? NSNull())
        }
        return values
    }

    private func canonical(_ json: Any) throws -> String {
        String(decoding: try JSONSerialization.data(withJSONObject: json, options: [.sortedKeys, .fragmentsAllowed]), as: UTF8.self)
    }

    func testEveryKindOfValueWrittenHereReadsTheSameInTheIndependentImplementation() async throws {
        let store = try sandbox.store(0, url: server.url)
        store.set("dark", forKey: "theme")
        store.set(30 as Int64, forKey: "fontSize")
        store.set(1.5, forKey: "scale")
        store.set(-Double.infinity, forKey: "floor")
        store.set(true, forKey: "sync")
        store.set(Data([0xff, 0xfe, 0x00]), forKey: "avatar")
        store.set(.date(Date(timeIntervalSinceReferenceDate: 12.25)), forKey: "since")
        store.set([.string("a/b"), .int(1)], forKey: "recent")
        store.set(["b": .bool(false), "a": .data(Data([1, 2]))], forKey: "flags")
        store.set("gone", forKey: "draft")
        try await store.synchronizeWithServer()
        store.removeObject(forKey: "draft")
        try await store.synchronizeWithServer()

        let expected: [String: Any] = [
            "theme": ["string": "dark"], "fontSize": ["int": 30], "scale": ["double": 1.5], "floor": ["double": "-inf"],
            "sync": ["bool": true], "avatar": ["data": "//4A"], "since": ["date": 12.25],
            "recent": ["array": [["string": "a/b"], ["int": 1]]],
            "flags": ["dict": ["a": ["data": "AQI="], "b": ["bool": false]]],
            "draft": NSNull(),
        ]
        XCTAssertEqual(try valuesRead(by: client()), try expected.mapValues(canonical))
    }

    func testAValueWrittenByTheIndependentImplementationIsReadHere() async throws {
        _ = try client().succeed(["write", "theme", #"{"string":"light"}"#], in: sandbox.directory.url)
        let reader = try sandbox.store(1, url: server.url)
        try await reader.synchronizeWithServer()
        XCTAssertEqual(reader.string(forKey: "theme"), "light")
        XCTAssertEqual(reader.status.refusals, [:])
    }

    func testARemovalByTheIndependentImplementationRemovesTheKeyHere() async throws {
        let store = try sandbox.store(0, url: server.url)
        store.set("dark", forKey: "theme")
        try await store.synchronizeWithServer()
        _ = try client().succeed(["remove", "theme"], in: sandbox.directory.url)
        try await store.synchronizeWithServer()
        XCTAssertNil(store.object(forKey: "theme"))
        XCTAssertEqual(store.status.refusals, [:])
    }

    /// The independent write is the documented compare-and-swap with its notification: a machine
    /// whose session is running hears of it without being asked to exchange.
    func testARunningMachineHearsOfAnIndependentWrite() async throws {
        let reader = try sandbox.store(1, url: server.url)
        let changes = reader.externalChanges()
        reader.start()
        _ = await firstChange(changes, reason: .initialSyncChange)
        _ = try client().succeed(["write", "theme", #"{"string":"light"}"#], in: sandbox.directory.url)
        let change = await firstChange(changes, reason: .serverChange)
        await reader.stop()
        XCTAssertEqual(change?.changedKeys, ["theme"])
        XCTAssertEqual(reader.string(forKey: "theme"), "light")
    }

    /// A write over a value this machine holds: the independent client seals it at the next
    /// sequence, which the machine accepts as newer.
    func testAnIndependentWriteOverAValueWrittenHereIsAcceptedAsNewer() async throws {
        let store = try sandbox.store(0, url: server.url)
        store.set("dark", forKey: "theme")
        try await store.synchronizeWithServer()
        let written = try client().succeed(["write", "theme", #"{"string":"light"}"#], in: sandbox.directory.url).objects()
        try await store.synchronizeWithServer()
        XCTAssertEqual(written.first?["sequence"] as? Int, 2)
        XCTAssertEqual(store.string(forKey: "theme"), "light")
    }

    func testSyncedRecordsWrittenHereReadTheSameInTheIndependentImplementation() async throws {
        let records = try sandbox.records(0, url: server.url)
        try records.write(Note(title: "Groceries", pinned: true), to: "note-1")
        try await records.synchronizeWithServer()
        XCTAssertEqual(
            try valuesRead(by: client(store: "records")),
            ["note-1": try canonical(["schema": 1, "record": ["title": "Groceries", "pinned": true]] as [String: Any])])
    }

    func testASyncedRecordWrittenByTheIndependentImplementationIsReadHere() async throws {
        _ = try client(store: "records").succeed(
            ["write", "note-1", #"{"schema":1,"record":{"title":"Groceries","pinned":false}}"#], in: sandbox.directory.url)
        let records = try sandbox.records(1, url: server.url)
        try await records.synchronizeWithServer()
        XCTAssertEqual(try records.read(Note.self, from: "note-1"), Note(title: "Groceries", pinned: false))
    }

    /// Both implementations judge a row as section 5 says: a blob changed on the server fails
    /// authentication in each.
    func testABlobTamperedOnTheServerIsRefusedByTheIndependentImplementation() async throws {
        let store = try sandbox.store(0, url: server.url)
        store.set("dark", forKey: "theme")
        try await store.synchronizeWithServer()
        try tamperWithBlobs()
        let objects = try client().succeed(["read"], in: sandbox.directory.url).objects()
        XCTAssertEqual(objects.count, 1)
        XCTAssertEqual(objects.first?["refused"] as? String, "authenticationFailed")
    }

    /// Section 6's snapshot format, read by the independent implementation: the snapshot a member wrote
    /// opens there, every entry's blob judges as a row, and what it shows is what the rows say.
    func testASnapshotWrittenHereReadsAsTheRowsInTheIndependentImplementation() async throws {
        let store = try sandbox.store(0, url: server.url)
        for index in 0..<100 { store.set("value \(index)", forKey: "key-\(index)") }
        store.set(.data(Data([0xff, 0x00])), forKey: "avatar")
        store.removeObject(forKey: "key-3")
        try await store.synchronizeWithServer()
        XCTAssertEqual(try server.value("SELECT count(*) FROM groupsync_snapshot"), "1")

        let fromTheSnapshot = try client().succeed(["snapshot"], in: sandbox.directory.url).output
        let fromTheRows = try client().succeed(["read"], in: sandbox.directory.url).output

        XCTAssertEqual(fromTheSnapshot, fromTheRows)
        XCTAssertTrue(fromTheSnapshot.contains("\"key-99\""), fromTheSnapshot)
    }
}
