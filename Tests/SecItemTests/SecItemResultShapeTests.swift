// These tests exercise the Linux emulator; on Apple platforms SecItem is the real framework.
#if !canImport(Darwin)
import Foundation
import Keyring
import Security
import XCTest

/// docs/SECITEM.md, "Result shape": what `result` holds for each combination of return
/// keys and limits, cast the way Apple code casts it.
final class SecItemResultShapeTests: SecItemTestCase {
    override func setUpWithError() throws {
        try super.setUpWithError()
        XCTAssertEqual(add(genericPassword(account: "a", [kSecAttrLabel as String: "Label A"]), secret: "secret-a"), errSecSuccess)
        XCTAssertEqual(add(genericPassword(account: "b"), secret: "secret-b"), errSecSuccess)
    }

    func testNoReturnKeyGivesOnlyTheStatus() {
        var result: CFTypeRef? = NSString(string: "untouched")
        let status = SecItemCopyMatching(genericPassword(account: "a") as CFDictionary, &result)
        XCTAssertEqual(status, errSecSuccess)
        XCTAssertNil(result)
    }

    func testNilResultPointerIsAllowed() {
        XCTAssertEqual(SecItemCopyMatching(genericPassword(account: "a", [kSecReturnData as String: true]) as CFDictionary, nil), errSecSuccess)
    }

    func testReturnDataWithLimitOneGivesData() {
        let (status, result) = copy(genericPassword(account: "a", [kSecReturnData as String: kCFBooleanTrue!, kSecMatchLimit as String: kSecMatchLimitOne]))
        XCTAssertEqual(status, errSecSuccess, describe(status))
        XCTAssertEqual(result as? Data, Data("secret-a".utf8))
    }

    func testReturnAttributesGivesDictionaryWithoutData() throws {
        let result = try XCTUnwrap(copy(genericPassword(account: "a", [kSecReturnAttributes as String: true])).result as? [String: Any])
        XCTAssertEqual(result[kSecClass as String] as? String, kSecClassGenericPassword as String)
        XCTAssertEqual(result[kSecAttrAccount as String] as? String, "a")
        XCTAssertEqual(result[kSecAttrService as String] as? String, "api")
        XCTAssertEqual(result[kSecAttrLabel as String] as? String, "Label A")
        XCTAssertEqual(result[kSecAttrSynchronizable as String] as? Bool, false)
        XCTAssertNil(result[kSecValueData as String])
    }

    func testReturnAttributesAndDataPutsDataUnderValueData() throws {
        let query = genericPassword(account: "a", [kSecReturnAttributes as String: true, kSecReturnData as String: true])
        let result = try XCTUnwrap(copy(query).result as? [String: Any])
        XCTAssertEqual(result[kSecValueData as String] as? Data, Data("secret-a".utf8))
        XCTAssertEqual(result[kSecAttrAccount as String] as? String, "a")
    }

    func testLimitAllGivesArrayOfDictionaries() throws {
        let query: [String: Any] = [
            kSecClass as String: kSecClassGenericPassword, kSecMatchLimit as String: kSecMatchLimitAll,
            kSecReturnAttributes as String: true, kSecReturnData as String: true,
        ]
        let result = try XCTUnwrap(copy(query).result as? [[String: Any]])
        XCTAssertEqual(Set(result.compactMap { $0[kSecValueData as String] as? Data }), [Data("secret-a".utf8), Data("secret-b".utf8)])
    }

    func testLimitAllWithOnlyDataGivesArrayOfData() throws {
        let query: [String: Any] = [kSecClass as String: kSecClassGenericPassword, kSecMatchLimit as String: kSecMatchLimitAll, kSecReturnData as String: true]
        let result = try XCTUnwrap(copy(query).result as? [Data])
        XCTAssertEqual(Set(result), [Data("secret-a".utf8), Data("secret-b".utf8)])
    }

    func testLimitAllWithOneMatchIsStillAnArray() {
        let query = genericPassword(account: "a", [kSecMatchLimit as String: kSecMatchLimitAll, kSecReturnAttributes as String: true])
        XCTAssertEqual((copy(query).result as? [[String: Any]])?.count, 1)
    }

    func testPersistentRefAddressesTheItemInCopy() throws {
        let reference = try XCTUnwrap(copy(genericPassword(account: "b", [kSecReturnPersistentRef as String: true])).result as? Data)
        let query: [String: Any] = [kSecValuePersistentRef as String: reference, kSecReturnData as String: true]
        let (status, result) = copy(query)
        XCTAssertEqual(status, errSecSuccess, describe(status))
        XCTAssertEqual(result as? Data, Data("secret-b".utf8))
    }

    func testPersistentRefAddressesTheItemInDelete() throws {
        let reference = try XCTUnwrap(copy(genericPassword(account: "b", [kSecReturnPersistentRef as String: true])).result as? Data)
        XCTAssertEqual(SecItemDelete([kSecClass as String: kSecClassGenericPassword, kSecValuePersistentRef as String: reference] as CFDictionary), errSecSuccess)
        XCTAssertEqual(copy(genericPassword(account: "b")).status, errSecItemNotFound)
        XCTAssertEqual(copy(genericPassword(account: "a")).status, errSecSuccess)
    }

    func testPersistentRefAndDataTogetherGiveADictionary() throws {
        let query = genericPassword(account: "a", [kSecReturnPersistentRef as String: true, kSecReturnData as String: true])
        let result = try XCTUnwrap(copy(query).result as? [String: Any])
        XCTAssertEqual(result[kSecValueData as String] as? Data, Data("secret-a".utf8))
        XCTAssertNotNil(result[kSecValuePersistentRef as String] as? Data)
        XCTAssertNil(result[kSecAttrAccount as String], "attributes only when asked for")
    }

    func testAddCanReturnTheAddedItemsAttributes() throws {
        var result: CFTypeRef?
        let status = SecItemAdd(genericPassword(account: "c", [kSecValueData as String: Data("c".utf8), kSecReturnAttributes as String: true]) as CFDictionary, &result)
        XCTAssertEqual(status, errSecSuccess, describe(status))
        let attributes = try XCTUnwrap(result as? [String: Any])
        XCTAssertEqual(attributes[kSecAttrAccessGroup as String] as? String, Self.sharedAccessGroup)
        XCTAssertNotNil(attributes[kSecAttrCreationDate as String] as? Date)
    }

    func testInternetPasswordAttributesComeBackUnderAppleKeys() throws {
        let item: [String: Any] = [
            kSecClass as String: kSecClassInternetPassword, kSecAttrServer as String: "example.com",
            kSecAttrProtocol as String: kSecAttrProtocolHTTPS, kSecAttrPort as String: 443, kSecAttrAccount as String: "me",
            kSecAttrAuthenticationType as String: kSecAttrAuthenticationTypeHTMLForm, kSecValueData as String: Data("pw".utf8),
        ]
        XCTAssertEqual(SecItemAdd(item as CFDictionary, nil), errSecSuccess, describe(errSecSuccess))
        let query: [String: Any] = [kSecClass as String: kSecClassInternetPassword, kSecAttrServer as String: "example.com", kSecReturnAttributes as String: true]
        let attributes = try XCTUnwrap(copy(query).result as? [String: Any])
        XCTAssertEqual(attributes[kSecAttrProtocol as String] as? String, "htps")
        XCTAssertEqual(attributes[kSecAttrPort as String] as? Int, 443)
        XCTAssertEqual(attributes[kSecAttrAuthenticationType as String] as? String, "form")
    }
}
#endif
