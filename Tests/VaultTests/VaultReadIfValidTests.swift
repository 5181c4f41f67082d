import Foundation
import Vault
import XCTest

/// readIfValid: nil for no record and for any refusal; every refusal's reason reported.
final class VaultReadIfValidTests: VaultTestCase {
    final class Refusals: @unchecked Sendable {
        var codes: [VaultError.Code] = []
        func report(_ error: VaultError) { codes.append(error.code) }
    }

    func testValidRecordIsReturnedWithoutAReport() throws {
        let vault = try sandbox.vault()
        try vault.write(AuthState.signedIn, to: "auth-state")
        let refusals = Refusals()

        let state = vault.readIfValid(AuthState.self, from: "auth-state", onRefusal: refusals.report)

        XCTAssertEqual(state, AuthState.signedIn)
        XCTAssertEqual(refusals.codes, [])
    }

    func testExpiredRecordIsNilAndReportedAsExpired() throws {
        let vault = try sandbox.vault()
        try vault.write(AuthState.signedIn, to: "auth-state", expiresAt: TestClock.start.addingTimeInterval(10))
        sandbox.clock.advance(by: 3600)
        let refusals = Refusals()

        XCTAssertNil(vault.readIfValid(AuthState.self, from: "auth-state", onRefusal: refusals.report))
        XCTAssertEqual(refusals.codes, [.expired])
    }

    func testRecordNeverWrittenIsNilWithoutAReport() throws {
        let refusals = Refusals()

        XCTAssertNil(try sandbox.vault().readIfValid(AuthState.self, from: "auth-state", onRefusal: refusals.report))
        XCTAssertEqual(refusals.codes, [], "a first run is not a refusal")
    }

    func testDeletedRecordIsNilWithoutAReport() throws {
        let vault = try sandbox.vault()
        try vault.write(AuthState.signedIn, to: "auth-state")
        try vault.delete("auth-state")
        let refusals = Refusals()

        XCTAssertNil(vault.readIfValid(AuthState.self, from: "auth-state", onRefusal: refusals.report))
        XCTAssertEqual(refusals.codes, [])
    }

    func testTamperedRecordIsNilAndReportedAsAuthenticationFailed() throws {
        let vault = try sandbox.vault()
        try vault.write(AuthState.signedIn, to: "auth-state")
        var blob = try sandbox.blob("auth-state", in: vault)
        blob[blob.count - 5] ^= 0x01
        try sandbox.place(blob, as: "auth-state", in: vault)
        let refusals = Refusals()

        XCTAssertNil(vault.readIfValid(AuthState.self, from: "auth-state", onRefusal: refusals.report))
        XCTAssertEqual(refusals.codes, [.authenticationFailed])
    }

    func testRefusalWithoutAHandlerIsStillNil() throws {
        let vault = try sandbox.vault()
        try vault.delete("auth-state")

        XCTAssertNil(vault.readIfValid(AuthState.self, from: "auth-state"))
    }
}
