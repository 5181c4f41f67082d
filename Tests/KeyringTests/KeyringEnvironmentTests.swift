import Keyring
import XCTest

/// `Keyring.fromEnvironment`: the process keyring as the environment describes it.
final class KeyringEnvironmentTests: XCTestCase {
    private let base = ["GROUPVAULT_TEAM_ID": "ABCDE12345", "GROUPVAULT_BUNDLE_ID": "com.example.notes", "GROUPVAULT_HOME": "/tmp/unused-home"]

    func testUnixGroupSharingIsSelectedByTheEnvironment() throws {
        let keyring = try Keyring.fromEnvironment(base.merging(["GROUPVAULT_SHARING": "unixGroup"]) { $1 })
        XCTAssertEqual(keyring.home.sharing, .unixGroup)
    }

    func testSharingDefaultsToOwnerOnly() throws {
        XCTAssertEqual(try Keyring.fromEnvironment(base).home.sharing, .ownerOnly)
    }

    func testNoIdentityConfiguredFailsAtOnceSayingHowToConfigureOne() {
        // Empty variables count as unset, as the identity reader treats them.
        let unconfigured = ["GROUPVAULT_HOME": "/tmp/unused-home", "GROUPVAULT_ENTITLEMENTS": ""]
        XCTAssertThrowsError(try Keyring.fromEnvironment(unconfigured)) { error in
            let error = error as? KeyringError
            XCTAssertEqual(error?.status, .missingEntitlement)
            XCTAssertTrue(error?.reason.hasPrefix("no identity configured: set GROUPVAULT_ENTITLEMENTS") ?? false, "\(String(describing: error))")
        }
    }

    func testATeamAndBundleIdentifierAloneAreAnIdentity() throws {
        let keyring = try Keyring.fromEnvironment(base)
        XCTAssertEqual(keyring.identity.applicationIdentifier?.rawValue, "ABCDE12345.com.example.notes")
    }

    func testAMisspelledSharingModeIsRefusedRatherThanIgnored() {
        XCTAssertThrowsError(try Keyring.fromEnvironment(base.merging(["GROUPVAULT_SHARING": "group"]) { $1 })) { error in
            let error = error as? KeyringError
            XCTAssertEqual(error?.status, .invalidParameter)
            XCTAssertTrue(error?.reason.contains("GROUPVAULT_SHARING") ?? false, "\(String(describing: error))")
            XCTAssertTrue(error?.reason.contains("unixGroup") ?? false, "the reason lists the valid values")
        }
    }
}
