// These tests exercise the Linux emulator; on Apple platforms SecItem is the real framework.
#if !canImport(Darwin)
import Foundation
import GroupVaultTestKit
import Keyring
import Security
import KeyringTestSupport
import SealedStorage
import XCTest

/// The shared auth-state flow (the README's app-and-widget demo) written the way app code is: Apple's
/// SecItem functions and `FileManager.containerURL`, nothing GroupVault-specific. The app runs
/// in this process; the widget and a stranger run as separate fixture processes whose identity
/// comes from the `GROUPVAULT_*` environment.
final class SharedStateAppTests: XCTestCase {
    static let keychainGroup = "ABCDE12345.com.example.shared"
    static let appGroup = "group.com.example.shared"
    static let stateFile = "auth-state.sealed"

    var keychain: TestKeychain!
    var widget: Identity!
    var stranger: Identity!

    override func setUpWithError() throws {
        keychain = try TestKeychain(
            entitlements: """
                <?xml version="1.0" encoding="UTF-8"?>
                <plist version="1.0"><dict>
                  <key>keychain-access-groups</key>
                  <array><string>$(AppIdentifierPrefix)com.example.shared</string></array>
                  <key>com.apple.security.application-groups</key>
                  <array><string>group.com.example.shared</string></array>
                </dict></plist>
                """,
            teamID: "ABCDE12345", bundleID: "com.example.app")
        widget = try TestKeychain.identity(
            bundleID: "com.example.app.widget", keychainAccessGroups: [Self.keychainGroup], applicationGroups: [Self.appGroup])
        stranger = try TestKeychain.identity(bundleID: "com.example.other")
    }

    override func tearDown() {
        keychain?.restore()
        keychain = nil
    }

    func testAppCreatesTheGroupKeyOnFirstUseAndReusesIt() throws {
        let store = SharedStateStore(accessGroup: Self.keychainGroup, appGroup: Self.appGroup)
        let first = try store.groupKey()
        let second = try store.groupKey()
        XCTAssertEqual(first.count, 32)
        XCTAssertEqual(first, second)
    }

    func testGroupKeyIsReadableWhileLockedBecauseItIsAfterFirstUnlock() throws {
        let store = SharedStateStore(accessGroup: Self.keychainGroup, appGroup: Self.appGroup)
        let key = try store.groupKey()
        try keychain.setLockState(.locked)
        XCTAssertEqual(try store.groupKey(), key)
    }

    func testWidgetProcessReadsTheKeyAndStateTheAppWrote() throws {
        let store = SharedStateStore(accessGroup: Self.keychainGroup, appGroup: Self.appGroup)
        try store.write("signed-in:alice", to: Self.stateFile)

        let run = try FixtureProcess.run(
            ["secitem-read-state", Self.keychainGroup, SharedStateStore.service, SharedStateStore.account, Self.appGroup, Self.stateFile],
            environment: try keychain.environment(for: widget))
        XCTAssertEqual(run.status, 0, run.output + run.errors)
        XCTAssertEqual(run.output, "state signed-in:alice\n")
    }

    func testWidgetProcessGetsTheSameContainerAsTheApp() throws {
        let appContainer = try XCTUnwrap(FileManager.default.containerURL(forSecurityApplicationGroupIdentifier: Self.appGroup))
        let run = try FixtureProcess.run(["secitem-container", Self.appGroup], environment: try keychain.environment(for: widget))
        XCTAssertEqual(run.output, "container \(appContainer.path)\nexists true\n", run.errors)
    }

    func testIdentityWithoutTheGroupsGetsNoContainer() throws {
        let run = try FixtureProcess.run(["secitem-container", Self.appGroup], environment: try keychain.environment(for: stranger))
        XCTAssertEqual(run.status, 0, run.errors)
        XCTAssertEqual(run.output, "container nil\n")
    }

    func testIdentityWithoutTheGroupsNamingTheGroupIsMissingEntitlement() throws {
        _ = try SharedStateStore(accessGroup: Self.keychainGroup, appGroup: Self.appGroup).groupKey()
        let run = try FixtureProcess.run(
            ["secitem-copy", SharedStateStore.service, SharedStateStore.account, Self.keychainGroup],
            environment: try keychain.environment(for: stranger))
        XCTAssertEqual(run.output, "status \(errSecMissingEntitlement)\n", run.errors)
    }

    func testIdentityWithoutTheGroupsSearchingWithoutAGroupFindsNothing() throws {
        _ = try SharedStateStore(accessGroup: Self.keychainGroup, appGroup: Self.appGroup).groupKey()
        let run = try FixtureProcess.run(
            ["secitem-copy", SharedStateStore.service, SharedStateStore.account, "-"],
            environment: try keychain.environment(for: stranger))
        XCTAssertEqual(run.output, "status \(errSecItemNotFound)\n", run.errors)
    }

    func testWidgetProcessSearchingWithoutAGroupFindsTheSharedKey() throws {
        let key = try SharedStateStore(accessGroup: Self.keychainGroup, appGroup: Self.appGroup).groupKey()
        let run = try FixtureProcess.run(
            ["secitem-copy", SharedStateStore.service, SharedStateStore.account, "-"],
            environment: try keychain.environment(for: widget))
        let digest = Digest.blake2b256(Array(key)).map { String(format: "%02x", $0) }.joined()
        XCTAssertEqual(run.output, "status 0\ndata-blake2b \(digest)\n", run.errors)
    }
}

/// A shared-state store as an iOS app writes it: the group key lives in the keychain (created
/// on first use, `AfterFirstUnlock` so the widget can read it while the phone is locked), the
/// state is sealed under it in the group container. Only the AEAD differs from app code
/// (CryptoKit there, libsodium's XChaCha20-Poly1305 here); the file format is the fixture's.
struct SharedStateStore {
    static let service = "com.example.shared.state-key"
    static let account = "group-key"

    enum Failure: Error, Equatable {
        case keychain(OSStatus)
        case noContainer
    }

    let accessGroup: String
    let appGroup: String

    func groupKey() throws -> Data {
        let query: [String: Any] = [
            kSecClass as String: kSecClassGenericPassword,
            kSecAttrService as String: Self.service,
            kSecAttrAccount as String: Self.account,
            kSecAttrAccessGroup as String: accessGroup,
            kSecReturnData as String: kCFBooleanTrue!,
            kSecMatchLimit as String: kSecMatchLimitOne,
        ]
        var result: AnyObject?
        let status = SecItemCopyMatching(query as CFDictionary, &result)
        if status == errSecSuccess, let key = result as? Data { return key }
        guard status == errSecItemNotFound else { throw Failure.keychain(status) }

        var key = Data(count: 32)
        let random = key.withUnsafeMutableBytes { SecRandomCopyBytes(kSecRandomDefault, 32, $0.baseAddress!) }
        guard random == errSecSuccess else { throw Failure.keychain(random) }
        let item: [String: Any] = [
            kSecClass as String: kSecClassGenericPassword,
            kSecAttrService as String: Self.service,
            kSecAttrAccount as String: Self.account,
            kSecAttrAccessGroup as String: accessGroup,
            kSecAttrAccessible as String: kSecAttrAccessibleAfterFirstUnlock,
            kSecValueData as String: key,
        ]
        let added = SecItemAdd(item as CFDictionary, nil)
        if added == errSecDuplicateItem { return try groupKey() }  // another process won the race
        guard added == errSecSuccess else { throw Failure.keychain(added) }
        return key
    }

    func write(_ state: String, to fileName: String) throws {
        let key = try SymmetricKey(bytes: try groupKey())
        guard let container = FileManager.default.containerURL(forSecurityApplicationGroupIdentifier: appGroup) else {
            throw Failure.noContainer
        }
        let nonce = XChaCha20Poly1305.Nonce.random()
        let sealed = XChaCha20Poly1305.seal(Array(state.utf8), using: key, nonce: nonce, authenticating: Array(fileName.utf8))
        try Data(nonce.bytes + sealed).write(to: container.appendingPathComponent(fileName), options: .atomic)
    }
}
#endif
