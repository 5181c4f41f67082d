// These tests exercise the Linux emulator; on Apple platforms SecItem is the real framework.
#if !canImport(Darwin)
import Foundation
import Keyring
import Security
import XCTest

/// `SecAccessControlCreateWithFlags` and items protected by user presence, answered by the
/// native `UserPresence` policy.
final class SecAccessControlTests: SecItemTestCase {
    private func protectedItem(account: String = "me") throws -> [String: Any] {
        var error: Unmanaged<CFError>?
        guard let access = SecAccessControlCreateWithFlags(kCFAllocatorDefault, kSecAttrAccessibleWhenUnlockedThisDeviceOnly, .userPresence, &error) else {
            throw error!.takeRetainedValue() as Error
        }
        return genericPassword(account: account, [kSecAttrAccessControl as String: access])
    }

    func testFlagsHaveAppleBitValues() {
        XCTAssertEqual(SecAccessControlCreateFlags.userPresence.rawValue, 1 << 0)
        XCTAssertEqual(SecAccessControlCreateFlags.biometryAny.rawValue, 1 << 1)
        XCTAssertEqual(SecAccessControlCreateFlags.biometryCurrentSet.rawValue, 1 << 3)
        XCTAssertEqual(SecAccessControlCreateFlags.devicePasscode.rawValue, 1 << 4)
        XCTAssertEqual(SecAccessControlCreateFlags.or.rawValue, 1 << 14)
        XCTAssertEqual(SecAccessControlCreateFlags.and.rawValue, 1 << 15)
        XCTAssertEqual(SecAccessControlCreateFlags.privateKeyUsage.rawValue, 1 << 30)
        XCTAssertEqual(SecAccessControlCreateFlags.applicationPassword.rawValue, 1 << 31)
    }

    func testUnknownProtectionFailsWithParamError() throws {
        var error: Unmanaged<CFError>?
        XCTAssertNil(SecAccessControlCreateWithFlags(nil, "sometimes" as CFString, .userPresence, &error))
        let failure = try XCTUnwrap(error?.takeRetainedValue())
        XCTAssertEqual(failure.domain, NSOSStatusErrorDomain)
        XCTAssertEqual(failure.code, Int(errSecParam))
    }

    func testOrTogetherWithAndFails() {
        XCTAssertNil(SecAccessControlCreateWithFlags(nil, kSecAttrAccessibleWhenUnlocked, [.biometryAny, .devicePasscode, .or, .and], nil))
    }

    func testUnknownFlagBitsFail() {
        XCTAssertNil(SecAccessControlCreateWithFlags(nil, kSecAttrAccessibleWhenUnlocked, SecAccessControlCreateFlags(rawValue: 1 << 20), nil))
    }

    func testAccessControlProtectionIsTheItemsAccessibility() throws {
        XCTAssertEqual(add(try protectedItem()), errSecSuccess)
        let attributes = try XCTUnwrap(copy(genericPassword([kSecReturnAttributes as String: true])).result as? [String: Any])
        XCTAssertEqual(attributes[kSecAttrAccessible as String] as? String, kSecAttrAccessibleWhenUnlockedThisDeviceOnly as String)
        XCTAssertNotNil(attributes[kSecAttrAccessControl as String] as? SecAccessControl)
    }

    func testProtectedSecretIsReadWhenThePersonApproves() throws {
        XCTAssertEqual(add(try protectedItem(), secret: "face-id"), errSecSuccess)
        keychain.userPresence = .approve
        XCTAssertEqual(copy(genericPassword([kSecReturnData as String: true])).result as? Data, Data("face-id".utf8))
    }

    func testProtectedSecretIsUserCanceledWhenThePersonDenies() throws {
        XCTAssertEqual(add(try protectedItem()), errSecSuccess)
        keychain.userPresence = .deny
        XCTAssertEqual(copy(genericPassword([kSecReturnData as String: true])).status, errSecUserCanceled)
    }

    func testProtectedSecretIsAuthFailedWithoutBiometryOrPasscode() throws {
        XCTAssertEqual(add(try protectedItem()), errSecSuccess)
        keychain.userPresence = .unavailable
        XCTAssertEqual(copy(genericPassword([kSecReturnData as String: true])).status, errSecAuthFailed)
    }

    func testAttributesOfAProtectedItemNeedNoPrompt() throws {
        XCTAssertEqual(add(try protectedItem()), errSecSuccess)
        keychain.userPresence = .deny
        XCTAssertEqual(copy(genericPassword([kSecReturnAttributes as String: true])).status, errSecSuccess)
    }

    func testAuthenticationUIFailRefusesInsteadOfPrompting() throws {
        XCTAssertEqual(add(try protectedItem()), errSecSuccess)
        keychain.userPresence = .approve
        let query = genericPassword([kSecReturnData as String: true, kSecUseAuthenticationUI as String: kSecUseAuthenticationUIFail])
        XCTAssertEqual(copy(query).status, errSecInteractionNotAllowed)
    }

    func testAuthenticationUISkipLeavesOutProtectedItems() throws {
        XCTAssertEqual(add(try protectedItem(account: "protected")), errSecSuccess)
        XCTAssertEqual(add(genericPassword(account: "plain"), secret: "plain-secret"), errSecSuccess)
        keychain.userPresence = .deny
        let query: [String: Any] = [
            kSecClass as String: kSecClassGenericPassword, kSecReturnData as String: true,
            kSecMatchLimit as String: kSecMatchLimitAll, kSecUseAuthenticationUI as String: kSecUseAuthenticationUISkip,
        ]
        let (status, result) = copy(query)
        XCTAssertEqual(status, errSecSuccess, describe(status))
        XCTAssertEqual(result as? [Data], [Data("plain-secret".utf8)])
    }
}
#endif
