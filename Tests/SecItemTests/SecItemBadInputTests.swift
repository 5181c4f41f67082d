// These tests exercise the Linux emulator; on Apple platforms SecItem is the real framework.
#if !canImport(Darwin)
import Foundation
import GroupVaultTestKit
import Keyring
import Security
import KeyringTestSupport
import XCTest

/// Malformed dictionaries get Apple's status, with a reason, and never a crash.
final class SecItemBadInputTests: SecItemTestCase {
    func testAddWithoutClassIsParam() {
        XCTAssertEqual(SecItemAdd([kSecAttrAccount as String: "me", kSecValueData as String: Data()] as CFDictionary, nil), errSecParam)
        XCTAssertTrue(ProcessKeyring.lastError?.reason.contains("kSecClass") ?? false)
    }

    func testEveryFunctionRequiresAClass() {
        let query = [kSecAttrAccount as String: "me"] as CFDictionary
        var result: CFTypeRef?
        XCTAssertEqual(SecItemCopyMatching(query, &result), errSecParam)
        XCTAssertEqual(SecItemUpdate(query, [kSecAttrLabel as String: "x"] as CFDictionary), errSecParam)
        XCTAssertEqual(SecItemDelete(query), errSecParam)
    }

    func testUnknownClassIsParam() {
        XCTAssertEqual(copy([kSecClass as String: "nope"]).status, errSecParam)
    }

    func testKeyCertificateAndIdentityClassesAreSearchedNotRefused() {
        for itemClass in [kSecClassKey, kSecClassCertificate, kSecClassIdentity] {
            XCTAssertEqual(copy([kSecClass as String: itemClass]).status, errSecItemNotFound, itemClass as String)
        }
    }

    func testUnknownKeyIsParamAndNamedInTheReason() {
        XCTAssertEqual(add(genericPassword(["kSecAttrAcount": "typo"])), errSecParam)
        XCTAssertTrue(ProcessKeyring.lastError?.reason.contains("kSecAttrAcount") ?? false, ProcessKeyring.lastError?.reason ?? "")
    }

    func testNonStringKeyIsParam() {
        let query = NSMutableDictionary(dictionary: genericPassword())
        query[NSNumber(value: 7)] = "seven"
        XCTAssertEqual(SecItemCopyMatching(query, nil), errSecParam)
    }

    func testNSNullValueIsParam() {
        XCTAssertEqual(add(genericPassword([kSecAttrLabel as String: NSNull()])), errSecParam)
    }

    func testStringWhereDataIsExpectedIsParam() {
        XCTAssertEqual(SecItemAdd(genericPassword([kSecValueData as String: "not data"]) as CFDictionary, nil), errSecParam)
        XCTAssertEqual(add(genericPassword([kSecAttrGeneric as String: "not data"])), errSecParam)
    }

    func testDataWhereStringIsExpectedIsParam() {
        // kSecAttrAccount takes Data too (SecItemAppleCompatibilityTests); a label does not.
        XCTAssertEqual(add(genericPassword([kSecAttrLabel as String: Data("label".utf8)])), errSecParam)
    }

    func testUnknownMatchLimitIsParam() {
        XCTAssertEqual(copy(genericPassword([kSecMatchLimit as String: "m_LimitSome"])).status, errSecParam)
        XCTAssertEqual(copy(genericPassword([kSecMatchLimit as String: 0])).status, errSecParam)
        XCTAssertEqual(copy(genericPassword([kSecMatchLimit as String: 2.5])).status, errSecParam)
    }

    func testNumberWhereBooleanIsExpectedIsParam() {
        XCTAssertEqual(copy(genericPassword([kSecReturnData as String: 7])).status, errSecParam)
    }

    func testUnknownAccessibilityIsParam() {
        XCTAssertEqual(add(genericPassword([kSecAttrAccessible as String: "sometimes"])), errSecParam)
    }

    func testAccessibleWithAccessControlIsParam() throws {
        let access = try XCTUnwrap(SecAccessControlCreateWithFlags(nil, kSecAttrAccessibleWhenUnlocked, [], nil))
        XCTAssertEqual(add(genericPassword([kSecAttrAccessible as String: kSecAttrAccessibleAfterFirstUnlock, kSecAttrAccessControl as String: access])), errSecParam)
    }

    func testSynchronizableAnyWhenAddingIsParam() {
        XCTAssertEqual(add(genericPassword([kSecAttrSynchronizable as String: kSecAttrSynchronizableAny])), errSecParam)
    }

    func testInternetAttributeOnGenericPasswordIsNoSuchAttr() {
        XCTAssertEqual(add(genericPassword([kSecAttrServer as String: "example.com"])), errSecNoSuchAttr)
    }

    func testSearchKeyInTheAttributesToUpdateIsParam() {
        XCTAssertEqual(add(genericPassword()), errSecSuccess)
        XCTAssertEqual(SecItemUpdate(genericPassword() as CFDictionary, [kSecReturnData as String: true] as CFDictionary), errSecParam)
    }

    func testEmptyUpdateIsParam() {
        XCTAssertEqual(add(genericPassword()), errSecSuccess)
        XCTAssertEqual(SecItemUpdate(genericPassword() as CFDictionary, [:] as CFDictionary), errSecParam)
    }

    func testNotEmulatedKeyKindsAreUnimplemented() {
        XCTAssertEqual(copy([kSecClass as String: kSecClassKey, kSecAttrKeyClass as String: kSecAttrKeyClassSymmetric]).status, errSecUnimplemented)
        XCTAssertEqual(copy([kSecClass as String: kSecClassKey, kSecAttrTokenID as String: "com.example.token"]).status, errSecUnimplemented)
    }

    func testAValueRefThatIsNoKeyCertificateOrIdentityIsParam() {
        XCTAssertEqual(copy(genericPassword([kSecValueRef as String: Data()])).status, errSecParam)
    }

    func testSecretOverTheNativeLimitIsDataTooLarge() {
        let huge = Data(count: KeychainItem.maximumSecretSize + 1)
        XCTAssertEqual(SecItemAdd(genericPassword([kSecValueData as String: huge]) as CFDictionary, nil), errSecDataTooLarge)
    }

    func testAttributeOverTheNativeLimitIsDataTooLarge() {
        let huge = String(repeating: "a", count: KeychainItem.maximumAttributeSize + 1)
        XCTAssertEqual(add(genericPassword(account: huge)), errSecDataTooLarge)
    }

    func testPortOutOfRangeIsParam() {
        let item: [String: Any] = [kSecClass as String: kSecClassInternetPassword, kSecAttrServer as String: "example.com", kSecAttrPort as String: -1]
        XCTAssertEqual(add(item), errSecParam)
    }

    func testFailureReasonNeverContainsTheSecret() {
        let marker = "SECRET-MARKER-3f9a"
        XCTAssertEqual(add(genericPassword(), secret: marker), errSecSuccess)
        XCTAssertEqual(add(genericPassword(), secret: marker), errSecDuplicateItem)
        XCTAssertFalse(ProcessKeyring.lastError?.description.contains(marker) ?? true)
    }

    /// Random dictionaries from a pool of keys and values of every type: each call returns a
    /// known status, records a reason when it fails, never leaks the secret, and never crashes.
    /// Dictionaries holding NSNull or an unknown key are always `errSecParam`.
    func testRandomDictionariesNeverCrashAndAlwaysGiveAKnownStatus() throws {
        var rng = SeededGenerator()
        let marker = Data("FUZZ-SECRET-MARKER".utf8)
        let access = try XCTUnwrap(SecAccessControlCreateWithFlags(nil, kSecAttrAccessibleAfterFirstUnlock, .userPresence, nil))
        let keys: [AnyHashable] = SecItemKeyPool.keys.map(AnyHashable.init) + ["bogus", "", "v_data", NSNumber(value: 1)]
        let values: [Any] = [
            kSecClassGenericPassword, kSecClassInternetPassword, kSecClassKey, kSecClassCertificate, kSecClassIdentity,
            kSecAttrKeyTypeEC, kSecAttrKeyTypeRSA, kSecAttrKeyClassPrivate, kSecAttrKeyClassPublic, kSecAttrKeyClassSymmetric,
            kSecAttrTokenIDSecureEnclave, "genp", "", "api", "me",
            Self.sharedAccessGroup, Self.applicationGroup, "com.example.shared", "ZZZZZ99999.x", "group.", "agrp\u{0}x",
            kSecAttrAccessibleAfterFirstUnlock, kSecAttrSynchronizableAny, kSecMatchLimitAll, kSecMatchLimitOne,
            kSecUseAuthenticationUIFail, kSecUseAuthenticationUISkip, true, false, 0, 1, -1, 65536, 2.5, Int.max,
            marker, Data(), Data(count: KeychainItem.maximumSecretSize + 1), String(repeating: "x", count: 5000),
            NSNull(), Date(), [1, 2], ["k": "v"], access, NSObject(),
        ]
        let allowed = Set(KeyringStatus.allKnown.map(\.rawValue))
        for round in 0..<400 {
            var dictionary: [AnyHashable: Any] = [:]
            if Int.random(in: 0..<4, using: &rng) > 0 { dictionary[kSecClass as String] = kSecClassGenericPassword }
            for _ in 0..<Int.random(in: 0...6, using: &rng) {
                dictionary[keys.randomElement(using: &rng)!] = values.randomElement(using: &rng)!
            }
            let hasNullOrUnknownKey = dictionary.contains { key, value in
                value is NSNull || (key.base as? String).map { !SecItemKeyPool.keys.contains($0) } ?? true
            }
            let ns = dictionary as NSDictionary
            var result: CFTypeRef?
            let statuses: [(String, OSStatus)] = [
                ("add", SecItemAdd(ns, &result)),
                ("copy", SecItemCopyMatching(ns, &result)),
                ("update", SecItemUpdate(genericPassword() as CFDictionary, ns)),
                ("update query", SecItemUpdate(ns, [kSecAttrLabel as String: "fuzz"] as CFDictionary)),
                ("delete", SecItemDelete(ns)),
            ]
            for (call, status) in statuses {
                let context = "round \(round) \(call) \(dictionary.keys.map { "\($0.base)" }.sorted()): \(rng.describe)"
                XCTAssertTrue(allowed.contains(status), "unknown status \(status), \(context)")
                if hasNullOrUnknownKey && call != "update" && call != "update query" {
                    XCTAssertEqual(status, errSecParam, context)
                }
            }
            // The marker is a secret only where it is the item's secret: as an account or a
            // service it is an attribute, and a reason names the attributes it searched for, as
            // Apple's do (seed 106720411425632 drew it as kSecAttrAccount).
            let markerIsOnlyTheSecret = !dictionary.contains { key, value in
                (key.base as? String) != (kSecValueData as String) && (value as? Data) == marker
            }
            if markerIsOnlyTheSecret, let reason = ProcessKeyring.lastError?.description {
                XCTAssertFalse(reason.contains(String(decoding: marker, as: UTF8.self)), "secret in reason, round \(round): \(rng.describe)")
            }
        }
    }
}

/// Every key the reference lists, for the fuzz pool.
enum SecItemKeyPool {
    static let keys: [String] = [
        kSecClass, kSecAttrService, kSecAttrAccount, kSecAttrAccessGroup, kSecAttrLabel, kSecAttrGeneric,
        kSecAttrDescription, kSecAttrComment, kSecAttrCreator, kSecAttrType, kSecAttrCreationDate,
        kSecAttrModificationDate, kSecAttrIsInvisible, kSecAttrIsNegative, kSecAttrSynchronizable,
        kSecAttrAccessible, kSecAttrAccessControl, kSecAttrServer, kSecAttrProtocol, kSecAttrPort, kSecAttrPath,
        kSecAttrAuthenticationType, kSecAttrSecurityDomain, kSecAttrTokenID, kSecAttrPersistentReference,
        kSecMatchLimit, kSecMatchCaseInsensitive, kSecReturnData, kSecReturnAttributes, kSecReturnRef,
        kSecReturnPersistentRef, kSecValueData, kSecValueRef, kSecValuePersistentRef, kSecUseDataProtectionKeychain,
        kSecUseAuthenticationContext, kSecUseAuthenticationUI, kSecUseOperationPrompt,
        kSecAttrKeyClass, kSecAttrKeyType, kSecAttrKeySizeInBits, kSecAttrEffectiveKeySize, kSecAttrApplicationLabel,
        kSecAttrApplicationTag, kSecAttrIsPermanent, kSecAttrIsSensitive, kSecAttrIsExtractable, kSecAttrCanEncrypt,
        kSecAttrCanDecrypt, kSecAttrCanDerive, kSecAttrCanSign, kSecAttrCanVerify, kSecAttrCanWrap, kSecAttrCanUnwrap,
        kSecAttrCertificateType, kSecAttrCertificateEncoding, kSecAttrSubject, kSecAttrIssuer, kSecAttrSerialNumber,
        kSecAttrSubjectKeyID, kSecAttrPublicKeyHash,
    ].map { $0 as String }
}
#endif
