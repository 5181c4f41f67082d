import Foundation
import Keyring
import SharedDefaults
import XCTest

/// `SharedDefaults(suiteName:)` is nil for a group the identity is not entitled to, like Apple's.
final class SharedDefaultsEntitlementTests: XCTestCase {
    private var sandbox: DefaultsSandbox!

    override func setUpWithError() throws { sandbox = try DefaultsSandbox() }
    override func tearDown() { sandbox.remove() }

    func testSuiteOfAnEntitledGroupOpens() {
        XCTAssertNotNil(SharedDefaults(suiteName: DefaultsSandbox.group.rawValue, keyring: sandbox.keyring))
    }

    func testSuiteOfAGroupTheIdentityIsNotEntitledToIsNil() {
        XCTAssertNil(SharedDefaults(suiteName: DefaultsSandbox.otherGroup.rawValue, keyring: sandbox.keyring))
    }

    func testSuiteNameThatIsNotAGroupIsNil() {
        XCTAssertNil(SharedDefaults(suiteName: "com.example.app", keyring: sandbox.keyring))
        XCTAssertNil(SharedDefaults(suiteName: "", keyring: sandbox.keyring))
    }

    func testEnvironmentInitializerIsNilWithoutAnIdentity() {
        // The test process has no GROUPVAULT_* identity, so no group is reachable.
        if ProcessInfo.processInfo.environment["GROUPVAULT_ENTITLEMENTS"] == nil {
            XCTAssertNil(SharedDefaults(suiteName: DefaultsSandbox.group.rawValue))
        }
    }

    func testThrowingInitializerSaysWhichEntitlementIsMissing() {
        let appOnly = Keyring(
            identity: Identity(teamID: "ABCDE12345", bundleID: "com.example.app", applicationGroups: []),
            home: sandbox.home)
        do {
            _ = try SharedDefaults(suiteName: "s", group: DefaultsSandbox.group, keyring: appOnly)
            XCTFail("opened a suite without the entitlement")
        } catch {
            XCTAssertEqual(error.code, .missingEntitlement)
            XCTAssertEqual(error.vaultError?.code, .missingEntitlement)
            XCTAssertTrue(error.reason.contains(DefaultsSandbox.group.rawValue), error.reason)
        }
    }

    func testValidatingInitializerOpensAnEntitledGroupsSuite() throws {
        let defaults = try SharedDefaults(validatingSuiteName: DefaultsSandbox.group.rawValue, keyring: sandbox.keyring)
        XCTAssertEqual(defaults.group, DefaultsSandbox.group)
    }

    func testValidatingInitializerSaysWhichGroupIsNotEntitled() {
        assertRefused(.missingEntitlement) { () throws(SharedDefaultsError) in
            _ = try SharedDefaults(validatingSuiteName: DefaultsSandbox.otherGroup.rawValue, keyring: sandbox.keyring)
        }
    }

    func testValidatingInitializerSaysASuiteNamedAloneMustBeAGroup() {
        assertRefused(.invalidSuiteName) { () throws(SharedDefaultsError) in
            _ = try SharedDefaults(validatingSuiteName: "com.example.app", keyring: sandbox.keyring)
        }
    }

    func testValidatingInitializerWithoutAKeyringOrAnIdentitySaysNoIdentityIsConfigured() throws {
        try XCTSkipIf(Keyring.identityVariables.contains { !(ProcessInfo.processInfo.environment[$0] ?? "").isEmpty },
                      "this test process was given an identity")
        do {
            _ = try SharedDefaults(validatingSuiteName: DefaultsSandbox.group.rawValue)
            XCTFail("opened a suite with no identity configured")
        } catch {
            XCTAssertEqual(error.code, .missingEntitlement)
            XCTAssertTrue(error.reason.hasPrefix("no identity configured"), error.reason)
        }
    }

    func testOverlongSuiteNameIsRefused() {
        assertRefused(.invalidSuiteName) { () throws(SharedDefaultsError) in
            try SharedDefaults(suiteName: String(repeating: "s", count: SharedDefaults.maximumSuiteNameLength + 1), group: DefaultsSandbox.group, keyring: sandbox.keyring)
        }
    }
}
