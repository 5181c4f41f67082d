import Foundation
import KeyringTestSupport
import Security
import XCTest

/// Your code: stores a token with SecItem calls, as on Apple platforms.
struct TokenStore {
    struct Failure: Error { let status: OSStatus }

    func save(_ token: String) throws {
        let item: [String: Any] = [kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: "api",
                                   kSecValueData as String: Data(token.utf8)]
        let status = SecItemAdd(item as CFDictionary, nil)
        guard status == errSecSuccess else { throw Failure(status: status) }
    }

    func load() throws -> String {
        let query: [String: Any] = [kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: "api",
                                    kSecReturnData as String: true]
        var result: AnyObject?
        let status = SecItemCopyMatching(query as CFDictionary, &result)
        guard status == errSecSuccess, let data = result as? Data else { throw Failure(status: status) }
        return String(decoding: data, as: UTF8.self)
    }
}

final class TokenStoreTests: XCTestCase {
    func testTokenSurvivesRelaunch() throws {
        let keychain = try TestKeychain(keychainAccessGroups: ["ABCDE12345.com.example.shared"])
        defer { keychain.restore() }
        try TokenStore().save("secret")
        XCTAssertEqual(try TokenStore().load(), "secret")
        try keychain.setLockState(.locked)                    // the device locks:
        XCTAssertThrowsError(try TokenStore().load())         // a WhenUnlocked item is refused
    }
}
