import Foundation
import Keyring
import SealedStorage
import Vault
import XCTest

final class VaultRoundTripTests: VaultTestCase {
    func testWrittenRecordReadsBackEqual() throws {
        let vault = try sandbox.vault()

        try vault.write(AuthState.signedIn, to: "auth-state")

        XCTAssertEqual(try vault.read(AuthState.self, from: "auth-state"), AuthState.signedIn)
    }

    func testRecordWrittenByOneVaultReadsFromAFreshVaultOverTheSameHome() throws {
        try sandbox.vault().write(AuthState.signedIn, to: "auth-state")

        XCTAssertEqual(try sandbox.vault().read(AuthState.self, from: "auth-state"), AuthState.signedIn)
    }

    func testWriteReturnsTheSealedHeader() throws {
        let vault = try sandbox.vault()
        let expiry = TestClock.start.addingTimeInterval(3600)

        let header = try vault.write(AuthState.signedIn, to: "auth-state", expiresAt: expiry)

        let primary = try sandbox.keyring.groupKey(for: VaultSandbox.group)
        XCTAssertEqual(header.keyID, primary.id)
        XCTAssertEqual(header.sequence, 1)
        XCTAssertEqual(header.issuedAt, TestClock.start)
        XCTAssertEqual(header.expiresAt, expiry)
        XCTAssertEqual(header.schemaVersion, AuthState.schemaVersion)
        XCTAssertFalse(header.isTombstone)
    }

    func testReadWithHeaderReturnsTheValueReadWithTheHeaderItsWriteSealed() throws {
        let vault = try sandbox.vault()
        try vault.write(AuthState.signedIn, to: "auth-state")
        let latest = try vault.write(AuthState.signedOut, to: "auth-state")

        let (value, header) = try vault.readWithHeader(AuthState.self, from: "auth-state")

        XCTAssertEqual(value, AuthState.signedOut)
        XCTAssertEqual(header, latest)
    }

    func testEachWriteTakesTheNextSequence() throws {
        let vault = try sandbox.vault()

        let first = try vault.write(AuthState.signedIn, to: "auth-state")
        let second = try vault.write(AuthState.signedOut, to: "auth-state")

        XCTAssertEqual(second.sequence, first.sequence + 1)
    }

    func testLatestWriteIsWhatIsRead() throws {
        let vault = try sandbox.vault()

        try vault.write(AuthState.signedIn, to: "auth-state")
        try vault.write(AuthState.signedOut, to: "auth-state")

        XCTAssertEqual(try vault.read(AuthState.self, from: "auth-state"), AuthState.signedOut)
    }

    func testReadingARecordNeverWrittenIsNotFound() throws {
        let vault = try sandbox.vault()

        assertRefused(.notFound) { () throws(VaultError) in try vault.read(AuthState.self, from: "auth-state") }
    }

    func testWritingAValueItsOwnValidationRefusesIsInvalidRecord() throws {
        let vault = try sandbox.vault()
        let inconsistent = AuthState(isAuthenticated: true, displayName: nil, tokenDigest: nil)

        assertRefused(.invalidRecord) { () throws(VaultError) in try vault.write(inconsistent, to: "auth-state") }
        XCTAssertFalse(FileManager.default.fileExists(atPath: sandbox.recordURL("auth-state", in: vault).path))
    }

    func testPayloadOverTheLimitIsTooLarge() throws {
        struct Blob: VaultRecord { static let schemaVersion: UInt32 = 1; var text: String }
        let vault = try sandbox.vault()

        assertRefused(.tooLarge) { () throws(VaultError) in
            try vault.write(Blob(text: String(repeating: "x", count: 1 << 20)), to: "big")
        }
    }

    func testUnrepresentableExpiryIsInvalidArgument() throws {
        let vault = try sandbox.vault()

        assertRefused(.invalidArgument) { () throws(VaultError) in
            try vault.write(AuthState.signedIn, to: "auth-state", expiresAt: Date(timeIntervalSince1970: 1e300))
        }
    }

    func testRecordFileIsReadableByItsOwnerOnly() throws {
        let vault = try sandbox.vault()

        try vault.write(AuthState.signedIn, to: "auth-state")

        let attributes = try FileManager.default.attributesOfItem(atPath: sandbox.recordURL("auth-state", in: vault).path)
        XCTAssertEqual((attributes[.posixPermissions] as? NSNumber)?.uint16Value, 0o600)
    }

    func testRecordFileDoesNotContainThePlaintext() throws {
        let vault = try sandbox.vault()

        try vault.write(AuthState.signedIn, to: "auth-state")

        let blob = try sandbox.blob("auth-state", in: vault)
        let plaintext = Array(#""displayName":"Ada""#.utf8)
        let found = (0...(blob.count - plaintext.count)).contains { Array(blob[$0..<($0 + plaintext.count)]) == plaintext }
        XCTAssertFalse(found)
    }

    func testInjectedNonceSourceSuppliesTheBlobNonce() throws {
        let fixed = try XChaCha20Poly1305.Nonce(bytes: (0x40..<0x58).map { UInt8($0) })
        let vault = try Vault(keyring: sandbox.keyring, group: VaultSandbox.group, clock: sandbox.clock.source, nonceSource: { fixed })

        try vault.write(AuthState.signedIn, to: "auth-state")

        XCTAssertEqual(Array(try sandbox.blob("auth-state", in: vault)[48..<72]), fixed.bytes)
    }

    func testRandomNoncesDifferBetweenWritesOfTheSameValue() throws {
        let vault = try sandbox.vault()

        try vault.write(AuthState.signedIn, to: "a")
        try vault.write(AuthState.signedIn, to: "b")

        XCTAssertNotEqual(Array(try sandbox.blob("a", in: vault)[48..<72]), Array(try sandbox.blob("b", in: vault)[48..<72]))
    }
}
