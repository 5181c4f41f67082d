// These tests exercise the Linux emulator; on Apple platforms SecItem is the real framework.
#if !canImport(Darwin)
import Foundation
import Keyring
import Security
import XCTest

/// The symbols and behaviours keychain wrappers rely on, each as Apple documents it in
/// SecItem.h, SecBase.h, SecAccessControl.h and CFError.h (the error codes themselves are in
/// SecBaseStatusCodesTests).
final class SecItemAppleCompatibilityTests: SecItemTestCase {
    private func accessControl(_ protection: CFString = kSecAttrAccessibleWhenUnlocked, _ flags: SecAccessControlCreateFlags = .userPresence) throws -> SecAccessControl {
        var error: Unmanaged<CFError>?
        guard let access = SecAccessControlCreateWithFlags(kCFAllocatorDefault, protection, flags, &error) else {
            throw error!.takeRetainedValue() as Error
        }
        return access
    }

    private func persistentReference(of query: [String: Any]) throws -> Data {
        try XCTUnwrap(copy(query.merging([kSecReturnPersistentRef as String: true]) { $1 }).result as? Data)
    }

    // MARK: kSecUseNoAuthenticationUI (SecItem.h: deprecated, "u_NoAuthUI")

    func testNoAuthenticationUIHasAppleValue() {
        XCTAssertEqual(kSecUseNoAuthenticationUI as String, "u_NoAuthUI")
    }

    func testNoAuthenticationUITrueFailsInsteadOfPrompting() throws {
        // SecItem.h: with kSecUseNoAuthenticationUI true, an item that needs UI to read
        // returns errSecInteractionNotAllowed.
        XCTAssertEqual(add(genericPassword([kSecAttrAccessControl as String: try accessControl()])), errSecSuccess)
        let status = copy(genericPassword([kSecReturnData as String: true, kSecUseNoAuthenticationUI as String: true])).status
        XCTAssertEqual(status, errSecInteractionNotAllowed, describe(status))
    }

    func testNoAuthenticationUIFalseAllowsThePrompt() throws {
        XCTAssertEqual(add(genericPassword([kSecAttrAccessControl as String: try accessControl()]), secret: "s"), errSecSuccess)
        keychain.userPresence = .approve
        let (status, result) = copy(genericPassword([kSecReturnData as String: true, kSecUseNoAuthenticationUI as String: false]))
        XCTAssertEqual(status, errSecSuccess, describe(status))
        XCTAssertEqual(result as? Data, Data("s".utf8))
    }

    func testNoAuthenticationUIInTheAttributesToUpdateIsParam() {
        // It steers a search, like kSecUseAuthenticationUI; an update's attributes describe the item.
        XCTAssertEqual(add(genericPassword()), errSecSuccess)
        let status = SecItemUpdate(genericPassword() as CFDictionary, [kSecUseNoAuthenticationUI as String: true] as CFDictionary)
        XCTAssertEqual(status, errSecParam)
    }

    // MARK: CFError functions (CFError.h)

    func testCFErrorFunctionsReadTheAccessControlError() throws {
        var error: Unmanaged<CFError>?
        XCTAssertNil(SecAccessControlCreateWithFlags(nil, "never" as CFString, .userPresence, &error))
        let failure = try XCTUnwrap(error?.takeRetainedValue())
        XCTAssertEqual(CFErrorGetDomain(failure) as String, kCFErrorDomainOSStatus as String)
        XCTAssertEqual(CFErrorGetCode(failure), CFIndex(errSecParam))
        let userInfo = try XCTUnwrap(CFErrorCopyUserInfo(failure) as? [String: Any])
        XCTAssertNotNil(userInfo[kCFErrorLocalizedDescriptionKey as String] as? String)
        XCTAssertEqual(CFErrorCopyDescription(failure) as String, failure.localizedDescription)
    }

    func testCFErrorCreateRoundTripsDomainCodeAndUserInfo() throws {
        let userInfo = [
            kCFErrorLocalizedDescriptionKey as String: "denied",
            kCFErrorLocalizedFailureReasonKey as String: "locked",
            kCFErrorLocalizedRecoverySuggestionKey as String: "unlock",
        ] as CFDictionary
        let error: CFError = try XCTUnwrap(CFErrorCreate(kCFAllocatorDefault, kCFErrorDomainOSStatus, CFIndex(errSecAuthFailed), userInfo))
        XCTAssertEqual(CFErrorGetDomain(error) as String, "NSOSStatusErrorDomain")
        XCTAssertEqual(CFErrorGetCode(error), -25293)
        XCTAssertEqual(CFErrorCopyDescription(error) as String, "denied")
        XCTAssertEqual(CFErrorCopyFailureReason(error) as String?, "locked")
        XCTAssertEqual(CFErrorCopyRecoverySuggestion(error) as String?, "unlock")
        // Bridging to NSError, as keychain code does: `error as Error as NSError`.
        XCTAssertEqual((error as Error as NSError).code, -25293)
    }

    func testCFErrorUserInfoIsEmptyNotNilWhenNoneWasGiven() throws {
        let error: CFError = try XCTUnwrap(CFErrorCreate(nil, kCFErrorDomainPOSIX, 2, nil))
        XCTAssertEqual((CFErrorCopyUserInfo(error) as? [String: Any])?.count, 0)
        // CFError.h: the failure reason and recovery suggestion come from the user info only.
        XCTAssertNil(CFErrorCopyFailureReason(error) as String?)
        XCTAssertNil(CFErrorCopyRecoverySuggestion(error) as String?)
    }

    // MARK: SecAccessControlCreateFlags (SecAccessControl.h)

    func testTouchIDNamesAreTheBiometryFlags() {
        // Deprecated in iOS 11.3 as renamed: touchIDAny = biometryAny, touchIDCurrentSet = biometryCurrentSet.
        XCTAssertEqual(SecAccessControlCreateFlags.touchIDAny, .biometryAny)
        XCTAssertEqual(SecAccessControlCreateFlags.touchIDCurrentSet, .biometryCurrentSet)
        XCTAssertEqual(SecAccessControlCreateFlags.touchIDAny.rawValue, 1 << 1)
        XCTAssertEqual(SecAccessControlCreateFlags.touchIDCurrentSet.rawValue, 1 << 3)
    }

    func testAccessControlIsUsableInAnAnyHashableQuery() throws {
        // CF types are Hashable on Apple platforms; wrappers build [String: AnyHashable] queries.
        let query: [String: AnyHashable] = [
            kSecClass as String: kSecClassGenericPassword as String,
            kSecAttrService as String: "api", kSecAttrAccount as String: "me",
            kSecAttrAccessControl as String: try accessControl(),
            kSecValueData as String: Data("s".utf8),
        ]
        XCTAssertEqual(SecItemAdd(query as CFDictionary, nil), errSecSuccess)
        XCTAssertEqual(query[kSecAttrAccessControl as String], AnyHashable(try accessControl()))
    }

    func testAccessControlsWithTheSameProtectionAndFlagsAreEqual() throws {
        XCTAssertEqual(try accessControl(), try accessControl())
        XCTAssertEqual(try accessControl().hashValue, try accessControl().hashValue)
        XCTAssertNotEqual(try accessControl(kSecAttrAccessibleWhenUnlocked, .userPresence), try accessControl(kSecAttrAccessibleWhenUnlocked, .devicePasscode))
        XCTAssertNotEqual(try accessControl(kSecAttrAccessibleWhenUnlocked), try accessControl(kSecAttrAccessibleAfterFirstUnlock))
    }

    // MARK: 1. kSecReturnRef on a password query (SecItem.h: return types may be combined)

    func testAllFourReturnTypesAtOnceGiveOneDictionary() throws {
        XCTAssertEqual(add(genericPassword(), secret: "s"), errSecSuccess)
        let (status, result) = copy(genericPassword([
            kSecReturnData as String: true, kSecReturnAttributes as String: true,
            kSecReturnRef as String: true, kSecReturnPersistentRef as String: true,
        ]))
        XCTAssertEqual(status, errSecSuccess, describe(status))
        let dictionary = try XCTUnwrap(result as? [String: Any])
        XCTAssertEqual(dictionary[kSecValueData as String] as? Data, Data("s".utf8))
        XCTAssertEqual(dictionary[kSecAttrAccount as String] as? String, "me")
        XCTAssertNotNil(dictionary[kSecValuePersistentRef as String] as? Data)
        // A password has no reference object (only keys, certificates and identities do).
        XCTAssertNil(dictionary[kSecValueRef as String])
    }

    func testReturnRefAloneOnAPasswordSucceedsWithNoObject() {
        XCTAssertEqual(add(genericPassword()), errSecSuccess)
        let (status, result) = copy(genericPassword([kSecReturnRef as String: true]))
        XCTAssertEqual(status, errSecSuccess, describe(status))
        XCTAssertNil(result)
    }

    func testReturnRefOnAMissingItemIsStillItemNotFound() {
        XCTAssertEqual(copy(genericPassword([kSecReturnRef as String: true])).status, errSecItemNotFound)
    }

    // MARK: 2. kSecAttrAccount as Data (stored as given, returned as given)

    func testDataAccountIsStoredAndFoundByTheSameData() {
        let account = Data("token-key".utf8)
        XCTAssertEqual(add(genericPassword([kSecAttrAccount as String: account]), secret: "s"), errSecSuccess)
        let (status, result) = copy(genericPassword([kSecAttrAccount as String: account, kSecReturnData as String: true]))
        XCTAssertEqual(status, errSecSuccess, describe(status))
        XCTAssertEqual(result as? Data, Data("s".utf8))
    }

    func testDataAccountIsReturnedAsData() throws {
        let account = Data("token-key".utf8)
        XCTAssertEqual(add(genericPassword([kSecAttrAccount as String: account])), errSecSuccess)
        let attributes = try XCTUnwrap(copy(genericPassword([kSecAttrAccount as String: account, kSecReturnAttributes as String: true])).result as? [String: Any])
        XCTAssertEqual(attributes[kSecAttrAccount as String] as? Data, account)
        XCTAssertNil(attributes[kSecAttrAccount as String] as? String)
    }

    func testStringAccountIsStillReturnedAsString() throws {
        XCTAssertEqual(add(genericPassword(account: "me")), errSecSuccess)
        let attributes = try XCTUnwrap(copy(genericPassword([kSecReturnAttributes as String: true])).result as? [String: Any])
        XCTAssertEqual(attributes[kSecAttrAccount as String] as? String, "me")
    }

    func testDataAccountEncodingIsPartOfTheStoredItem() throws {
        // Stored with the item's attributes, so every store round-trips it.
        XCTAssertEqual(add(genericPassword([kSecAttrAccount as String: Data("k".utf8)])), errSecSuccess)
        let stored = try keychain.keyring.item(matching: ItemQuery(service: "api", account: "k"))
        XCTAssertEqual(stored.accountEncoding, .data)
    }

    func testDataAccountCanBeUpdatedAndDeleted() throws {
        let account = Data("token-key".utf8)
        let query = genericPassword([kSecAttrAccount as String: account])
        XCTAssertEqual(add(query, secret: "old"), errSecSuccess)
        XCTAssertEqual(SecItemUpdate(query as CFDictionary, [kSecValueData as String: Data("new".utf8)] as CFDictionary), errSecSuccess)
        XCTAssertEqual(copy(query.merging([kSecReturnData as String: true]) { $1 }).result as? Data, Data("new".utf8))
        XCTAssertEqual(SecItemDelete(query as CFDictionary), errSecSuccess)
        XCTAssertEqual(copy(query).status, errSecItemNotFound)
    }

    func testUpdatingTheAccountToTextReturnsText() throws {
        let query = genericPassword([kSecAttrAccount as String: Data("k".utf8)])
        XCTAssertEqual(add(query), errSecSuccess)
        XCTAssertEqual(SecItemUpdate(query as CFDictionary, [kSecAttrAccount as String: "renamed"] as CFDictionary), errSecSuccess)
        let attributes = try XCTUnwrap(copy(genericPassword(account: "renamed", [kSecReturnAttributes as String: true])).result as? [String: Any])
        XCTAssertEqual(attributes[kSecAttrAccount as String] as? String, "renamed")
    }

    func testDataAccountThatIsNotUTF8IsParamWithAReason() {
        let status = add(genericPassword([kSecAttrAccount as String: Data([0xFF, 0xFE, 0x00])]))
        XCTAssertEqual(status, errSecParam)
        XCTAssertTrue(ProcessKeyring.lastError?.reason.contains("not UTF-8") ?? false, describe(status))
    }

    // MARK: 3. kSecAttrAccessControl in search, update and delete queries

    func testSearchWithTheItemsAccessControlFindsIt() throws {
        let access = try accessControl(kSecAttrAccessibleAfterFirstUnlock, .userPresence)
        XCTAssertEqual(add(genericPassword([kSecAttrAccessControl as String: access])), errSecSuccess)
        let status = copy(genericPassword([kSecAttrAccessControl as String: access, kSecReturnAttributes as String: true])).status
        XCTAssertEqual(status, errSecSuccess, describe(status))
    }

    func testAccessControlInAQueryDoesNotFilterByProtection() throws {
        // Unlike kSecAttrAccessible, a strict filter, an access control in a query finds items
        // of any protection on Apple platforms; wrappers read items written under an older
        // protection this way.
        XCTAssertEqual(add(genericPassword([kSecAttrAccessible as String: kSecAttrAccessibleWhenUnlocked])), errSecSuccess)
        let status = copy(genericPassword([kSecAttrAccessControl as String: try accessControl(kSecAttrAccessibleAfterFirstUnlock)])).status
        XCTAssertEqual(status, errSecSuccess, describe(status))
    }

    func testDeleteWithTheNewAccessControlRemovesAnItemOfTheOldOne() throws {
        // The wrapper pattern "delete with the dictionary about to be added, then add" must not
        // end in errSecDuplicateItem when the access control setting changed between runs.
        XCTAssertEqual(add(genericPassword([kSecAttrAccessControl as String: try accessControl(kSecAttrAccessibleWhenUnlocked, .userPresence)])), errSecSuccess)
        let newer = genericPassword([kSecAttrAccessControl as String: try accessControl(kSecAttrAccessibleAfterFirstUnlock, .devicePasscode)])
        XCTAssertEqual(SecItemDelete(newer as CFDictionary), errSecSuccess)
        XCTAssertEqual(add(newer), errSecSuccess)
    }

    func testUpdateAndDeleteAcceptAnAccessControlInTheQuery() throws {
        let query = genericPassword([kSecAttrAccessControl as String: try accessControl()])
        XCTAssertEqual(add(query, secret: "old"), errSecSuccess)
        let updated = SecItemUpdate(query as CFDictionary, [kSecValueData as String: Data("new".utf8)] as CFDictionary)
        XCTAssertEqual(updated, errSecSuccess, describe(updated))
        let deleted = SecItemDelete(query as CFDictionary)
        XCTAssertEqual(deleted, errSecSuccess, describe(deleted))
        XCTAssertEqual(copy(genericPassword()).status, errSecItemNotFound)
    }

    // MARK: 4. kSecValuePersistentRef names its item whatever its synchronizability

    func testPersistentReferenceFindsASynchronizableItemWithoutSaying() throws {
        XCTAssertEqual(add(genericPassword([kSecAttrSynchronizable as String: true]), secret: "s"), errSecSuccess)
        let reference = try persistentReference(of: genericPassword([kSecAttrSynchronizable as String: true]))
        let (status, result) = copy([kSecValuePersistentRef as String: reference, kSecReturnData as String: true])
        XCTAssertEqual(status, errSecSuccess, describe(status))
        XCTAssertEqual(result as? Data, Data("s".utf8))
    }

    func testPersistentReferenceUpdatesAndDeletesASynchronizableItem() throws {
        XCTAssertEqual(add(genericPassword([kSecAttrSynchronizable as String: true])), errSecSuccess)
        let reference = try persistentReference(of: genericPassword([kSecAttrSynchronizable as String: true]))
        let byReference = [kSecClass as String: kSecClassGenericPassword, kSecValuePersistentRef as String: reference] as [String: Any]
        XCTAssertEqual(SecItemUpdate(byReference as CFDictionary, [kSecAttrLabel as String: "l"] as CFDictionary), errSecSuccess)
        XCTAssertEqual(SecItemDelete(byReference as CFDictionary), errSecSuccess)
        XCTAssertEqual(copy(genericPassword([kSecAttrSynchronizable as String: kSecAttrSynchronizableAny])).status, errSecItemNotFound)
    }

    func testPersistentReferenceWithSynchronizableFalseStillExcludesASynchronizableItem() throws {
        // Saying kSecAttrSynchronizable is a condition like any other attribute.
        XCTAssertEqual(add(genericPassword([kSecAttrSynchronizable as String: true])), errSecSuccess)
        let reference = try persistentReference(of: genericPassword([kSecAttrSynchronizable as String: true]))
        let status = copy([kSecValuePersistentRef as String: reference, kSecAttrSynchronizable as String: false]).status
        XCTAssertEqual(status, errSecItemNotFound)
    }
}
#endif
