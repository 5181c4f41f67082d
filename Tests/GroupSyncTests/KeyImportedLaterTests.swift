import Foundation
import GroupSyncTestKit
import Keyring
import XCTest
@testable import GroupSync

/// A machine without the key an entry was sealed with refuses the entry (`unknownKey`) and
/// keeps what it had; once the key is imported, its next exchange reads the entry
/// (docs/SYNC.md, section 2).
final class KeyImportedLaterTests: SyncServerTestCase {
    /// Machine 0 rotates the group's key and writes `theme` under key #2, which machine 1
    /// lacks; machine 1's store then exchanges once, refusing it.
    private func machine1AfterAWriteUnderKey2() async throws -> UbiquitousKeyValueStore {
        _ = try sandbox.keyrings[0].rotateKey(in: SyncSandbox.group)
        let writer = try sandbox.store(0, url: server.url)
        writer.set("dark", forKey: "theme")
        try await writer.synchronizeWithServer()
        let reader = try sandbox.store(1, url: server.url)
        try await reader.synchronizeWithServer()
        return reader
    }

    private func machine1sReplica() throws -> SyncReplica {
        try SyncReplica(group: SyncSandbox.group, store: "kvstore:\(SyncSandbox.storeIdentifier.rawValue)", keyring: sandbox.keyrings[1], policy: .lastWriterWins, contents: .keyValueStore)
    }

    private func importKey2IntoMachine1() throws {
        let key = try sandbox.keyrings[0].exportKey(id: 2, in: SyncSandbox.group)
        _ = try sandbox.keyrings[1].importKey(key, id: 2, in: SyncSandbox.group)
    }

    func testAnEntrySealedWithAKeyNotYetImportedIsRefusedAsUnknownKey() async throws {
        let reader = try await machine1AfterAWriteUnderKey2()
        XCTAssertNil(reader.string(forKey: "theme"))
        XCTAssertEqual(reader.status.refusals, ["unknownKey": 1])
    }

    func testTheEntryIsReadAtTheNextExchangeOnceTheKeyIsImported() async throws {
        let reader = try await machine1AfterAWriteUnderKey2()
        try importKey2IntoMachine1()
        try await reader.synchronizeWithServer()
        XCTAssertEqual(reader.string(forKey: "theme"), "dark")
    }

    /// What is awaited is kept with the state: a store opened again (a process started again)
    /// still reads the entry once the key is there.
    func testTheEntryIsReadOnceTheKeyIsImportedByAStoreOpenedAgain() async throws {
        _ = try await machine1AfterAWriteUnderKey2()
        try importKey2IntoMachine1()
        XCTAssertEqual(Array(try machine1sReplica().state.awaitingKeys.keys), [2])
        let reader = try sandbox.store(1, url: server.url)
        try await reader.synchronizeWithServer()
        XCTAssertEqual(reader.string(forKey: "theme"), "dark")
    }

    /// A row read again that is refused again, for another reason now that its key is known,
    /// was counted the first time.
    func testARowRefusedAgainWhenRowsAreReadAgainIsNotCountedAgain() async throws {
        _ = try sandbox.keyrings[0].rotateKey(in: SyncSandbox.group)
        let writer = try sandbox.store(0, url: server.url)
        writer.set("dark", forKey: "theme")
        try await writer.synchronizeWithServer()
        // `note`, after `theme` in change order, is read again with it.
        writer.set("tampered", forKey: "note")
        try await writer.synchronizeWithServer()
        try tamperWithBlobs(of: .newest, announcing: false)
        let reader = try sandbox.store(1, url: server.url)
        try await reader.synchronizeWithServer()
        XCTAssertEqual(reader.status.refusals, ["unknownKey": 2], "the arrangement: both rows need key #2")
        try importKey2IntoMachine1()
        try await reader.synchronizeWithServer()
        XCTAssertEqual(reader.string(forKey: "theme"), "dark")
        XCTAssertEqual(reader.status.refusals, ["unknownKey": 2], "the tampered row, now refused as failing authentication, was counted once")
    }

    /// Reading again stops once nothing is awaited: the entries read again the first time are
    /// duplicates, and the next exchange does not read them a third time.
    func testNothingIsAwaitedOnceTheEntryIsRead() async throws {
        let reader = try await machine1AfterAWriteUnderKey2()
        try importKey2IntoMachine1()
        try await reader.synchronizeWithServer()
        XCTAssertEqual(try machine1sReplica().state.awaitingKeys, [:])
        XCTAssertEqual(reader.status.refusals, ["unknownKey": 1], "the entry read again was not refused again")
    }
}

/// How many keys a state awaits, and which: a row's key id is read before it is authenticated.
final class AwaitedKeysTests: XCTestCase {
    func testTheLowestChangeRefusedForAKeyIsKept() {
        var state = ReplicaState()
        state.awaitKey(2, sinceChange: 40)
        state.awaitKey(2, sinceChange: 12)
        state.awaitKey(2, sinceChange: 90)
        XCTAssertEqual(state.awaitingKeys, [2: 12])
    }

    /// Change numbers start at 1; a server that sends another cannot make reading again start
    /// below the smallest change number there is.
    func testAChangeNumberBelowOneIsNotAwaited() {
        var state = ReplicaState()
        state.awaitKey(2, sinceChange: .min)
        state.awaitKey(3, sinceChange: 0)
        XCTAssertEqual(state.awaitingKeys, [:])
    }

    func testAtMostThirtyTwoKeysAreAwaitedTheHighestIdsGivingWay() {
        var state = ReplicaState()
        for id in (100..<140).reversed() { state.awaitKey(UInt32(id), sinceChange: Int64(id)) }
        state.awaitKey(2, sinceChange: 5)
        XCTAssertEqual(state.awaitingKeys.count, ReplicaState.maximumAwaitedKeys)
        XCTAssertEqual(state.awaitingKeys[2], 5)
        XCTAssertEqual(state.awaitingKeys.keys.max(), 130)
    }
}
