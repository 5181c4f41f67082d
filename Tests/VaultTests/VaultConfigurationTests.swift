import Foundation
import Keyring
import Vault
import XCTest

final class VaultConfigurationTests: VaultTestCase {
    func testIdentityNotEntitledToTheGroupIsMissingEntitlement() throws {
        let stranger = Keyring(
            identity: Identity(teamID: "ZZZZZ99999", bundleID: "com.other.app", applicationGroups: [VaultSandbox.otherGroup]),
            home: sandbox.home)

        assertRefused(.missingEntitlement) { () throws(VaultError) in try Vault(keyring: stranger, group: VaultSandbox.group) }
    }

    func testIdentityWithTheAccessGroupButNotTheApplicationGroupIsMissingEntitlement() throws {
        // A keychain access group alone gives the keys but not the container.
        let keychainOnly = Keyring(
            identity: Identity(teamID: "ABCDE12345", bundleID: "com.example.app", keychainAccessGroups: [VaultSandbox.group]),
            home: sandbox.home)

        assertRefused(.missingEntitlement) { () throws(VaultError) in try Vault(keyring: keychainOnly, group: VaultSandbox.group) }
    }

    func testNegativeClockSkewAllowanceIsInvalidArgument() throws {

        assertRefused(.invalidArgument) { () throws(VaultError) in try sandbox.vault(clockSkewAllowance: -1) }
    }

    func testInfiniteClockSkewAllowanceIsInvalidArgument() throws {

        assertRefused(.invalidArgument) { () throws(VaultError) in try sandbox.vault(clockSkewAllowance: .infinity) }
    }

    func testDefaultClockSkewAllowanceIsTheDocumentedOne() throws {

        let vault = try Vault(keyring: sandbox.keyring, group: VaultSandbox.group)

        XCTAssertEqual(vault.clockSkewAllowance, Vault.defaultClockSkewAllowance)
    }

    func testRecordsLiveInTheGroupContainer() throws {
        let vault = try sandbox.vault()

        let container = try XCTUnwrap(try sandbox.keyring.containerURL(for: VaultSandbox.group))

        XCTAssertEqual(vault.recordsDirectory.string, container.appendingPathComponent("GroupVault/records").path)
    }

    func testOpeningAVaultCreatesItsRecordsDirectory() throws {

        let vault = try sandbox.vault()

        var isDirectory: ObjCBool = false
        XCTAssertTrue(FileManager.default.fileExists(atPath: vault.recordsDirectory.string, isDirectory: &isDirectory))
        XCTAssertTrue(isDirectory.boolValue)
    }
}
