import Foundation
import GroupSync
import GroupSyncTestKit
import Keyring
import SealedStorage
import Vault
import XCTest

/// Records a group opts into sync, between two machines through a real server.
final class SyncedRecordsTests: SyncServerTestCase {
    private struct Profile: VaultRecord, Equatable {
        static let schemaVersion: UInt32 = 1
        var displayName: String
    }

    private func records(_ index: Int) throws -> SyncedRecords {
        try sandbox.records(index, url: server.url)
    }

    func testAWriteOnOneMachineBecomesAReadOnAnother() async throws {
        let one = try records(0)
        let two = try records(1)
        try one.write(Profile(displayName: "Ada"), to: "profile")
        try await one.synchronizeWithServer()
        try await two.synchronizeWithServer()
        XCTAssertEqual(try two.read(Profile.self, from: "profile"), Profile(displayName: "Ada"))
    }

    func testARecordAdoptedFromTheVaultOnOneMachineIsReadOnAnother() async throws {
        let vault = try Vault(keyring: sandbox.keyrings[0], group: SyncSandbox.group)
        try vault.write(Profile(displayName: "Ada"), to: "profile")
        let one = try records(0)
        let two = try records(1)

        try one.adopt(Profile.self, from: vault, name: "profile")
        try await one.synchronizeWithServer()
        try await two.synchronizeWithServer()

        XCTAssertEqual(try two.read(Profile.self, from: "profile"), Profile(displayName: "Ada"))
    }

    func testAWriteThatLostToAnotherMachinesIsReportedToItsWriter() async throws {
        let one = try records(0)
        let two = try records(1)
        let conflicts = two.conflicts()
        try one.write(Profile(displayName: "first"), to: "profile")
        try two.write(Profile(displayName: "second"), to: "profile")
        try await one.synchronizeWithServer()
        try await two.synchronizeWithServer()

        var iterator = conflicts.makeAsyncIterator()
        let conflict = await iterator.next()
        XCTAssertEqual(conflict?.key, "profile")
        XCTAssertEqual(conflict?.winningSequence, 1)
        XCTAssertEqual(two.status.conflicts, 1)
        XCTAssertEqual(try two.read(Profile.self, from: "profile"), Profile(displayName: "first"), "the server's first write wins")
        XCTAssertEqual(two.status.pendingWrites, 0)
    }

    func testRecordsOfMoreBytesThanACatchUpPageAllReachAnotherMachine() async throws {
        let one = try records(0)
        let two = try records(1)
        // Eight records of 600,000 characters: more than one page's 4 MiB of blobs, so the
        // catch-up reads at least two byte-bounded pages.
        let names = (0..<8).map { "large-\($0)" }
        for (index, name) in names.enumerated() {
            try one.write(Profile(displayName: String(repeating: Character(UnicodeScalar(UInt8(0x61 + index))), count: 600_000)), to: name)
        }
        try await one.synchronizeWithServer()

        try await two.synchronizeWithServer()

        for (index, name) in names.enumerated() {
            XCTAssertEqual(try two.read(Profile.self, from: name)?.displayName.count, 600_000, name)
            XCTAssertEqual(try two.read(Profile.self, from: name)?.displayName.first, Character(UnicodeScalar(UInt8(0x61 + index))), name)
        }
    }

    /// A first sync's pages go to the journal, each durable before it is shown, and its state
    /// is written whole once, after observers were told (docs/SYNC.md, section 7, "Writing"):
    /// so a compaction that fails takes nothing from them.
    func testAFirstSyncTellsItsObserversBeforeItCompactsItsState() async throws {
        let one = try records(0)
        // Three records of 600,000 characters: a state past 1 MiB, which a first sync's
        // journal outgrows.
        let names = (0..<3).map { "large-\($0)" }
        for name in names { try one.write(Profile(displayName: String(repeating: "a", count: 600_000)), to: name) }
        try await one.synchronizeWithServer()
        let two = try records(1)
        // A local write first, so that the store's files exist and the sync appends to them.
        try two.write(Profile(displayName: "local"), to: "local")
        let changes = two.changes()

        // Creating any temporary file fails once: the compaction, the only one the sync makes.
        await assertSyncFailsAsStorage(at: .createTemporary, "the sync's compaction must have failed") {
            try await two.synchronizeWithServer()
        }

        let initialSync = await firstChange(changes, reason: .initialSyncChange)
        XCTAssertEqual(initialSync?.changedKeys.sorted(), (names + ["local"]).sorted())
        let reopened = try records(1)
        for name in names {
            XCTAssertEqual(try reopened.read(Profile.self, from: name)?.displayName.count, 600_000, "\(name) must be durable without the compaction")
        }
    }

    func testADeletionReachesTheOtherMachine() async throws {
        let one = try records(0)
        let two = try records(1)
        try one.write(Profile(displayName: "Ada"), to: "profile")
        try await one.synchronizeWithServer()
        try await two.synchronizeWithServer()
        try one.delete("profile")
        try await one.synchronizeWithServer()
        try await two.synchronizeWithServer()
        XCTAssertNil(try two.read(Profile.self, from: "profile"))
    }
}
