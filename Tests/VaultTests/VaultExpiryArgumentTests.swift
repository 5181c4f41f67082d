import Foundation
import Vault
import XCTest

/// An expiry that cannot be written is refused as `invalidArgument`, and the refusal's message
/// never formats a value that could trap (the attack pass's NaN expiry killed the writer while
/// its error message was being built).
final class VaultExpiryArgumentTests: VaultTestCase {
    private func assertExpiryRefused(_ expiry: Date, shownAs shown: String, file: StaticString = #filePath, line: UInt = #line) throws {
        let vault = try sandbox.vault()
        do {
            let header = try vault.write(AuthState.signedIn, to: "auth-state", expiresAt: expiry)
            XCTFail("expected invalidArgument, wrote \(header)", file: file, line: line)
        } catch {
            XCTAssertEqual(error.code, .invalidArgument, "\(error)", file: file, line: line)
            XCTAssertTrue(error.reason.contains(shown), "the reason shows the expiry as \(shown): \(error.reason)", file: file, line: line)
        }
        XCTAssertEqual(try vault.list().count, 0, "nothing was published", file: file, line: line)
    }

    func testNaNExpiryIsInvalidArgument() throws {
        try assertExpiryRefused(Date(timeIntervalSince1970: .nan), shownAs: "nan")
    }

    func testInfiniteExpiryIsInvalidArgument() throws {
        try assertExpiryRefused(Date(timeIntervalSince1970: .infinity), shownAs: "inf")
        try assertExpiryRefused(Date(timeIntervalSince1970: -.infinity), shownAs: "-inf")
    }

    func testExpiryBeyondTheRepresentableRangeIsInvalidArgument() throws {
        try assertExpiryRefused(Date(timeIntervalSince1970: 1e300), shownAs: "1e+300 s")
    }
}
