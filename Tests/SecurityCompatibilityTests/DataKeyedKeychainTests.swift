// The wrapper under test is Linux-only here: on Apple platforms it would use the real keychain.
#if !canImport(Darwin)
import Foundation
import KeyringTestSupport
import WrapperStyleKeychain
import XCTest

/// A wrapper written for Apple platforms (WrapperStyleKeychain: `import Security` and
/// `import Foundation` only, plus the one-line re-export shim) run against the emulator, as a
/// user runs an existing wrapper's test suite on Linux. No `import Keyring` here: its native
/// type names must not be needed.
final class DataKeyedKeychainTests: XCTestCase {
    private var keychain: TestKeychain!

    override func setUpWithError() throws {
        keychain = try TestKeychain(bundleID: "com.example.app", keychainAccessGroups: ["ABCDE12345.com.example.shared"])
    }

    override func tearDown() {
        keychain?.restore()
        keychain = nil
    }

    func testSetThenGetReturnsTheValueWithItsDataAccount() throws {
        let store = DataKeyedKeychain(service: "api")
        try store.set(Data("secret".utf8), forKey: "token")
        let entry = try XCTUnwrap(try store.entry(forKey: "token"))
        XCTAssertEqual(entry.value, Data("secret".utf8))
        XCTAssertEqual(entry.account, Data("token".utf8))
        XCTAssertNotNil(entry.modified)
    }

    func testSetOnAnExistingKeyUpdatesIt() throws {
        let store = DataKeyedKeychain(service: "api")
        try store.set(Data("one".utf8), forKey: "token")
        try store.set(Data("two".utf8), forKey: "token")
        XCTAssertEqual(try store.entry(forKey: "token")?.value, Data("two".utf8))
    }

    func testRemoveDeletesAndMissingKeyReadsAsNil() throws {
        let store = DataKeyedKeychain(service: "api")
        try store.set(Data("secret".utf8), forKey: "token")
        try store.removeValue(forKey: "token")
        XCTAssertNil(try store.entry(forKey: "token"))
        try store.removeValue(forKey: "token")
    }

    func testPersistentReferenceReadsTheSameItem() throws {
        let store = DataKeyedKeychain(service: "api")
        try store.set(Data("secret".utf8), forKey: "token")
        let reference = try XCTUnwrap(try store.entry(forKey: "token")).persistentReference
        XCTAssertEqual(try store.value(forPersistentReference: reference), Data("secret".utf8))
        try store.removeValue(forKey: "token")
        XCTAssertNil(try store.value(forPersistentReference: reference))
    }

    func testAccessControlInEveryQueryWorksForSetGetUpdateAndRemove() throws {
        let store = DataKeyedKeychain(service: "vault", accessControl: try DataKeyedKeychain.userPresence())
        keychain.userPresence = .approve
        try store.set(Data("one".utf8), forKey: "key")
        try store.set(Data("two".utf8), forKey: "key")
        XCTAssertEqual(try store.entry(forKey: "key")?.value, Data("two".utf8))
        try store.removeValue(forKey: "key")
        XCTAssertNil(try store.entry(forKey: "key"))
    }

    func testDeniedPromptSurfacesAppleMessage() throws {
        let store = DataKeyedKeychain(service: "vault", accessControl: try DataKeyedKeychain.userPresence())
        try store.set(Data("secret".utf8), forKey: "key")
        keychain.userPresence = .deny
        XCTAssertThrowsError(try store.entry(forKey: "key")) { error in
            XCTAssertEqual((error as? KeychainStatus)?.description, "User canceled the operation.")
        }
    }

    func testRemoveAllClearsTheService() throws {
        let store = DataKeyedKeychain(service: "api")
        try store.set(Data("a".utf8), forKey: "a")
        try store.set(Data("b".utf8), forKey: "b")
        try store.removeAll()
        XCTAssertNil(try store.entry(forKey: "a"))
        XCTAssertNil(try store.entry(forKey: "b"))
    }

    func testFailureReasonIsReachableWithoutImportingKeyring() {
        keychain.failNextOperation(with: .interactionNotAllowed)
        XCTAssertThrowsError(try DataKeyedKeychain(service: "api").set(Data(), forKey: "k"))
        XCTAssertEqual(TestKeychain.lastError?.reason.contains("failNextOperation"), true)
    }
}
#endif
