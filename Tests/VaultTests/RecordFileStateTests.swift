import Foundation
import SealedStorage
import Vault
import XCTest

/// A record the trust ledger knows is gone only when the lookup of its file found no entry.
/// When the lookup itself fails, `recordsMissingFromDisk()` and `verifyAll()` give one answer
/// (Vault.recordFileState): not missing, and a finding with its cause, never "gone".
final class RecordFileStateTests: VaultTestCase {
    private var vault: Vault!

    /// A group with record `kept`, and record `gone` whose file was removed outside GroupVault.
    override func setUpWithError() throws {
        try super.setUpWithError()
        vault = try sandbox.vault()
        try vault.write(AuthState.signedIn, to: "kept")
        try vault.write(AuthState.signedIn, to: "gone")
        try FileManager.default.removeItem(at: sandbox.recordURL("gone", in: vault))
    }

    override func tearDown() {
        vault = nil
        super.tearDown()
    }

    /// Runs `body` with the `lstat` of `gone`'s record file failing with EACCES: `body` is run
    /// once warm and traced, to count the `lstat`s before that one, then with it failing.
    private func withTheLookupOfGoneFailing<Result>(_ body: () throws -> Result) throws -> Result {
        try FileLayerDriver.with { driver in
            _ = try body()
            driver.clearTrace()
            _ = try body()
            let lookups = driver.trace.filter { $0.call == .status }
            let index = try XCTUnwrap(lookups.firstIndex { $0.name == "gone.gvr" }, "\(driver.trace)")
            driver.fail(.call(.status), with: .permissionDenied, afterPassing: index)
            return try body()
        }
    }

    func testARecordFileThatCannotBeInspectedIsNotMissingFromDisk() throws {
        XCTAssertEqual(try vault.recordsMissingFromDisk(), ["gone"])

        let missing = try withTheLookupOfGoneFailing { try vault.recordsMissingFromDisk() }

        XCTAssertEqual(missing, [])
    }

    func testVerificationReportsARecordFileThatCannotBeInspectedWithItsCauseNotAsGone() throws {
        let report = try withTheLookupOfGoneFailing { try vault.verifyAll() }

        XCTAssertEqual(report.passed, 1)
        XCTAssertEqual(report.findings.map(\.name), ["gone"])
        let finding = try XCTUnwrap(report.findings.first).error
        XCTAssertEqual(finding.code, .storage)
        XCTAssertFalse(finding.reason.contains("file is gone"), finding.reason)
        XCTAssertTrue(finding.reason.contains("gone.gvr"), finding.reason)
    }
}
