// These tests exercise the Linux emulator; on Apple platforms SecItem is the real framework.
#if !canImport(Darwin)
import Foundation
import Keyring
import Security
import KeyringTestSupport
import XCTest

/// The open-source-style wrapper, compiled against this module, behaves as on a device.
final class KeychainWrapperTests: SecItemTestCase {
    func testSetThenGetReturnsTheString() {
        let wrapper = KeychainWrapper()
        XCTAssertTrue(wrapper.set("hunter2", forKey: "password"), describe(wrapper.lastResultCode))
        XCTAssertEqual(wrapper.get("password"), "hunter2")
    }

    func testSetReplacesAnExistingValue() {
        let wrapper = KeychainWrapper()
        wrapper.set("old", forKey: "token")
        XCTAssertTrue(wrapper.set("new", forKey: "token"), describe(wrapper.lastResultCode))
        XCTAssertEqual(wrapper.get("token"), "new")
    }

    func testBooleansRoundTrip() {
        let wrapper = KeychainWrapper()
        wrapper.set(true, forKey: "onboarded")
        XCTAssertEqual(wrapper.getBool("onboarded"), true)
    }

    func testGetMissingKeyIsNilWithItemNotFound() {
        let wrapper = KeychainWrapper()
        XCTAssertNil(wrapper.get("missing"))
        XCTAssertEqual(wrapper.lastResultCode, errSecItemNotFound)
    }

    func testDeleteRemovesTheKey() {
        let wrapper = KeychainWrapper()
        wrapper.set("x", forKey: "k")
        XCTAssertTrue(wrapper.delete("k"))
        XCTAssertNil(wrapper.get("k"))
    }

    func testDeleteMissingKeyReportsFailure() {
        let wrapper = KeychainWrapper()
        XCTAssertFalse(wrapper.delete("missing"))
        XCTAssertEqual(wrapper.lastResultCode, errSecItemNotFound)
    }

    func testAllKeysListsKeysWithoutPrefix() {
        let wrapper = KeychainWrapper(keyPrefix: "app_")
        wrapper.set("1", forKey: "a")
        wrapper.set("2", forKey: "b")
        XCTAssertEqual(Set(wrapper.allKeys), ["a", "b"])
    }

    func testClearRemovesEverything() {
        let wrapper = KeychainWrapper()
        wrapper.set("1", forKey: "a")
        wrapper.set("2", forKey: "b")
        XCTAssertTrue(wrapper.clear())
        XCTAssertEqual(wrapper.allKeys, [])
    }

    func testAccessGroupOptionSharesWithAnotherAppInTheGroup() throws {
        let app = KeychainWrapper()
        app.accessGroup = Self.sharedAccessGroup
        XCTAssertTrue(app.set("shared-token", forKey: "token"), describe(app.lastResultCode))

        keychain.act(as: try TestKeychain.identity(bundleID: "com.example.app.widget", keychainAccessGroups: [Self.sharedAccessGroup]))
        let widget = KeychainWrapper()
        widget.accessGroup = Self.sharedAccessGroup
        XCTAssertEqual(widget.get("token"), "shared-token")
    }

    func testAccessGroupNotEntitledFailsWithMissingEntitlement() {
        let wrapper = KeychainWrapper()
        wrapper.accessGroup = "ABCDE12345.com.example.not-mine"
        XCTAssertFalse(wrapper.set("x", forKey: "k"))
        XCTAssertEqual(wrapper.lastResultCode, errSecMissingEntitlement)
    }

    func testSynchronizableItemIsInvisibleToALocalOnlyWrapper() {
        let synced = KeychainWrapper()
        synced.synchronizable = true
        XCTAssertTrue(synced.set("cloud", forKey: "k"), describe(synced.lastResultCode))
        XCTAssertNil(KeychainWrapper().get("k"))
        XCTAssertEqual(synced.get("k"), "cloud")
    }

    func testAfterFirstUnlockValueIsReadableWhileLocked() throws {
        let wrapper = KeychainWrapper()
        wrapper.set("bg", forKey: "refresh", withAccess: kSecAttrAccessibleAfterFirstUnlock)
        try keychain.setLockState(.locked)
        XCTAssertEqual(wrapper.get("refresh"), "bg")
    }

    func testWhenUnlockedValueIsUnreadableWhileLocked() throws {
        let wrapper = KeychainWrapper()
        wrapper.set("fg", forKey: "session")
        try keychain.setLockState(.locked)
        XCTAssertNil(wrapper.get("session"))
        XCTAssertEqual(wrapper.lastResultCode, errSecInteractionNotAllowed)
    }
}
#endif
