import Foundation
import Keyring
import Vault
import XCTest

/// Rollback and replay: an older authentic blob put back is refused (SECURITY.md, "The layers and what each stops", layer 4).
/// The observation helper's MultiProcess tests repeat this with a real second process.
final class VaultRollbackTests: VaultTestCase {
    func testOldBlobRestoredAfterANewerOneWasReadIsRollback() throws {
        let vault = try sandbox.vault()
        try vault.write(AuthState.signedIn, to: "auth-state")
        let signedIn = try sandbox.blob("auth-state", in: vault)
        try vault.write(AuthState.signedOut, to: "auth-state")
        XCTAssertEqual(try vault.read(AuthState.self, from: "auth-state"), AuthState.signedOut)

        try sandbox.place(signedIn, as: "auth-state", in: vault)

        assertRefused(.rollback) { () throws(VaultError) in try vault.read(AuthState.self, from: "auth-state") }
    }

    func testOldBlobRestoredIsRollbackForAFreshVaultOverTheSameHome() throws {
        let writer = try sandbox.vault()
        try writer.write(AuthState.signedIn, to: "auth-state")
        let signedIn = try sandbox.blob("auth-state", in: writer)
        try writer.write(AuthState.signedOut, to: "auth-state")

        try sandbox.place(signedIn, as: "auth-state", in: writer)

        // A new Vault value (as after a restart) has no memory but the ledger in the keyring.
        let reader = try sandbox.vault()
        assertRefused(.rollback) { () throws(VaultError) in try reader.read(AuthState.self, from: "auth-state") }
    }

    func testReaderAcceptingANewerRecordRaisesTheLedger() throws {
        let vault = try sandbox.vault()
        try vault.write(AuthState.signedIn, to: "auth-state")
        let older = try sandbox.blob("auth-state", in: vault)
        try vault.write(AuthState.signedOut, to: "auth-state")
        let newer = try sandbox.blob("auth-state", in: vault)
        // As if the writer had died between publishing and recording: the ledger knows nothing.
        try vault.ledger.removeAll()

        XCTAssertEqual(try sandbox.vault().read(AuthState.self, from: "auth-state"), AuthState.signedOut)
        try sandbox.place(older, as: "auth-state", in: vault)

        assertRefused(.rollback) { () throws(VaultError) in try sandbox.vault().read(AuthState.self, from: "auth-state") }
        XCTAssertEqual(try vault.ledger.entry(for: RecordName(validating: "auth-state"))?.digest, TrustLedger.digest(of: newer))
    }

    func testTrustedBlobReadAgainIsAccepted() throws {
        let vault = try sandbox.vault()
        try vault.write(AuthState.signedIn, to: "auth-state")

        XCTAssertEqual(try vault.read(AuthState.self, from: "auth-state"), AuthState.signedIn)
        XCTAssertEqual(try sandbox.vault().read(AuthState.self, from: "auth-state"), AuthState.signedIn)
    }

    /// Writes `signedIn` and then, after losing both the file and the ledger, `signedOut`, both
    /// at sequence 1; returns the vault and the first blob, which is not in place.
    private func twoContentsAtSequenceOne() throws -> (vault: Vault, first: [UInt8]) {
        let vault = try sandbox.vault()
        try vault.write(AuthState.signedIn, to: "auth-state")
        let first = try sandbox.blob("auth-state", in: vault)
        try FileManager.default.removeItem(at: sandbox.recordURL("auth-state", in: vault))
        try vault.ledger.removeAll()
        XCTAssertEqual(try vault.write(AuthState.signedOut, to: "auth-state").sequence, 1)
        return (vault, first)
    }

    func testSameSequenceWithDifferentContentIsConflictingContent() throws {
        let (vault, first) = try twoContentsAtSequenceOne()

        try sandbox.place(first, as: "auth-state", in: vault)

        assertRefused(.conflictingContent) { () throws(VaultError) in try vault.read(AuthState.self, from: "auth-state") }
    }

    /// A process remembers the digest of the blob it last read by the blob's bytes
    /// (`TrustLedger.digest(of:named:)`): other bytes at the same name are hashed again.
    func testSameSequenceWithDifferentContentIsConflictingContentAlsoAfterTheAcceptedOneWasRead() throws {
        let (vault, first) = try twoContentsAtSequenceOne()
        XCTAssertEqual(try vault.read(AuthState.self, from: "auth-state"), AuthState.signedOut)

        try sandbox.place(first, as: "auth-state", in: vault)

        assertRefused(.conflictingContent) { () throws(VaultError) in try vault.read(AuthState.self, from: "auth-state") }
    }

    func testWriterContinuesAboveTheCurrentAuthenticFileWhenTheLedgerIsBehind() throws {
        let vault = try sandbox.vault()
        try vault.write(AuthState.signedIn, to: "auth-state")
        let latest = try vault.write(AuthState.signedOut, to: "auth-state")
        try vault.ledger.removeAll()

        let next = try vault.write(AuthState.signedIn, to: "auth-state")

        XCTAssertEqual(next.sequence, latest.sequence + 1)
    }

    func testWriterContinuesAboveTheCurrentAuthenticFileWhenTheLedgerRowIsBehindIt() throws {
        let vault = try sandbox.vault()
        let first = try vault.write(AuthState.signedIn, to: "auth-state")
        let firstBlob = try sandbox.blob("auth-state", in: vault)
        let latest = try vault.write(AuthState.signedOut, to: "auth-state")
        // The row is back at the first version (restored from a backup) while the file is the latest.
        try vault.ledger.removeAll()
        let name = try RecordName(validating: "auth-state")
        try vault.ledger.confirm(name, sequence: first.sequence, digest: TrustLedger.digest(of: firstBlob))

        let next = try vault.write(AuthState.signedIn, to: "auth-state")

        XCTAssertEqual(next.sequence, latest.sequence + 1)
    }

    func testWriterContinuesAboveTheLedgerWhenTheFileWasRolledBack() throws {
        let vault = try sandbox.vault()
        try vault.write(AuthState.signedIn, to: "auth-state")
        let old = try sandbox.blob("auth-state", in: vault)
        let latest = try vault.write(AuthState.signedOut, to: "auth-state")
        try sandbox.place(old, as: "auth-state", in: vault)

        let next = try vault.write(AuthState.signedIn, to: "auth-state")

        XCTAssertEqual(next.sequence, latest.sequence + 1)
    }

    func testRolledBackRecordIsReadableAgainAfterTheWriterWrites() throws {
        let vault = try sandbox.vault()
        try vault.write(AuthState.signedIn, to: "auth-state")
        let old = try sandbox.blob("auth-state", in: vault)
        try vault.write(AuthState.signedOut, to: "auth-state")
        try sandbox.place(old, as: "auth-state", in: vault)

        try vault.write(AuthState.signedInAgain, to: "auth-state")

        XCTAssertEqual(try vault.read(AuthState.self, from: "auth-state"), AuthState.signedInAgain)
    }
}
