// These tests exercise the Linux emulator; on Apple platforms SecItem is the real framework.
#if !canImport(Darwin)
import Foundation
import Keyring
import Security
import XCTest

/// docs/SECITEM.md, "Matching rules (generic passwords)", one rule per test, through
/// Apple's four functions only.
final class SecItemMatchingRuleTests: SecItemTestCase {
    // MARK: Primary key

    func testAddingTheSamePrimaryKeyTwiceIsADuplicate() {
        XCTAssertEqual(add(genericPassword()), errSecSuccess)
        XCTAssertEqual(add(genericPassword(), secret: "other"), errSecDuplicateItem)
    }

    func testEachPrimaryKeyAttributeSeparatesItems() {
        XCTAssertEqual(add(genericPassword()), errSecSuccess)
        XCTAssertEqual(add(genericPassword(account: "you")), errSecSuccess, "account")
        XCTAssertEqual(add(genericPassword(service: "web")), errSecSuccess, "service")
        XCTAssertEqual(add(genericPassword([kSecAttrSynchronizable as String: true])), errSecSuccess, "synchronizable")
        XCTAssertEqual(add(genericPassword([kSecAttrAccessGroup as String: Self.applicationIdentifier])), errSecSuccess, "access group")
    }

    func testAttributesOutsideThePrimaryKeyDoNotSeparateItems() {
        XCTAssertEqual(add(genericPassword([kSecAttrLabel as String: "one"])), errSecSuccess)
        XCTAssertEqual(add(genericPassword([kSecAttrLabel as String: "two", kSecAttrAccessible as String: kSecAttrAccessibleAfterFirstUnlock])), errSecDuplicateItem)
    }

    func testClassIsPartOfThePrimaryKey() {
        XCTAssertEqual(add(genericPassword()), errSecSuccess)
        let internet: [String: Any] = [kSecClass as String: kSecClassInternetPassword, kSecAttrAccount as String: "me"]
        XCTAssertEqual(add(internet), errSecSuccess)
    }

    // MARK: Access groups

    func testAddWithoutAccessGroupUsesTheFirstKeychainAccessGroup() {
        XCTAssertEqual(add(genericPassword()), errSecSuccess)
        let (status, result) = copy(genericPassword([kSecReturnAttributes as String: true]))
        XCTAssertEqual(status, errSecSuccess, describe(status))
        XCTAssertEqual((result as? [String: Any])?[kSecAttrAccessGroup as String] as? String, Self.sharedAccessGroup)
    }

    func testAddToAGroupNotEntitledIsMissingEntitlement() {
        XCTAssertEqual(add(genericPassword([kSecAttrAccessGroup as String: "ABCDE12345.com.example.other"])), errSecMissingEntitlement)
    }

    func testSearchWithoutAccessGroupSearchesEveryGroup() {
        XCTAssertEqual(add(genericPassword([kSecAttrAccessGroup as String: Self.sharedAccessGroup])), errSecSuccess)
        XCTAssertEqual(add(genericPassword([kSecAttrAccessGroup as String: Self.applicationIdentifier])), errSecSuccess)
        XCTAssertEqual(add(genericPassword([kSecAttrAccessGroup as String: Self.applicationGroup])), errSecSuccess)
        let (status, result) = copy(genericPassword([kSecReturnAttributes as String: true, kSecMatchLimit as String: kSecMatchLimitAll]))
        XCTAssertEqual(status, errSecSuccess, describe(status))
        let groups = (result as? [[String: Any]])?.compactMap { $0[kSecAttrAccessGroup as String] as? String }
        XCTAssertEqual(groups.map(Set.init), [Self.sharedAccessGroup, Self.applicationIdentifier, Self.applicationGroup])
    }

    func testSearchNamingAGroupSearchesOnlyThatGroup() {
        XCTAssertEqual(add(genericPassword([kSecAttrAccessGroup as String: Self.applicationIdentifier])), errSecSuccess)
        XCTAssertEqual(copy(genericPassword([kSecAttrAccessGroup as String: Self.sharedAccessGroup])).status, errSecItemNotFound)
    }

    func testSearchNamingAGroupNotEntitledIsMissingEntitlement() {
        XCTAssertEqual(copy(genericPassword([kSecAttrAccessGroup as String: "ZZZZZ99999.com.example.shared"])).status, errSecMissingEntitlement)
    }

    func testMalformedAccessGroupIsMissingEntitlementWithExplanation() {
        // The most common bug: the team prefix left out of a keychain access group.
        XCTAssertEqual(add(genericPassword([kSecAttrAccessGroup as String: "com.example.shared"])), errSecMissingEntitlement)
        let reason = ProcessKeyring.lastError?.reason ?? ""
        XCTAssertTrue(reason.contains("com.example.shared"), reason)
        XCTAssertTrue(reason.contains(Self.sharedAccessGroup), "the reason lists the groups the identity has: \(reason)")
    }

    // MARK: Attribute matching

    func testEveryGivenAttributeMustMatch() {
        XCTAssertEqual(add(genericPassword([kSecAttrLabel as String: "Work"])), errSecSuccess)
        XCTAssertEqual(copy(genericPassword([kSecAttrLabel as String: "Work"])).status, errSecSuccess)
        XCTAssertEqual(copy(genericPassword([kSecAttrLabel as String: "Home"])).status, errSecItemNotFound)
    }

    func testMatchingIsCaseSensitiveByDefault() {
        XCTAssertEqual(add(genericPassword(account: "Me")), errSecSuccess)
        XCTAssertEqual(copy(genericPassword(account: "me")).status, errSecItemNotFound)
    }

    func testCaseInsensitiveMatchingOnRequest() {
        XCTAssertEqual(add(genericPassword(account: "Me")), errSecSuccess)
        XCTAssertEqual(copy(genericPassword(account: "me", [kSecMatchCaseInsensitive as String: true])).status, errSecSuccess)
    }

    func testMatchLimitDefaultsToOne() {
        XCTAssertEqual(add(genericPassword(account: "a")), errSecSuccess)
        XCTAssertEqual(add(genericPassword(account: "b")), errSecSuccess)
        let query: [String: Any] = [kSecClass as String: kSecClassGenericPassword, kSecReturnAttributes as String: true]
        let (status, result) = copy(query)
        XCTAssertEqual(status, errSecSuccess, describe(status))
        XCTAssertNotNil(result as? [String: Any], "one dictionary, not an array")
        XCTAssertNil(result as? [[String: Any]])
    }

    func testNumericMatchLimitReturnsAtMostThatMany() {
        for account in ["a", "b", "c"] { XCTAssertEqual(add(genericPassword(account: account)), errSecSuccess) }
        let query: [String: Any] = [kSecClass as String: kSecClassGenericPassword, kSecReturnAttributes as String: true, kSecMatchLimit as String: 2]
        XCTAssertEqual((copy(query).result as? [[String: Any]])?.count, 2)
    }

    // MARK: Synchronizable

    func testAbsentSynchronizableMatchesOnlyLocalItems() {
        XCTAssertEqual(add(genericPassword([kSecAttrSynchronizable as String: true])), errSecSuccess)
        XCTAssertEqual(copy(genericPassword()).status, errSecItemNotFound)
    }

    func testSynchronizableAnyMatchesBoth() {
        XCTAssertEqual(add(genericPassword(account: "synced", [kSecAttrSynchronizable as String: kCFBooleanTrue!])), errSecSuccess)
        XCTAssertEqual(add(genericPassword(account: "local")), errSecSuccess)
        let query: [String: Any] = [
            kSecClass as String: kSecClassGenericPassword, kSecAttrSynchronizable as String: kSecAttrSynchronizableAny,
            kSecMatchLimit as String: kSecMatchLimitAll, kSecReturnAttributes as String: true,
        ]
        let accounts = (copy(query).result as? [[String: Any]])?.compactMap { $0[kSecAttrAccount as String] as? String }
        XCTAssertEqual(accounts.map(Set.init), ["synced", "local"])
    }

    // MARK: Update

    func testUpdateWithNoMatchIsItemNotFound() {
        let status = SecItemUpdate(genericPassword() as CFDictionary, [kSecValueData as String: Data("x".utf8)] as CFDictionary)
        XCTAssertEqual(status, errSecItemNotFound)
    }

    func testUpdateChangesTheSecret() {
        XCTAssertEqual(add(genericPassword(), secret: "old"), errSecSuccess)
        let status = SecItemUpdate(genericPassword() as CFDictionary, [kSecValueData as String: Data("new".utf8)] as CFDictionary)
        XCTAssertEqual(status, errSecSuccess, describe(status))
        XCTAssertEqual(copy(genericPassword([kSecReturnData as String: true])).result as? Data, Data("new".utf8))
    }

    func testUpdateDictionaryWithClassIsParam() {
        XCTAssertEqual(add(genericPassword()), errSecSuccess)
        let changes: [String: Any] = [kSecClass as String: kSecClassGenericPassword, kSecAttrLabel as String: "x"]
        XCTAssertEqual(SecItemUpdate(genericPassword() as CFDictionary, changes as CFDictionary), errSecParam)
    }

    func testUpdateCollidingWithAnotherPrimaryKeyIsDuplicate() {
        XCTAssertEqual(add(genericPassword(account: "a")), errSecSuccess)
        XCTAssertEqual(add(genericPassword(account: "b")), errSecSuccess)
        let status = SecItemUpdate(genericPassword(account: "a") as CFDictionary, [kSecAttrAccount as String: "b"] as CFDictionary)
        XCTAssertEqual(status, errSecDuplicateItem)
    }

    func testUpdateMovesModificationDateButNotCreationDate() throws {
        XCTAssertEqual(add(genericPassword()), errSecSuccess)
        let before = try XCTUnwrap(copy(genericPassword([kSecReturnAttributes as String: true])).result as? [String: Any])
        XCTAssertEqual(SecItemUpdate(genericPassword() as CFDictionary, [kSecAttrLabel as String: "changed"] as CFDictionary), errSecSuccess)
        let after = try XCTUnwrap(copy(genericPassword([kSecReturnAttributes as String: true])).result as? [String: Any])
        let created = try XCTUnwrap(before[kSecAttrCreationDate as String] as? Date)
        let modified = try XCTUnwrap(before[kSecAttrModificationDate as String] as? Date)
        XCTAssertEqual(after[kSecAttrCreationDate as String] as? Date, created)
        XCTAssertGreaterThan(try XCTUnwrap(after[kSecAttrModificationDate as String] as? Date), modified)
    }

    func testUpdateQueryAskingForDataIsParam() {
        XCTAssertEqual(add(genericPassword()), errSecSuccess)
        let query = genericPassword([kSecReturnData as String: true])
        XCTAssertEqual(SecItemUpdate(query as CFDictionary, [kSecAttrLabel as String: "x"] as CFDictionary), errSecParam)
    }

    // MARK: Delete

    func testDeleteRemovesEveryMatch() {
        XCTAssertEqual(add(genericPassword(account: "a")), errSecSuccess)
        XCTAssertEqual(add(genericPassword(account: "b")), errSecSuccess)
        let query: [String: Any] = [kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: "api"]
        XCTAssertEqual(SecItemDelete(query as CFDictionary), errSecSuccess)
        XCTAssertEqual(copy(query).status, errSecItemNotFound)
    }

    func testDeleteWithNoMatchIsItemNotFound() {
        XCTAssertEqual(SecItemDelete(genericPassword() as CFDictionary), errSecItemNotFound)
    }

    func testDeleteIgnoresValueDataLikeApple() {
        // The common "delete, then add the same dictionary" pattern passes kSecValueData to delete.
        let item = genericPassword([kSecValueData as String: Data("secret".utf8)])
        XCTAssertEqual(SecItemAdd(item as CFDictionary, nil), errSecSuccess)
        XCTAssertEqual(SecItemDelete(item as CFDictionary), errSecSuccess)
        XCTAssertEqual(SecItemAdd(item as CFDictionary, nil), errSecSuccess)
    }

    func testDeleteWithMatchLimitOneIsParam() {
        XCTAssertEqual(add(genericPassword()), errSecSuccess)
        XCTAssertEqual(SecItemDelete(genericPassword([kSecMatchLimit as String: kSecMatchLimitOne]) as CFDictionary), errSecParam)
    }

    // MARK: Accessibility and lock state

    func testAccessibilityDefaultsToWhenUnlocked() {
        XCTAssertEqual(add(genericPassword()), errSecSuccess)
        let attributes = copy(genericPassword([kSecReturnAttributes as String: true])).result as? [String: Any]
        XCTAssertEqual(attributes?[kSecAttrAccessible as String] as? String, kSecAttrAccessibleWhenUnlocked as String)
    }

    func testWhenUnlockedItemIsNotReadableWhileLocked() throws {
        XCTAssertEqual(add(genericPassword()), errSecSuccess)
        try keychain.setLockState(.locked)
        XCTAssertEqual(copy(genericPassword([kSecReturnData as String: true])).status, errSecInteractionNotAllowed)
    }

    func testWhenPasscodeSetItemIsNotReadableWhileLocked() throws {
        XCTAssertEqual(add(genericPassword([kSecAttrAccessible as String: kSecAttrAccessibleWhenPasscodeSetThisDeviceOnly])), errSecSuccess)
        try keychain.setLockState(.locked)
        XCTAssertEqual(copy(genericPassword([kSecReturnData as String: true])).status, errSecInteractionNotAllowed)
    }

    func testAfterFirstUnlockItemIsReadableWhileLocked() throws {
        XCTAssertEqual(add(genericPassword([kSecAttrAccessible as String: kSecAttrAccessibleAfterFirstUnlock]), secret: "widget"), errSecSuccess)
        try keychain.setLockState(.locked)
        let (status, result) = copy(genericPassword([kSecReturnData as String: true]))
        XCTAssertEqual(status, errSecSuccess, describe(status))
        XCTAssertEqual(result as? Data, Data("widget".utf8))
    }

    func testAfterFirstUnlockItemIsNotReadableBeforeFirstUnlock() throws {
        XCTAssertEqual(add(genericPassword([kSecAttrAccessible as String: kSecAttrAccessibleAfterFirstUnlock])), errSecSuccess)
        try keychain.setLockState(.beforeFirstUnlock)
        XCTAssertEqual(copy(genericPassword([kSecReturnData as String: true])).status, errSecInteractionNotAllowed)
    }
}
#endif
