import Foundation
import Keyring
import Vault
import XCTest

/// Key rotation: reseal under the new primary, then retire the old key safely.
final class VaultResealTests: VaultTestCase {
    func testResealMovesTheRecordToThePrimaryKeyWithAHigherSequence() throws {
        let vault = try sandbox.vault()
        let written = try vault.write(AuthState.signedIn, to: "auth-state")
        let rotated = try sandbox.keyring.rotateKey(in: VaultSandbox.group)

        try vault.reseal("auth-state")

        let header = try XCTUnwrap(try vault.list().first?.header.get())
        XCTAssertEqual(header.keyID, rotated.id)
        XCTAssertGreaterThan(header.sequence, written.sequence)
    }

    func testResealKeepsIssueTimeExpirySchemaAndValue() throws {
        let vault = try sandbox.vault()
        let written = try vault.write(AuthState.signedIn, to: "auth-state", expiresAt: TestClock.start.addingTimeInterval(3600))
        try sandbox.keyring.rotateKey(in: VaultSandbox.group)
        sandbox.clock.advance(by: 120)

        try vault.reseal("auth-state")

        let header = try XCTUnwrap(try vault.list().first?.header.get())
        XCTAssertEqual(header.issuedAt, written.issuedAt)
        XCTAssertEqual(header.expiresAt, written.expiresAt)
        XCTAssertEqual(header.schemaVersion, written.schemaVersion)
        XCTAssertEqual(try vault.read(AuthState.self, from: "auth-state"), AuthState.signedIn)
    }

    func testResealAllThenRetiringTheOldKeyKeepsEveryRecordReadable() throws {
        let vault = try sandbox.vault()
        let old = try vault.write(AuthState.signedIn, to: "auth-state").keyID
        try vault.write(AuthState.signedOut, to: "guest-state")
        try vault.delete("removed")
        try sandbox.keyring.rotateKey(in: VaultSandbox.group)

        try vault.resealAll()
        try sandbox.keyring.retireKey(id: old, in: VaultSandbox.group)

        XCTAssertEqual(try vault.read(AuthState.self, from: "auth-state"), AuthState.signedIn)
        XCTAssertEqual(try vault.read(AuthState.self, from: "guest-state"), AuthState.signedOut)
        assertRefused(.deleted) { () throws(VaultError) in try vault.read(AuthState.self, from: "removed") }
    }

    func testOldBlobRestoredAfterResealIsRollback() throws {
        let vault = try sandbox.vault()
        try vault.write(AuthState.signedIn, to: "auth-state")
        let original = try sandbox.blob("auth-state", in: vault)
        try sandbox.keyring.rotateKey(in: VaultSandbox.group)
        try vault.reseal("auth-state")

        try sandbox.place(original, as: "auth-state", in: vault)

        assertRefused(.rollback) { () throws(VaultError) in try vault.read(AuthState.self, from: "auth-state") }
    }

    func testResealAllCountsOnlyRecordsNotUnderThePrimaryKey() throws {
        let vault = try sandbox.vault()
        try vault.write(AuthState.signedIn, to: "a")
        try vault.write(AuthState.signedIn, to: "b")
        try sandbox.keyring.rotateKey(in: VaultSandbox.group)
        try vault.write(AuthState.signedIn, to: "c")

        XCTAssertEqual(try vault.resealAll(), 2)
    }

    func testResealAllOnAFreshlyResealedVaultResealsNothing() throws {
        let vault = try sandbox.vault()
        try vault.write(AuthState.signedIn, to: "a")
        try sandbox.keyring.rotateKey(in: VaultSandbox.group)
        try vault.resealAll()

        XCTAssertEqual(try vault.resealAll(), 0)
    }

    func testResealRefusesARolledBackBlobInsteadOfLaunderingIt() throws {
        let vault = try sandbox.vault()
        try vault.write(AuthState.signedIn, to: "auth-state")
        let old = try sandbox.blob("auth-state", in: vault)
        try vault.write(AuthState.signedOut, to: "auth-state")
        try sandbox.place(old, as: "auth-state", in: vault)

        assertRefused(.rollback) { () throws(VaultError) in try vault.reseal("auth-state") }
    }

    func testResealOfAMissingRecordIsNotFound() throws {
        let vault = try sandbox.vault()

        assertRefused(.notFound) { () throws(VaultError) in try vault.reseal("auth-state") }
    }

    func testResealAllReportsARecordItCannotOpen() throws {
        let vault = try sandbox.vault()
        try vault.write(AuthState.signedIn, to: "good")
        try vault.write(AuthState.signedIn, to: "tampered")
        var blob = try sandbox.blob("tampered", in: vault)
        blob[blob.count - 1] ^= 0x80
        try sandbox.place(blob, as: "tampered", in: vault)
        try sandbox.keyring.rotateKey(in: VaultSandbox.group)

        do {
            try vault.resealAll()
            XCTFail("resealAll succeeded over a tampered record")
        } catch {
            XCTAssertEqual(error.code, .authenticationFailed)
            XCTAssertTrue(error.reason.contains("tampered"), error.reason)
        }
    }

    /// A group whose ledger was lost has no announcement to say which records a killed writer
    /// left a temporary file for: resealAll finds them in its one listing of the directory and
    /// removes them, and nothing that is not exactly such a file.
    func testResealAllOfAGroupWhoseLedgerWasLostRemovesKilledWritersLeftovers() throws {
        let vault = try sandbox.vault()
        for name in ["first", "second", "third"] { try vault.write(AuthState.signedIn, to: name) }
        let directory = URL(fileURLWithPath: vault.recordsDirectory.string)
        for leftover in [".second.gvr.tmp-0123456789abcdef", ".third.gvr.tmp-fedcba9876543210", ".third.gvr.tmp-keep"] {
            try Data([0]).write(to: directory.appendingPathComponent(leftover))
        }
        try vault.ledger.removeAll()
        try sandbox.keyring.rotateKey(in: VaultSandbox.group)

        XCTAssertEqual(try vault.resealAll(), 3)

        XCTAssertEqual(try sandbox.recordsDirectoryEntries(of: vault), [".third.gvr.tmp-keep", "first.gvr", "second.gvr", "third.gvr"])
        for name in ["first", "second", "third"] {
            XCTAssertEqual(try vault.read(AuthState.self, from: name), AuthState.signedIn, name)
        }
    }
}
