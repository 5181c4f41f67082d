import Foundation
import Keyring
import SealedStorage
import SystemPackage
import Vault
import XCTest

/// The write path under injected faults: nothing torn, nothing left behind.
final class VaultDurabilityTests: VaultTestCase {
    override func tearDown() {
        FaultInjection.disarmAll()
        super.tearDown()
    }

    func testFailingFsyncAbortsTheWriteAsStorage() throws {
        let vault = try sandbox.vault()
        try vault.write(AuthState.signedIn, to: "auth-state")

        FaultInjection.withFault(.fail(.ioError), at: .step(.syncTemporary)) {
            assertRefused(.storage) { () throws(VaultError) in try vault.write(AuthState.signedOut, to: "auth-state") }
        }
    }

    func testFailingFsyncLeavesThePreviousRecordReadable() throws {
        let vault = try sandbox.vault()
        try vault.write(AuthState.signedIn, to: "auth-state")
        FaultInjection.withFault(.fail(.ioError), at: .step(.syncTemporary)) {
            _ = try? vault.write(AuthState.signedOut, to: "auth-state")
        }

        XCTAssertEqual(try vault.read(AuthState.self, from: "auth-state"), AuthState.signedIn)
    }

    func testFailingFsyncLeavesNoTemporaryFile() throws {
        let vault = try sandbox.vault()
        try vault.write(AuthState.signedIn, to: "auth-state")
        FaultInjection.withFault(.fail(.ioError), at: .step(.syncTemporary)) {
            _ = try? vault.write(AuthState.signedOut, to: "auth-state")
        }

        XCTAssertEqual(try sandbox.recordsDirectoryEntries(of: vault), ["auth-state.gvr"])
    }

    func testFailedWriteDoesNotAdvanceTheSequence() throws {
        let vault = try sandbox.vault()
        let first = try vault.write(AuthState.signedIn, to: "auth-state")
        FaultInjection.withFault(.fail(.ioError), at: .step(.syncTemporary)) {
            _ = try? vault.write(AuthState.signedOut, to: "auth-state")
        }

        let next = try vault.write(AuthState.signedOut, to: "auth-state")

        XCTAssertEqual(next.sequence, first.sequence + 1)
    }

    func testDiskFullOnWriteKeepsThePreviousRecord() throws {
        let vault = try sandbox.vault()
        try vault.write(AuthState.signedIn, to: "auth-state")
        FaultInjection.withFault(.fail(.noSpace), at: .step(.writeTemporary)) {
            assertRefused(.storage) { () throws(VaultError) in try vault.write(AuthState.signedOut, to: "auth-state") }
        }
        XCTAssertEqual(try vault.read(AuthState.self, from: "auth-state"), AuthState.signedIn)
    }

    /// The directory fsync comes after the rename: its failure cannot mean "nothing happened".
    func testAFailingDirectoryFsyncIsReportedAsPublishedButNotDurable() throws {
        let vault = try sandbox.vault(durability: .full)
        try vault.write(AuthState.signedIn, to: "auth-state")

        FaultInjection.withFault(.fail(.ioError), at: .step(.syncDirectory)) {
            assertRefused(.notDurable) { () throws(VaultError) in try vault.write(AuthState.signedOut, to: "auth-state") }
        }
        XCTAssertEqual(try vault.read(AuthState.self, from: "auth-state"), AuthState.signedOut, "the new version is what readers see")
    }

    func testARecordPublishedWithoutDurabilityIsStillInTheTrustLedger() throws {
        let vault = try sandbox.vault(durability: .full)
        try vault.write(AuthState.signedIn, to: "auth-state")
        let signedIn = try sandbox.blob("auth-state", in: vault)
        FaultInjection.withFault(.fail(.ioError), at: .step(.syncDirectory)) {
            assertRefused(.notDurable) { () throws(VaultError) in try vault.write(AuthState.signedOut, to: "auth-state") }
        }

        try sandbox.place(signedIn, as: "auth-state", in: vault)

        assertRefused(.rollback, "the older blob must stay refused") { () throws(VaultError) in
            try sandbox.vault().read(AuthState.self, from: "auth-state")
        }
    }

    func testAWriteWaitsForOneFlushedLedgerCommit() throws {
        let vault = try sandbox.vault()
        try vault.write(AuthState.signedIn, to: "auth-state")
        let database = try KeyringDatabase.shared(for: sandbox.home)
        let before = database.flushedCommitCount()

        try vault.write(AuthState.signedOut, to: "auth-state")

        XCTAssertEqual(database.flushedCommitCount() - before, 1)
        XCTAssertEqual(try vault.ledger.entry(for: RecordName(validating: "auth-state"))?.sequence, 2, "the confirmation was committed")
    }

    func testTheOneFlushedLedgerCommitOfAWriteIsItsConfirmation() throws {
        let vault = try sandbox.vault()
        try vault.write(AuthState.signedIn, to: "auth-state")
        let database = try KeyringDatabase.shared(for: sandbox.home)
        let before = database.flushedCommitCount()

        // The confirmation fails: the announcement alone was committed, and not flushed.
        FaultInjection.withFault(.fail(.ioError), at: .step(.ledgerConfirm)) {
            assertRefused(.notDurable) { () throws(VaultError) in try vault.write(AuthState.signedOut, to: "auth-state") }
        }

        XCTAssertEqual(database.flushedCommitCount(), before)
        XCTAssertEqual(try vault.read(AuthState.self, from: "auth-state"), .signedOut, "the announced version was published")
    }

    func testAtomicDurabilitySkipsTheDirectoryFsync() throws {
        let vault = try sandbox.vault(durability: .atomic)
        try vault.write(AuthState.signedIn, to: "auth-state")
        _ = try FaultInjection.withFault(.fail(.ioError), at: .step(.syncDirectory)) {
            try vault.write(AuthState.signedOut, to: "auth-state")
        }

        XCTAssertEqual(try vault.read(AuthState.self, from: "auth-state"), AuthState.signedOut)
    }

    func testNextWriteRemovesATemporaryLeftByAKilledWriter() throws {
        let vault = try sandbox.vault()
        try vault.write(AuthState.signedIn, to: "auth-state")
        let leftover = URL(fileURLWithPath: vault.recordsDirectory.string)
            .appendingPathComponent(AtomicFile.temporaryPrefix(for: FilePath(sandbox.recordURL("auth-state", in: vault).path)) + "0123456789abcdef")
        try Data([1, 2, 3]).write(to: leftover)
        // What a writer killed after its announcement leaves in the ledger with its temporary file.
        try LedgerTable(home: sandbox.home, group: VaultSandbox.group).update("auth-state") { row in
            row?.pending = 2
            row?.pendingDigest = String(repeating: "0", count: 64)
        }

        try vault.write(AuthState.signedOut, to: "auth-state")

        XCTAssertEqual(try sandbox.recordsDirectoryEntries(of: vault), ["auth-state.gvr"])
    }

    func testTheFirstWriteOfANewRecordDoesNotListTheGroupsRecords() throws {
        let vault = try sandbox.vault()
        try vault.write(AuthState.signedIn, to: "existing")

        let listings = try FileLayerDriver.with { driver in
            try vault.write(AuthState.signedIn, to: "new")
            return driver.trace.filter { $0.call == .listDirectory }
        }

        XCTAssertEqual(listings.count, 0, "a name never announced has no leftovers to look for")
        XCTAssertEqual(try vault.read(AuthState.self, from: "new"), AuthState.signedIn)
    }

    func testAWriteSweepsLeftoversOfARecordFileTheLedgerHasNoRowFor() throws {
        let vault = try sandbox.vault()
        try vault.write(AuthState.signedIn, to: "auth-state")
        let leftover = URL(fileURLWithPath: vault.recordsDirectory.string)
            .appendingPathComponent(AtomicFile.temporaryPrefix(for: FilePath(sandbox.recordURL("auth-state", in: vault).path)) + "0123456789abcdef")
        try Data([1, 2, 3]).write(to: leftover)
        // A record of an earlier version, or a ledger lost: the file is there, its row is not.
        try LedgerTable(home: sandbox.home, group: VaultSandbox.group).update("auth-state") { row in row = nil }

        try vault.write(AuthState.signedOut, to: "auth-state")

        XCTAssertEqual(try sandbox.recordsDirectoryEntries(of: vault), ["auth-state.gvr"])
    }
}
