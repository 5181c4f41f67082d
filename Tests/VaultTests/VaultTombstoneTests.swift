import Foundation
import Vault
import XCTest

/// delete(_:) seals a tombstone with a higher sequence instead of removing the file.
final class VaultTombstoneTests: VaultTestCase {
    func testDeletedRecordReadsAsDeleted() throws {
        let vault = try sandbox.vault()
        try vault.write(AuthState.signedIn, to: "auth-state")

        try vault.delete("auth-state")

        assertRefused(.deleted) { () throws(VaultError) in try vault.read(AuthState.self, from: "auth-state") }
    }

    func testBlobRestoredAfterDeletionIsRollback() throws {
        let vault = try sandbox.vault()
        try vault.write(AuthState.signedIn, to: "auth-state")
        let signedIn = try sandbox.blob("auth-state", in: vault)
        try vault.delete("auth-state")

        try sandbox.place(signedIn, as: "auth-state", in: vault)

        assertRefused(.rollback) { () throws(VaultError) in try sandbox.vault().read(AuthState.self, from: "auth-state") }
    }

    func testBlobRestoredAfterTheTombstoneFileWasRemovedIsRollback() throws {
        let vault = try sandbox.vault()
        try vault.write(AuthState.signedIn, to: "auth-state")
        let signedIn = try sandbox.blob("auth-state", in: vault)
        try vault.delete("auth-state")
        try FileManager.default.removeItem(at: sandbox.recordURL("auth-state", in: vault))

        try sandbox.place(signedIn, as: "auth-state", in: vault)

        assertRefused(.rollback) { () throws(VaultError) in try vault.read(AuthState.self, from: "auth-state") }
    }

    func testWriteAfterDeletionIsReadable() throws {
        let vault = try sandbox.vault()
        try vault.write(AuthState.signedIn, to: "auth-state")
        try vault.delete("auth-state")

        try vault.write(AuthState.signedInAgain, to: "auth-state")

        XCTAssertEqual(try vault.read(AuthState.self, from: "auth-state"), AuthState.signedInAgain)
    }

    func testDeletingARecordWithoutAFileStillSealsATombstone() throws {
        let vault = try sandbox.vault()

        try vault.delete("auth-state")

        assertRefused(.deleted) { () throws(VaultError) in try vault.read(AuthState.self, from: "auth-state") }
    }

    func testTombstoneTakesAHigherSequence() throws {
        let vault = try sandbox.vault()
        let written = try vault.write(AuthState.signedIn, to: "auth-state")

        try vault.delete("auth-state")

        let header = try XCTUnwrap(try vault.list().first { $0.name == "auth-state" }?.header.get())
        XCTAssertTrue(header.isTombstone)
        XCTAssertGreaterThan(header.sequence, written.sequence)
    }

    func testTombstoneWithItsFlagClearedFailsAuthentication() throws {
        let vault = try sandbox.vault()
        try vault.delete("auth-state")
        var blob = try sandbox.blob("auth-state", in: vault)
        blob[7] &= ~0x01

        try sandbox.place(blob, as: "auth-state", in: vault)

        assertRefused(.authenticationFailed) { () throws(VaultError) in try vault.read(AuthState.self, from: "auth-state") }
    }
}
