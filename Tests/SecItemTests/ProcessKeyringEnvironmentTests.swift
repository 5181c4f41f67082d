// These tests exercise the Linux emulator; on Apple platforms SecItem is the real framework.
#if !canImport(Darwin)
import Foundation
import GroupVaultTestKit
import Keyring
import Security
import XCTest

/// A process with no `TestKeychain` resolves its keyring from the `GROUPVAULT_*` environment,
/// as an app's identity comes from its signature; run as fixture processes so each starts fresh.
final class ProcessKeyringEnvironmentTests: XCTestCase {
    var directory: TemporaryDirectory!

    override func setUpWithError() throws {
        directory = try TemporaryDirectory()
    }

    override func tearDown() {
        directory?.remove()
    }

    /// The environment with every GROUPVAULT variable set (empty counts as unset).
    private func environment(_ values: [String: String]) -> [String: String] {
        ["GROUPVAULT_HOME": directory.url.appendingPathComponent("home").path, "GROUPVAULT_ENTITLEMENTS": "",
         "GROUPVAULT_TEAM_ID": "", "GROUPVAULT_BUNDLE_ID": "", "GROUPVAULT_SHARING": ""]
            .merging(values) { _, new in new }
    }

    func testProcessWithoutEntitlementsGetsMissingEntitlementLikeAnUnsignedApp() throws {
        let run = try FixtureProcess.run(["secitem-copy", "api", "me", "-"], environment: environment([:]))
        XCTAssertEqual(run.output, "status \(errSecMissingEntitlement)\n", run.errors)
    }

    func testMalformedEnvironmentIsNotAvailableWithTheReason() throws {
        let run = try FixtureProcess.run(["secitem-copy", "api", "me", "-"], environment: environment(["GROUPVAULT_TEAM_ID": "not-a-team"]))
        XCTAssertEqual(run.output, "status \(errSecNotAvailable)\n")
        XCTAssertTrue(run.errors.contains("GROUPVAULT_TEAM_ID"), run.errors)
    }

    func testMissingEntitlementsFileIsNotAvailableWithTheReason() throws {
        let missing = directory.url.appendingPathComponent("App.entitlements").path
        let run = try FixtureProcess.run(
            ["secitem-copy", "api", "me", "-"],
            environment: environment(["GROUPVAULT_ENTITLEMENTS": missing, "GROUPVAULT_TEAM_ID": "ABCDE12345", "GROUPVAULT_BUNDLE_ID": "com.example.app"]))
        XCTAssertEqual(run.output, "status \(errSecNotAvailable)\n")
        XCTAssertTrue(run.errors.contains("App.entitlements"), run.errors)
    }

    func testTeamAndBundleAloneGiveTheApplicationIdentifierGroup() throws {
        let run = try FixtureProcess.run(
            ["secitem-copy", "api", "me", "ABCDE12345.com.example.app"],
            environment: environment(["GROUPVAULT_TEAM_ID": "ABCDE12345", "GROUPVAULT_BUNDLE_ID": "com.example.app"]))
        XCTAssertEqual(run.output, "status \(errSecItemNotFound)\n", "entitled to its own group, which is empty: \(run.errors)")
    }
}
#endif
