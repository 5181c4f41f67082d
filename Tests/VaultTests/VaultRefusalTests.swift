import Foundation
import Keyring
import SealedStorage
import Vault
import XCTest

/// Each refusal on the read path that concerns the blob itself, one code per test.
final class VaultRefusalTests: VaultTestCase {
    func testZeroLengthFileIsMalformed() throws {
        let vault = try sandbox.vault()
        try sandbox.place([], as: "auth-state", in: vault)

        assertRefused(.malformed) { () throws(VaultError) in try vault.read(AuthState.self, from: "auth-state") }
    }

    func testTruncatedFileIsMalformed() throws {
        let vault = try sandbox.vault()
        try vault.write(AuthState.signedIn, to: "auth-state")
        let blob = try sandbox.blob("auth-state", in: vault)

        try sandbox.place(Array(blob.dropLast(10)), as: "auth-state", in: vault)

        assertRefused(.malformed) { () throws(VaultError) in try vault.read(AuthState.self, from: "auth-state") }
    }

    func testFileLargerThanAnyBlobIsMalformed() throws {
        let vault = try sandbox.vault()
        try sandbox.place([UInt8](repeating: 0x47, count: BlobFormat.maximumBlobSize + 1), as: "auth-state", in: vault)

        assertRefused(.malformed) { () throws(VaultError) in try vault.read(AuthState.self, from: "auth-state") }
    }

    func testNewerFormatVersionIsUnsupportedFormat() throws {
        let vault = try sandbox.vault()
        try vault.write(AuthState.signedIn, to: "auth-state")
        var blob = try sandbox.blob("auth-state", in: vault)
        blob[4] = 2

        try sandbox.place(blob, as: "auth-state", in: vault)

        assertRefused(.unsupportedFormat) { () throws(VaultError) in try vault.read(AuthState.self, from: "auth-state") }
    }

    func testBlobNamingAKeyTheKeysetNeverHadIsUnknownKey() throws {
        let vault = try sandbox.vault()
        try vault.write(AuthState.signedIn, to: "other")  // the keyset exists, with key 1 only
        let header = BlobHeader(
            flags: [], keyID: 99, sequence: 1, issuedAtMilliseconds: 1_700_000_000_000, expiresAtMilliseconds: 0,
            schemaVersion: 1, nonce: .random())
        let blob = BlobFormat.seal(
            header: header, plaintext: Array(#"{"isAuthenticated":false}"#.utf8), key: SymmetricKey(),
            group: VaultSandbox.group, name: try RecordName(validating: "auth-state"))

        try sandbox.place(blob, as: "auth-state", in: vault)

        assertRefused(.unknownKey) { () throws(VaultError) in try vault.read(AuthState.self, from: "auth-state") }
    }

    func testBlobSealedWithARetiredKeyIsRetiredKey() throws {
        let vault = try sandbox.vault()
        let old = try vault.write(AuthState.signedIn, to: "auth-state").keyID
        try sandbox.keyring.rotateKey(in: VaultSandbox.group)

        try sandbox.keyring.retireKey(id: old, in: VaultSandbox.group)

        assertRefused(.retiredKey) { () throws(VaultError) in try vault.read(AuthState.self, from: "auth-state") }
    }

    func testBlobSealedWithARotatedButActiveKeyStillReads() throws {
        let vault = try sandbox.vault()
        try vault.write(AuthState.signedIn, to: "auth-state")

        try sandbox.keyring.rotateKey(in: VaultSandbox.group)

        XCTAssertEqual(try vault.read(AuthState.self, from: "auth-state"), AuthState.signedIn)
    }

    func testWriteAfterRotationUsesTheNewPrimaryKey() throws {
        let vault = try sandbox.vault()
        try vault.write(AuthState.signedIn, to: "auth-state")
        let rotated = try sandbox.keyring.rotateKey(in: VaultSandbox.group)

        let header = try vault.write(AuthState.signedInAgain, to: "auth-state")

        XCTAssertEqual(header.keyID, rotated.id)
    }

    func testAlteredCiphertextFailsAuthentication() throws {
        let vault = try sandbox.vault()
        try vault.write(AuthState.signedIn, to: "auth-state")
        var blob = try sandbox.blob("auth-state", in: vault)
        blob[BlobHeader.byteCount + 3] ^= 0x01

        try sandbox.place(blob, as: "auth-state", in: vault)

        assertRefused(.authenticationFailed) { () throws(VaultError) in try vault.read(AuthState.self, from: "auth-state") }
    }

    func testAlteredHeaderFieldFailsAuthentication() throws {
        let vault = try sandbox.vault()
        try vault.write(AuthState.signedIn, to: "auth-state", expiresAt: TestClock.start.addingTimeInterval(60))
        var blob = try sandbox.blob("auth-state", in: vault)
        blob[30] ^= 0x10  // expires-at pushed into the future

        try sandbox.place(blob, as: "auth-state", in: vault)

        assertRefused(.authenticationFailed) { () throws(VaultError) in try vault.read(AuthState.self, from: "auth-state") }
    }

    func testSymbolicLinkInPlaceOfARecordIsRefusedAsStorage() throws {
        let vault = try sandbox.vault()
        try vault.write(AuthState.signedIn, to: "real")

        try FileManager.default.createSymbolicLink(
            atPath: sandbox.recordURL("auth-state", in: vault).path,
            withDestinationPath: sandbox.recordURL("real", in: vault).path)

        assertRefused(.storage) { () throws(VaultError) in try vault.read(AuthState.self, from: "auth-state") }
    }

    func testRecordFileWritableByOthersIsRefusedAsStorage() throws {
        let vault = try sandbox.vault()
        try vault.write(AuthState.signedIn, to: "auth-state")

        try FileManager.default.setAttributes([.posixPermissions: 0o622], ofItemAtPath: sandbox.recordURL("auth-state", in: vault).path)

        assertRefused(.storage) { () throws(VaultError) in try vault.read(AuthState.self, from: "auth-state") }
    }

    func testRecordFileReadableByOthersIsStillRead() throws {
        let vault = try sandbox.vault()
        try vault.write(AuthState.signedIn, to: "auth-state")

        // Sealed and authenticated: reading it tells nobody anything, so read bits are no refusal.
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: sandbox.recordURL("auth-state", in: vault).path)

        XCTAssertEqual(try vault.read(AuthState.self, from: "auth-state"), .signedIn)
    }

    func testReadBeforeTheFirstUnlockIsAKeyringRefusal() throws {
        let vault = try sandbox.vault()
        try vault.write(AuthState.signedIn, to: "auth-state")

        try sandbox.home.setLockState(.beforeFirstUnlock)

        assertRefused(.keyring) { () throws(VaultError) in try vault.read(AuthState.self, from: "auth-state") }
    }

    func testReadWhileTheDeviceIsLockedAfterFirstUnlockSucceeds() throws {
        let vault = try sandbox.vault()
        try vault.write(AuthState.signedIn, to: "auth-state")

        try sandbox.home.setLockState(.locked)

        XCTAssertEqual(try vault.read(AuthState.self, from: "auth-state"), AuthState.signedIn)
    }

    func testRefusalReasonNeverQuotesThePlaintext() throws {
        let vault = try sandbox.vault()
        try vault.write(AuthState.signedIn, to: "auth-state")

        do {
            _ = try vault.read(Unrelated.self, from: "auth-state")
            XCTFail("an unrelated type decoded")
        } catch {
            XCTAssertEqual(error.code, .invalidRecord)
            XCTAssertFalse(error.description.contains("Ada"), error.description)
            XCTAssertFalse(error.description.contains("3f2a"), error.description)
        }
    }
}

/// A schema-1 type with a field no auth state has.
private struct Unrelated: VaultRecord {
    static let schemaVersion: UInt32 = 1
    var count: Int
}
