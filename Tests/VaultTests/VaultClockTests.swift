import Foundation
import Vault
import XCTest

/// Expiry and issue time, with the clock-skew allowance both ways (clocks injected).
final class VaultClockTests: VaultTestCase {
    let allowance: TimeInterval = 60

    func testRecordIsAcceptedAtExactlyExpiryPlusAllowance() throws {
        let vault = try sandbox.vault(clockSkewAllowance: allowance)
        try vault.write(AuthState.signedIn, to: "auth-state", expiresAt: TestClock.start.addingTimeInterval(600))

        sandbox.clock.set(TestClock.start.addingTimeInterval(600 + allowance))

        XCTAssertEqual(try vault.read(AuthState.self, from: "auth-state"), AuthState.signedIn)
    }

    func testRecordPastExpiryButWithinAllowanceIsAccepted() throws {
        let vault = try sandbox.vault(clockSkewAllowance: allowance)
        try vault.write(AuthState.signedIn, to: "auth-state", expiresAt: TestClock.start.addingTimeInterval(600))

        sandbox.clock.set(TestClock.start.addingTimeInterval(601))

        XCTAssertEqual(try vault.read(AuthState.self, from: "auth-state"), AuthState.signedIn)
    }

    func testRecordBeyondExpiryPlusAllowanceIsExpired() throws {
        let vault = try sandbox.vault(clockSkewAllowance: allowance)
        try vault.write(AuthState.signedIn, to: "auth-state", expiresAt: TestClock.start.addingTimeInterval(600))

        sandbox.clock.set(TestClock.start.addingTimeInterval(600 + allowance + 0.001))

        assertRefused(.expired) { () throws(VaultError) in try vault.read(AuthState.self, from: "auth-state") }
    }

    func testZeroAllowanceExpiresRightAfterExpiry() throws {
        let vault = try sandbox.vault(clockSkewAllowance: 0)
        try vault.write(AuthState.signedIn, to: "auth-state", expiresAt: TestClock.start.addingTimeInterval(600))

        sandbox.clock.set(TestClock.start.addingTimeInterval(600.001))

        assertRefused(.expired) { () throws(VaultError) in try vault.read(AuthState.self, from: "auth-state") }
    }

    func testRecordWithoutExpiryIsAcceptedFarInTheFuture() throws {
        let vault = try sandbox.vault(clockSkewAllowance: allowance)
        try vault.write(AuthState.signedIn, to: "auth-state")

        sandbox.clock.advance(by: 100 * 365 * 86_400)

        XCTAssertEqual(try vault.read(AuthState.self, from: "auth-state"), AuthState.signedIn)
    }

    func testRecordIssuedExactlyAllowanceAheadOfTheReaderIsAccepted() throws {
        try sandbox.vault(clockSkewAllowance: allowance).write(AuthState.signedIn, to: "auth-state")
        let readerClock = TestClock(TestClock.start.addingTimeInterval(-allowance))

        let reader = try sandbox.vault(clockSkewAllowance: allowance, clock: readerClock)

        XCTAssertEqual(try reader.read(AuthState.self, from: "auth-state"), AuthState.signedIn)
    }

    func testRecordIssuedBeyondAllowanceAheadOfTheReaderIsIssuedInFuture() throws {
        try sandbox.vault(clockSkewAllowance: allowance).write(AuthState.signedIn, to: "auth-state")
        let readerClock = TestClock(TestClock.start.addingTimeInterval(-allowance - 0.001))

        let reader = try sandbox.vault(clockSkewAllowance: allowance, clock: readerClock)

        assertRefused(.issuedInFuture) { () throws(VaultError) in try reader.read(AuthState.self, from: "auth-state") }
    }

    func testExpiryIsJudgedWithTheReadersAllowance() throws {
        try sandbox.vault(clockSkewAllowance: allowance)
            .write(AuthState.signedIn, to: "auth-state", expiresAt: TestClock.start.addingTimeInterval(600))
        sandbox.clock.set(TestClock.start.addingTimeInterval(600 + 30))

        let strict = try sandbox.vault(clockSkewAllowance: 10)

        assertRefused(.expired) { () throws(VaultError) in try strict.read(AuthState.self, from: "auth-state") }
    }
}
