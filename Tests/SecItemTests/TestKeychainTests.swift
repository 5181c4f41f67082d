// These tests exercise the Linux emulator; on Apple platforms SecItem is the real framework.
#if !canImport(Darwin)
import Foundation
import Keyring
import Security
import KeyringTestSupport
import XCTest

/// Each KeyringTestSupport switch does what its documentation says.
final class TestKeychainTests: XCTestCase {
    private func item(_ account: String = "me") -> [String: Any] {
        [kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: "api", kSecAttrAccount as String: account,
         kSecValueData as String: Data("secret".utf8)]
    }

    private func query(_ account: String = "me") -> [String: Any] {
        [kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: "api", kSecAttrAccount as String: account,
         kSecReturnData as String: true]
    }

    func testSecItemCallsUseTheTestKeychain() throws {
        let keychain = try TestKeychain()
        defer { keychain.restore() }
        XCTAssertEqual(SecItemAdd(item() as CFDictionary, nil), errSecSuccess)
        XCTAssertEqual(try keychain.keyring.item(matching: ItemQuery(service: "api", account: "me")).secret, Data("secret".utf8))
    }

    func testRestorePutsThePreviousProcessKeyringBack() throws {
        let outer = try TestKeychain()
        defer { outer.restore() }
        XCTAssertEqual(SecItemAdd(item("outer") as CFDictionary, nil), errSecSuccess)
        let inner = try TestKeychain()
        XCTAssertEqual(SecItemCopyMatching(query("outer") as CFDictionary, nil), errSecItemNotFound, "a fresh home")
        inner.restore()
        XCTAssertEqual(SecItemCopyMatching(query("outer") as CFDictionary, nil), errSecSuccess)
    }

    func testRestoreDeletesTheTemporaryDirectory() throws {
        let keychain = try TestKeychain()
        XCTAssertEqual(SecItemAdd(item() as CFDictionary, nil), errSecSuccess)
        keychain.restore()
        XCTAssertFalse(FileManager.default.fileExists(atPath: keychain.directory.path))
    }

    func testFailNextOperationWithMissingEntitlementFailsOnlyTheNextCall() throws {
        let keychain = try TestKeychain()
        defer { keychain.restore() }
        keychain.failNextOperation(with: .missingEntitlement)
        XCTAssertEqual(SecItemAdd(item() as CFDictionary, nil), errSecMissingEntitlement)
        XCTAssertEqual(SecItemAdd(item() as CFDictionary, nil), errSecSuccess)
    }

    func testFailNextOperationWithInteractionNotAllowedFailsAReadOfAnExistingItem() throws {
        let keychain = try TestKeychain()
        defer { keychain.restore() }
        XCTAssertEqual(SecItemAdd(item() as CFDictionary, nil), errSecSuccess)
        keychain.failNextOperation(with: .interactionNotAllowed)
        XCTAssertEqual(SecItemCopyMatching(query() as CFDictionary, nil), errSecInteractionNotAllowed)
        XCTAssertEqual(SecItemCopyMatching(query() as CFDictionary, nil), errSecSuccess)
    }

    func testRestoreDisarmsAPendingFailure() throws {
        let outer = try TestKeychain()
        defer { outer.restore() }
        let inner = try TestKeychain()
        inner.failNextOperation(with: .notAvailable)
        inner.restore()
        XCTAssertEqual(SecItemAdd(item() as CFDictionary, nil), errSecSuccess)
    }

    func testLockStateSwitchLocksTheHome() throws {
        let keychain = try TestKeychain()
        defer { keychain.restore() }
        XCTAssertEqual(SecItemAdd(item() as CFDictionary, nil), errSecSuccess)
        try keychain.setLockState(.locked)
        XCTAssertEqual(try keychain.lockState(), .locked)
        XCTAssertEqual(SecItemCopyMatching(query() as CFDictionary, nil), errSecInteractionNotAllowed)
    }

    func testUserPresenceSwitchIsRestored() throws {
        let before = UserPresence.response
        let keychain = try TestKeychain()
        keychain.userPresence = .deny
        XCTAssertEqual(UserPresence.response, .deny)
        keychain.restore()
        XCTAssertEqual(UserPresence.response, before)
    }

    func testInlineEntitlementsExpandTheTeamPrefix() throws {
        let identity = try TestKeychain.identity(entitlements: """
            <plist version="1.0"><dict>
              <key>keychain-access-groups</key>
              <array><string>$(AppIdentifierPrefix)com.example.shared</string></array>
            </dict></plist>
            """, teamID: "ABCDE12345", bundleID: "com.example.app")
        XCTAssertEqual(identity.keychainAccessGroups.map(\.rawValue), ["ABCDE12345.com.example.shared"])
    }

    func testBuilderRefusesAMalformedGroup() {
        XCTAssertThrowsError(try TestKeychain.identity(keychainAccessGroups: ["$(TeamIdentifierPrefix)x"])) { error in
            XCTAssertEqual((error as? KeyringError)?.status, .invalidParameter)
        }
    }

    func testActingAsAnotherIdentityChangesWhatIsVisible() throws {
        let keychain = try TestKeychain(keychainAccessGroups: ["ABCDE12345.com.example.shared"])
        defer { keychain.restore() }
        XCTAssertEqual(SecItemAdd(item() as CFDictionary, nil), errSecSuccess)
        keychain.act(as: try TestKeychain.identity(bundleID: "com.example.other"))
        XCTAssertEqual(SecItemCopyMatching(query() as CFDictionary, nil), errSecItemNotFound)
        keychain.act(as: try TestKeychain.identity(bundleID: "com.example.widget", keychainAccessGroups: ["ABCDE12345.com.example.shared"]))
        XCTAssertEqual(SecItemCopyMatching(query() as CFDictionary, nil), errSecSuccess)
    }

    func testLastErrorExplainsTheFailure() throws {
        let keychain = try TestKeychain()
        defer { keychain.restore() }
        XCTAssertEqual(SecItemCopyMatching(query("nobody") as CFDictionary, nil), errSecItemNotFound)
        let error = try XCTUnwrap(ProcessKeyring.lastError)
        XCTAssertEqual(error.status, .itemNotFound)
        XCTAssertTrue(error.reason.hasPrefix("SecItemCopyMatching: "), error.reason)
        XCTAssertTrue(error.reason.contains("nobody"), error.reason)
    }
}
#endif
