// These tests exercise the Linux emulator; on Apple platforms SecItem is the real framework.
#if !canImport(Darwin)
import Foundation
import Keyring
import Security
import KeyringTestSupport
import XCTest

/// A test case acting as an app with one keychain access group, its application identifier and
/// one application group, over a throw-away home (KeyringTestSupport).
class SecItemTestCase: XCTestCase {
    static let team = "ABCDE12345"
    static let sharedAccessGroup = "ABCDE12345.com.example.shared"
    static let applicationIdentifier = "ABCDE12345.com.example.app"
    static let applicationGroup = "group.com.example.shared"

    var keychain: TestKeychain!

    override func setUpWithError() throws {
        keychain = try TestKeychain(
            teamID: Self.team, bundleID: "com.example.app",
            keychainAccessGroups: [Self.sharedAccessGroup], applicationGroups: [Self.applicationGroup])
    }

    override func tearDown() {
        keychain?.restore()
        keychain = nil
    }

    /// A generic-password dictionary for `service`/`account`, plus `extra`.
    func genericPassword(service: String = "api", account: String = "me", _ extra: [String: Any] = [:]) -> [String: Any] {
        [kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: service, kSecAttrAccount as String: account]
            .merging(extra) { _, new in new }
    }

    /// `SecItemAdd` with a secret; the status.
    @discardableResult
    func add(_ attributes: [String: Any], secret: String = "secret") -> OSStatus {
        var attributes = attributes
        if attributes[kSecValueData as String] == nil { attributes[kSecValueData as String] = Data(secret.utf8) }
        return SecItemAdd(attributes as CFDictionary, nil)
    }

    /// `SecItemCopyMatching`; the status and the result.
    func copy(_ query: [String: Any]) -> (status: OSStatus, result: CFTypeRef?) {
        var result: CFTypeRef?
        let status = SecItemCopyMatching(query as CFDictionary, &result)
        return (status, result)
    }

    /// The status with the reason of the last failure, for assertion messages.
    func describe(_ status: OSStatus) -> String {
        "status \(status): \(ProcessKeyring.lastError?.description ?? "no recorded reason")"
    }
}
#endif
