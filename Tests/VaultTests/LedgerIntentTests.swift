import Foundation
import Keyring
import SealedStorage
import Vault
import XCTest

/// Intent first: a write commits its sequence to the trust ledger before the record can be
/// observed, so a failed ledger step publishes nothing, and an older blob put back after a
/// published write is refused (hole 1 of the attack pass: the ledger used to be written after
/// the rename, and a disk that filled between the two let the signed-in blob be put back).
final class LedgerIntentTests: VaultTestCase {
    override func tearDown() {
        FaultInjection.disarmAll()
        super.tearDown()
    }

    func testADiskFullAtTheLedgerStepFailsTheWriteAsStorage() throws {
        let vault = try sandbox.vault()
        try vault.write(AuthState.signedIn, to: "auth-state")
        FaultInjection.withFault(.fail(.noSpace), at: .step(.ledgerIntent)) {
            assertRefused(.storage) { () throws(VaultError) in try vault.write(AuthState.signedOut, to: "auth-state") }
        }
    }

    func testAWriteWhoseLedgerStepFailedPublishesNothing() throws {
        let vault = try sandbox.vault()
        try vault.write(AuthState.signedIn, to: "auth-state")
        let signedIn = try sandbox.blob("auth-state", in: vault)
        FaultInjection.withFault(.fail(.ioError), at: .step(.ledgerIntent)) {
            _ = try? vault.write(AuthState.signedOut, to: "auth-state")
        }

        XCTAssertEqual(try sandbox.blob("auth-state", in: vault), signedIn, "the record file must not change")
        XCTAssertEqual(try sandbox.recordsDirectoryEntries(of: vault), ["auth-state.gvr"], "no temporary file either")
    }

    func testAFailedLedgerStepLeavesTheLedgerAsItWas() throws {
        let vault = try sandbox.vault()
        try vault.write(AuthState.signedIn, to: "auth-state")
        let name = try RecordName(validating: "auth-state")
        let before = try vault.ledger.row(for: name)
        FaultInjection.withFault(.fail(.noSpace), at: .step(.ledgerIntent)) {
            _ = try? vault.write(AuthState.signedOut, to: "auth-state")
        }

        XCTAssertEqual(try vault.ledger.row(for: name), before)
    }

    /// The attack: the sign-out is published, its ledger confirmation fails, a reader reads the
    /// sign-out, and the container writer then puts the signed-in blob back.
    func testAnOlderBlobPutBackAfterAFailedConfirmationIsRollback() throws {
        let vault = try sandbox.vault()
        try vault.write(AuthState.signedIn, to: "auth-state")
        let signedIn = try sandbox.blob("auth-state", in: vault)
        FaultInjection.withFault(.fail(.noSpace), at: .step(.ledgerConfirm)) {
            assertRefused(.notDurable) { () throws(VaultError) in try vault.write(AuthState.signedOut, to: "auth-state") }
        }
        XCTAssertEqual(try sandbox.vault().read(AuthState.self, from: "auth-state"), AuthState.signedOut)

        try sandbox.place(signedIn, as: "auth-state", in: vault)

        assertRefused(.rollback) { () throws(VaultError) in try sandbox.vault().read(AuthState.self, from: "auth-state") }
    }

    /// The announced sequence is in the ledger before the rename, so the blob that carries it
    /// is accepted (and confirmed) by readers even when the writer never confirmed it.
    func testTheAnnouncedVersionIsAcceptedAndConfirmedByAReader() throws {
        let vault = try sandbox.vault()
        try vault.write(AuthState.signedIn, to: "auth-state")
        let header = FaultInjection.withFault(.fail(.ioError), at: .step(.ledgerConfirm)) {
            try? vault.write(AuthState.signedOut, to: "auth-state")
        }
        XCTAssertNil(header, "the write must report that its confirmation failed")

        XCTAssertEqual(try vault.read(AuthState.self, from: "auth-state"), AuthState.signedOut)

        let row = try XCTUnwrap(vault.ledger.row(for: RecordName(validating: "auth-state")))
        XCTAssertEqual(row.confirmed, 2)
        XCTAssertNil(row.pending)
    }

    func testAnAnnouncementOfAFailedWriteIsWithdrawn() throws {
        let vault = try sandbox.vault()
        try vault.write(AuthState.signedIn, to: "auth-state")
        FaultInjection.withFault(.fail(.ioError), at: .step(.syncTemporary)) {
            _ = try? vault.write(AuthState.signedOut, to: "auth-state")
        }

        XCTAssertNil(try vault.ledger.row(for: RecordName(validating: "auth-state"))?.pending)
    }

    /// A blob carrying the announced sequence but other bytes was not written by the announcer.
    func testABlobWithTheAnnouncedSequenceButOtherContentIsConflictingContent() throws {
        let vault = try sandbox.vault()
        try vault.write(AuthState.signedIn, to: "auth-state")
        let name = try RecordName(validating: "auth-state")
        try LedgerTable(home: sandbox.keyring.home, group: VaultSandbox.group).update(name.rawValue) { row in
            row?.pending = 2
            row?.pendingDigest = String(repeating: "0", count: 64)
        }
        try place(sequence: 2, in: vault, sandbox: sandbox)

        assertRefused(.conflictingContent) { () throws(VaultError) in try vault.read(AuthState.self, from: "auth-state") }
    }

    // MARK: The top of the sequence space (hole 7)

    func testABlobForgedWithTheLastSequenceIsRefusedAsUntrustedSequence() throws {
        let vault = try sandbox.vault()
        try vault.write(AuthState.signedIn, to: "auth-state")

        try place(sequence: .max, in: vault, sandbox: sandbox)

        assertRefused(.untrustedSequence) { () throws(VaultError) in try vault.read(AuthState.self, from: "auth-state") }
    }

    func testARecordWithAForgedLastSequenceCanStillBeWritten() throws {
        let vault = try sandbox.vault()
        try vault.write(AuthState.signedIn, to: "auth-state")
        try place(sequence: .max, in: vault, sandbox: sandbox)
        _ = try? vault.read(AuthState.self, from: "auth-state")

        let header = try vault.write(AuthState.signedOut, to: "auth-state")

        XCTAssertEqual(header.sequence, 2)
        XCTAssertEqual(try vault.read(AuthState.self, from: "auth-state"), AuthState.signedOut)
    }

    func testABlobWithinTheWindowAboveTheLedgerIsAccepted() throws {
        let vault = try sandbox.vault()
        try vault.write(AuthState.signedIn, to: "auth-state")

        try place(sequence: 1 + TrustLedger.sequenceWindow, in: vault, sandbox: sandbox)

        XCTAssertEqual(try vault.read(AuthState.self, from: "auth-state"), AuthState.signedOut)
    }

    func testAWriteAtTheLastSequenceIsRefusedNamingTheWayOut() throws {
        let vault = try sandbox.vault()
        try vault.write(AuthState.signedIn, to: "auth-state")
        try LedgerTable(home: sandbox.keyring.home, group: VaultSandbox.group).update("auth-state") { row in
            row?.confirmed = .max
        }

        do {
            try vault.write(AuthState.signedOut, to: "auth-state")
            XCTFail("a write above 2^64-1 must be refused")
        } catch {
            XCTAssertEqual(error.code, .storage)
            XCTAssertTrue(error.reason.contains("new record name"), error.reason)
        }
    }

    /// One rule for a write and a reseal (`TrustLedger.nextSequence`): the next sequence is one
    /// above the trusted one, and there is none above 2^64-1 whichever sequence got there.
    func testNoWriterGoesAboveTheLastSequenceWhetherTheLedgerOrTheFileHoldsIt() throws {
        let atTop = LedgerTable.Row(confirmed: .max, confirmedDigest: "")
        let pendingAtTop = LedgerTable.Row(confirmed: 1, confirmedDigest: "", pending: .max, pendingDigest: "")
        let belowTop = LedgerTable.Row(confirmed: .max - 1, confirmedDigest: "")

        XCTAssertEqual(try TrustLedger.nextSequence(row: nil, onDisk: 0, subject: "record"), 1)
        XCTAssertEqual(try TrustLedger.nextSequence(row: belowTop, onDisk: 0, subject: "record"), .max)
        for (row, onDisk) in [(atTop, 0), (pendingAtTop, 0), (belowTop, .max)] as [(LedgerTable.Row, UInt64)] {
            XCTAssertThrowsError(try TrustLedger.nextSequence(row: row, onDisk: onDisk, subject: "record")) { error in
                XCTAssertEqual((error as? VaultError)?.code, .storage)
                XCTAssertTrue((error as? VaultError)?.reason.contains("new record name") ?? false, "\(error)")
            }
        }
    }

    // MARK: Helpers

    /// Seals the signed-out state with the group's primary key at `sequence` and puts it in place,
    /// as a holder of the group key could.
    private func place(sequence: UInt64, in vault: Vault, sandbox: VaultSandbox) throws {
        let key = try sandbox.keyring.groupKey(for: VaultSandbox.group)
        let header = BlobHeader(
            flags: [], keyID: key.id, sequence: sequence, issuedAtMilliseconds: vault.nowMilliseconds(), expiresAtMilliseconds: 0,
            schemaVersion: AuthState.schemaVersion, nonce: .random())
        let payload = Array(try JSONEncoder().encode(AuthState.signedOut))
        let blob = BlobFormat.seal(header: header, plaintext: payload, key: key.key, group: VaultSandbox.group, name: try RecordName(validating: "auth-state"))
        try sandbox.place(blob, as: "auth-state", in: vault)
    }
}
