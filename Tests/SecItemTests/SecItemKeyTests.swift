// These tests exercise the Linux emulator; on Apple platforms SecItem is the real framework.
#if !canImport(Darwin)
import Foundation
import Keyring
@testable import Security
import KeyringTestSupport
import XCTest

/// Keys, certificates and identities through Apple's four SecItem functions
/// (docs/SECITEM.md, "Keys, certificates and identities"), one behaviour per test.
final class SecItemKeyTests: SecItemTestCase {
    // MARK: Arrangement

    /// A P-256 key pair and a self-signed certificate for its public key (CN=GroupVault Test
    /// Identity, serial 4660), made once with `openssl ecparam -name prime256v1` and
    /// `openssl req -x509`: the private key as ANSI X9.63 (04 | X | Y | K), the certificate as DER.
    static let identityKeyX963 = Data(base64Encoded:
            "BC79/eNYGPFzayrRUStOCp7969fdjaumsnFiDnM9QwwHYz/jcWpevWWorieVYkCR9nfabuqm2RtxHTAFENV20pIasYOvIVii"
            + "qmfO/DctxFqyLgXAObHP/OV1YOT1kgfTyw==")!
    static let identityCertificateDER = Data(base64Encoded:
            "MIIBtTCCAVugAwIBAgICEjQwCgYIKoZIzj0EAwIwODEhMB8GA1UEAwwYR3JvdXBWYXVsdCBUZXN0IElkZW50aXR5MRMwEQYD"
            + "VQQKDApHcm91cFZhdWx0MCAXDTI2MTEyNTA0MDI1OVoYDzIxMjYxMTAxMDQwMjU5WjA4MSEwHwYDVQQDDBhHcm91cFZhdWx0"
            + "IFRlc3QgSWRlbnRpdHkxEzARBgNVBAoMCkdyb3VwVmF1bHQwWTATBgcqhkjOPQIBBggqhkjOPQMBBwNCAAQu/f3jWBjxc2sq"
            + "0VErTgqe/evX3Y2rprJxYg5zPUMMB2M/43FqXr1lqK4nlWJAkfZ32m7qptkbcR0wBRDVdtKSo1MwUTAdBgNVHQ4EFgQUP9XB"
            + "tCOeF9NaqFrtKhiKvBhOGrswHwYDVR0jBBgwFoAUP9XBtCOeF9NaqFrtKhiKvBhOGrswDwYDVR0TAQH/BAUwAwEB/zAKBggq"
            + "hkjOPQQDAgNIADBFAiEAvktyDy1ew+IeB1n36nAZJl8aGhEQiOx1PXl5mCKbKisCIDGb8oHKxvstpwPtNYB19k6zRiuRjWB1"
            + "CJ2o4SV8u83T")!

    private let tag = Data("com.example.signing".utf8)

    /// A new P-256 private key stored with `kSecAttrIsPermanent` under `tag`, plus `extra`
    /// private-key attributes.
    private func createStoredKey(tag: Data? = nil, _ extra: [String: Any] = [:]) throws -> SecKey {
        var privateAttributes: [String: Any] = [kSecAttrIsPermanent as String: true, kSecAttrApplicationTag as String: tag ?? self.tag]
        privateAttributes.merge(extra) { _, new in new }
        var error: Unmanaged<CFError>?
        let parameters: [String: Any] = [
            kSecAttrKeyType as String: kSecAttrKeyTypeECSECPrimeRandom, kSecAttrKeySizeInBits as String: 256,
            kSecPrivateKeyAttrs as String: privateAttributes,
        ]
        guard let key = SecKeyCreateRandomKey(parameters as CFDictionary, &error) else {
            throw error!.takeRetainedValue() as Error
        }
        return key
    }

    private func keyQuery(_ extra: [String: Any] = [:]) -> [String: Any] {
        [kSecClass as String: kSecClassKey, kSecAttrApplicationTag as String: tag].merging(extra) { _, new in new }
    }

    private func signature(_ key: SecKey, _ message: Data = Data("message".utf8)) -> Data? {
        SecKeyCreateSignature(key, .ecdsaSignatureMessageX962SHA256, message as CFData, nil) as Data?
    }

    private func verifies(_ signature: Data, _ privateKey: SecKey, _ message: Data = Data("message".utf8)) -> Bool {
        guard let publicKey = SecKeyCopyPublicKey(privateKey) else { return false }
        return SecKeyVerifySignature(publicKey, .ecdsaSignatureMessageX962SHA256, message as CFData, signature as CFData, nil)
    }

    private func storeIdentityParts() throws -> (key: SecKey, certificate: SecCertificate) {
        let attributes = [kSecAttrKeyType as String: kSecAttrKeyTypeECSECPrimeRandom, kSecAttrKeyClass as String: kSecAttrKeyClassPrivate] as CFDictionary
        let key = try XCTUnwrap(SecKeyCreateWithData(Self.identityKeyX963 as CFData, attributes, nil))
        let certificate = try XCTUnwrap(SecCertificateCreateWithData(nil, Self.identityCertificateDER as CFData))
        XCTAssertEqual(SecItemAdd([kSecClass as String: kSecClassKey, kSecValueRef as String: key] as CFDictionary, nil), errSecSuccess, describe(errSecSuccess))
        XCTAssertEqual(SecItemAdd([kSecClass as String: kSecClassCertificate, kSecValueRef as String: certificate] as CFDictionary, nil), errSecSuccess)
        return (key, certificate)
    }

    // MARK: Keys

    func testAPermanentKeyIsFoundByItsApplicationTagAndSigns() throws {
        let created = try createStoredKey()
        let (status, result) = copy(keyQuery([kSecReturnRef as String: true]))
        XCTAssertEqual(status, errSecSuccess, describe(status))
        let found = try XCTUnwrap(result as! SecKey?)
        let signed = try XCTUnwrap(signature(found))
        XCTAssertTrue(verifies(signed, created))
    }

    func testAKeyUnderAnotherTagIsNotFound() throws {
        _ = try createStoredKey()
        XCTAssertEqual(copy(keyQuery([kSecAttrApplicationTag as String: Data("other".utf8)])).status, errSecItemNotFound)
    }

    func testAnApplicationTagGivenAsAStringMatchesItsUTF8Bytes() throws {
        _ = try createStoredKey()
        XCTAssertEqual(copy(keyQuery([kSecAttrApplicationTag as String: "com.example.signing"])).status, errSecSuccess)
    }

    func testAddingTheSameKeyTwiceIsADuplicate() throws {
        let key = try createStoredKey()
        XCTAssertEqual(SecItemAdd([kSecClass as String: kSecClassKey, kSecValueRef as String: key, kSecAttrApplicationTag as String: tag] as CFDictionary, nil), errSecDuplicateItem)
    }

    func testAKeysAttributesHaveApplesShapes() throws {
        let key = try createStoredKey()
        let (status, result) = copy(keyQuery([kSecReturnAttributes as String: true]))
        XCTAssertEqual(status, errSecSuccess, describe(status))
        let attributes = try XCTUnwrap(result as? [String: Any])
        XCTAssertEqual(attributes[kSecClass as String] as? String, kSecClassKey as String)
        XCTAssertEqual(attributes[kSecAttrKeyClass as String] as? Int, 1)
        XCTAssertEqual(attributes[kSecAttrKeyType as String] as? Int, 73)
        XCTAssertEqual(attributes[kSecAttrKeySizeInBits as String] as? Int, 256)
        XCTAssertEqual(attributes[kSecAttrApplicationTag as String] as? Data, tag)
        XCTAssertEqual(attributes[kSecAttrCanSign as String] as? Bool, true)
        XCTAssertEqual(attributes[kSecAttrAccessGroup as String] as? String, Self.sharedAccessGroup)
        let label = try XCTUnwrap(attributes[kSecAttrApplicationLabel as String] as? Data)
        XCTAssertEqual(label.count, 20, "SHA-1 of the public key")
        let keyAttributes = try XCTUnwrap(SecKeyCopyAttributes(SecKeyCopyPublicKey(key)!) as? [String: Any])
        XCTAssertEqual(keyAttributes[kSecAttrApplicationLabel as String] as? Data, label)
    }

    func testReturnDataOfASoftwarePrivateKeyIsItsExternalRepresentation() throws {
        let key = try createStoredKey()
        let (status, result) = copy(keyQuery([kSecReturnData as String: true]))
        XCTAssertEqual(status, errSecSuccess, describe(status))
        XCTAssertEqual(result as? Data, SecKeyCopyExternalRepresentation(key, nil) as Data?)
    }

    func testAQueryByKeyTypeConstantMatchesTheStoredKey() throws {
        _ = try createStoredKey()
        XCTAssertEqual(copy(keyQuery([kSecAttrKeyType as String: kSecAttrKeyTypeEC, kSecAttrKeyClass as String: kSecAttrKeyClassPrivate])).status, errSecSuccess)
        XCTAssertEqual(copy(keyQuery([kSecAttrKeyType as String: 73, kSecAttrKeyClass as String: 1])).status, errSecSuccess, "as attributes return them")
        XCTAssertEqual(copy(keyQuery([kSecAttrKeyType as String: kSecAttrKeyTypeRSA])).status, errSecItemNotFound)
        XCTAssertEqual(copy(keyQuery([kSecAttrKeyClass as String: kSecAttrKeyClassPublic])).status, errSecItemNotFound)
    }

    func testMatchLimitAllReturnsEveryKeyAsAnArray() throws {
        _ = try createStoredKey(tag: Data("a".utf8))
        _ = try createStoredKey(tag: Data("b".utf8))
        let (status, result) = copy([kSecClass as String: kSecClassKey, kSecMatchLimit as String: kSecMatchLimitAll, kSecReturnRef as String: true])
        XCTAssertEqual(status, errSecSuccess, describe(status))
        XCTAssertEqual((result as? [Any])?.count, 2)
    }

    func testUpdateRetagsAKey() throws {
        _ = try createStoredKey()
        XCTAssertEqual(SecItemUpdate(keyQuery() as CFDictionary, [kSecAttrApplicationTag as String: Data("new".utf8)] as CFDictionary), errSecSuccess)
        XCTAssertEqual(copy(keyQuery([kSecAttrApplicationTag as String: Data("new".utf8)])).status, errSecSuccess)
    }

    func testAnUpdateCannotChangeWhatTheKeyItselfDetermines() throws {
        _ = try createStoredKey()
        XCTAssertEqual(SecItemUpdate(keyQuery() as CFDictionary, [kSecAttrKeySizeInBits as String: 384] as CFDictionary), errSecParam)
        XCTAssertEqual(SecItemUpdate(keyQuery() as CFDictionary, [kSecValueData as String: Data([1, 2, 3])] as CFDictionary), errSecParam)
    }

    func testAKeyReadFromTheKeychainReportsItsTagAndLabel() throws {
        _ = try createStoredKey(tag: nil, [kSecAttrLabel as String: "signing"])
        let found = try XCTUnwrap(copy(keyQuery([kSecReturnRef as String: true])).result as! SecKey?)
        let attributes = try XCTUnwrap(SecKeyCopyAttributes(found) as? [String: Any])
        XCTAssertEqual(attributes[kSecAttrApplicationTag as String] as? Data, tag)
        XCTAssertEqual(attributes[kSecAttrLabel as String] as? String, "signing")
    }

    func testDeleteRemovesTheKey() throws {
        _ = try createStoredKey()
        XCTAssertEqual(SecItemDelete(keyQuery() as CFDictionary), errSecSuccess)
        XCTAssertEqual(copy(keyQuery()).status, errSecItemNotFound)
    }

    func testDeleteByValueRefRemovesOnlyThatKey() throws {
        let first = try createStoredKey(tag: Data("a".utf8))
        _ = try createStoredKey(tag: Data("b".utf8))
        XCTAssertEqual(SecItemDelete([kSecClass as String: kSecClassKey, kSecValueRef as String: first] as CFDictionary), errSecSuccess)
        XCTAssertEqual(copy([kSecClass as String: kSecClassKey, kSecMatchLimit as String: kSecMatchLimitAll, kSecReturnAttributes as String: true]).result.map { ($0 as? [Any])?.count }, 1)
    }

    func testAPasswordAttributeOnAKeyIsNoSuchAttribute() {
        XCTAssertEqual(copy(keyQuery([kSecAttrService as String: "api"])).status, errSecNoSuchAttr)
    }

    func testASymmetricKeyClassIsUnimplemented() {
        XCTAssertEqual(copy(keyQuery([kSecAttrKeyClass as String: kSecAttrKeyClassSymmetric])).status, errSecUnimplemented)
    }

    // MARK: Secure Enclave keys

    func testASecureEnclaveKeyIsStoredUsableAndNeverReturnedAsItsBytes() throws {
        var error: Unmanaged<CFError>?
        let parameters: [String: Any] = [
            kSecAttrKeyType as String: kSecAttrKeyTypeECSECPrimeRandom, kSecAttrKeySizeInBits as String: 256,
            kSecAttrTokenID as String: kSecAttrTokenIDSecureEnclave,
            kSecPrivateKeyAttrs as String: [kSecAttrIsPermanent as String: true, kSecAttrApplicationTag as String: tag],
        ]
        let created = try XCTUnwrap(SecKeyCreateRandomKey(parameters as CFDictionary, &error))
        let (status, result) = copy(keyQuery([kSecReturnRef as String: true, kSecReturnData as String: true, kSecReturnAttributes as String: true]))
        XCTAssertEqual(status, errSecSuccess, describe(status))
        let attributes = try XCTUnwrap(result as? [String: Any])
        XCTAssertEqual(attributes[kSecAttrTokenID as String] as? String, kSecAttrTokenIDSecureEnclave as String)
        let data = try XCTUnwrap(attributes[kSecValueData as String] as? Data)
        let found = try XCTUnwrap(attributes[kSecValueRef as String] as! SecKey?)
        XCTAssertNil(SecKeyCopyExternalRepresentation(found, nil), "a Secure Enclave key is not exportable")
        let signed = try XCTUnwrap(signature(found))
        XCTAssertTrue(verifies(signed, created))
        XCTAssertFalse(data.count == 97 && data.first == 4, "kSecReturnData gave an X9.63 private key")
    }

    func testASecureEnclaveKeyWithAPermanentPublicHalfStoresBothTheTokenOnlyOnThePrivate() throws {
        var error: Unmanaged<CFError>?
        let publicTag = Data("public-half".utf8)
        let parameters: [String: Any] = [
            kSecAttrKeyType as String: kSecAttrKeyTypeECSECPrimeRandom, kSecAttrKeySizeInBits as String: 256,
            kSecAttrTokenID as String: kSecAttrTokenIDSecureEnclave,
            kSecPrivateKeyAttrs as String: [kSecAttrIsPermanent as String: true, kSecAttrApplicationTag as String: tag],
            kSecPublicKeyAttrs as String: [kSecAttrIsPermanent as String: true, kSecAttrApplicationTag as String: publicTag],
        ]
        let created = SecKeyCreateRandomKey(parameters as CFDictionary, &error)
        XCTAssertNotNil(created, "\(String(describing: error?.takeRetainedValue()))")
        let (status, result) = copy([
            kSecClass as String: kSecClassKey, kSecAttrApplicationTag as String: publicTag,
            kSecReturnAttributes as String: true, kSecReturnRef as String: true,
        ])
        XCTAssertEqual(status, errSecSuccess, describe(status))
        let attributes = try XCTUnwrap(result as? [String: Any])
        XCTAssertNil(attributes[kSecAttrTokenID as String], "the public half is an ordinary key")
        let publicKey = try XCTUnwrap(attributes[kSecValueRef as String] as! SecKey?)
        let privateKey = try XCTUnwrap(created)
        XCTAssertTrue(verifies(try XCTUnwrap(signature(privateKey)), publicKey))
    }

    func testASecureEnclaveKeysAccessControlIsAskedWhenItSignsNotWhenItIsFound() throws {
        let access = try XCTUnwrap(SecAccessControlCreateWithFlags(nil, kSecAttrAccessibleWhenUnlockedThisDeviceOnly, [.privateKeyUsage, .userPresence], nil))
        var error: Unmanaged<CFError>?
        let parameters: [String: Any] = [
            kSecAttrKeyType as String: kSecAttrKeyTypeECSECPrimeRandom, kSecAttrKeySizeInBits as String: 256,
            kSecAttrTokenID as String: kSecAttrTokenIDSecureEnclave,
            kSecPrivateKeyAttrs as String: [kSecAttrIsPermanent as String: true, kSecAttrApplicationTag as String: tag, kSecAttrAccessControl as String: access],
        ]
        _ = try XCTUnwrap(SecKeyCreateRandomKey(parameters as CFDictionary, &error))
        UserPresence.response = .deny
        let (status, result) = copy(keyQuery([kSecReturnRef as String: true]))
        XCTAssertEqual(status, errSecSuccess, describe(status))
        let found = try XCTUnwrap(result as! SecKey?)
        XCTAssertNil(signature(found), "signing without the person's approval")
        UserPresence.response = .approve
        XCTAssertNotNil(signature(found))
    }

    // MARK: Certificates and identities

    func testACertificateIsFoundByItsSerialNumberAndReturnedAsItself() throws {
        let certificate = try XCTUnwrap(SecCertificateCreateWithData(nil, Self.identityCertificateDER as CFData))
        XCTAssertEqual(SecItemAdd([kSecClass as String: kSecClassCertificate, kSecValueRef as String: certificate, kSecAttrLabel as String: "leaf"] as CFDictionary, nil), errSecSuccess)
        let (status, result) = copy([kSecClass as String: kSecClassCertificate, kSecAttrSerialNumber as String: Data([0x12, 0x34]), kSecReturnRef as String: true])
        XCTAssertEqual(status, errSecSuccess, describe(status))
        let found = try XCTUnwrap(result as! SecCertificate?)
        XCTAssertEqual(SecCertificateCopyData(found) as Data, Self.identityCertificateDER)
    }

    func testReturnDataOfACertificateIsItsDER() throws {
        XCTAssertEqual(SecItemAdd([kSecClass as String: kSecClassCertificate, kSecValueData as String: Self.identityCertificateDER] as CFDictionary, nil), errSecSuccess, describe(-1))
        XCTAssertEqual(copy([kSecClass as String: kSecClassCertificate, kSecReturnData as String: true]).result as? Data, Self.identityCertificateDER)
    }

    func testTheSameCertificateTwiceIsADuplicate() throws {
        XCTAssertEqual(SecItemAdd([kSecClass as String: kSecClassCertificate, kSecValueData as String: Self.identityCertificateDER] as CFDictionary, nil), errSecSuccess)
        XCTAssertEqual(SecItemAdd([kSecClass as String: kSecClassCertificate, kSecValueData as String: Self.identityCertificateDER, kSecAttrLabel as String: "other"] as CFDictionary, nil), errSecDuplicateItem)
    }

    func testAnIdentityIsFoundWhenTheCertificatesKeyIsStored() throws {
        let (key, _) = try storeIdentityParts()
        let (status, result) = copy([kSecClass as String: kSecClassIdentity, kSecReturnRef as String: true])
        XCTAssertEqual(status, errSecSuccess, describe(status))
        let identity = try XCTUnwrap(result as! SecIdentity?)
        var privateKey: SecKey?
        XCTAssertEqual(SecIdentityCopyPrivateKey(identity, &privateKey), errSecSuccess)
        let signed = try XCTUnwrap(signature(try XCTUnwrap(privateKey)))
        XCTAssertTrue(verifies(signed, key))
        var certificate: SecCertificate?
        XCTAssertEqual(SecIdentityCopyCertificate(identity, &certificate), errSecSuccess)
        XCTAssertEqual(certificate.map { SecCertificateCopyData($0) as Data }, Self.identityCertificateDER)
    }

    func testACertificateAloneIsNoIdentity() throws {
        XCTAssertEqual(SecItemAdd([kSecClass as String: kSecClassCertificate, kSecValueData as String: Self.identityCertificateDER] as CFDictionary, nil), errSecSuccess)
        XCTAssertEqual(copy([kSecClass as String: kSecClassIdentity, kSecReturnRef as String: true]).status, errSecItemNotFound)
    }

    func testAddingAnIdentityAddsItsCertificateAndItsKey() throws {
        let attributes = [kSecAttrKeyType as String: kSecAttrKeyTypeECSECPrimeRandom, kSecAttrKeyClass as String: kSecAttrKeyClassPrivate] as CFDictionary
        let key = try XCTUnwrap(SecKeyCreateWithData(Self.identityKeyX963 as CFData, attributes, nil))
        let certificate = try XCTUnwrap(SecCertificateCreateWithData(nil, Self.identityCertificateDER as CFData))
        // Apple code gets an identity from SecPKCS12Import or the keychain; the initializer is internal.
        let identity = SecIdentity(certificate: certificate, privateKey: key)
        XCTAssertEqual(SecItemAdd([kSecClass as String: kSecClassIdentity, kSecValueRef as String: identity] as CFDictionary, nil), errSecSuccess, describe(-1))
        XCTAssertEqual(copy([kSecClass as String: kSecClassCertificate]).status, errSecSuccess)
        XCTAssertEqual(copy([kSecClass as String: kSecClassKey]).status, errSecSuccess)
    }

    func testAnIdentityWhoseKeyIsRefusedLeavesNoCertificateBehind() throws {
        let attributes = [kSecAttrKeyType as String: kSecAttrKeyTypeECSECPrimeRandom, kSecAttrKeyClass as String: kSecAttrKeyClassPrivate] as CFDictionary
        let key = try XCTUnwrap(SecKeyCreateWithData(Self.identityKeyX963 as CFData, attributes, nil))
        let certificate = try XCTUnwrap(SecCertificateCreateWithData(nil, Self.identityCertificateDER as CFData))
        let identity = SecIdentity(certificate: certificate, privateKey: key)
        // The tag applies to the key only, and is over the attribute limit: the key is refused.
        let oversizedTag = Data(count: KeychainItem.maximumAttributeSize + 1)
        XCTAssertEqual(SecItemAdd([kSecClass as String: kSecClassIdentity, kSecValueRef as String: identity,
                                   kSecAttrApplicationTag as String: oversizedTag] as CFDictionary, nil), errSecDataTooLarge)
        XCTAssertEqual(copy([kSecClass as String: kSecClassCertificate]).status, errSecItemNotFound)
    }

    func testDeletingAnIdentityDeletesItsCertificateAndItsKey() throws {
        _ = try storeIdentityParts()
        XCTAssertEqual(SecItemDelete([kSecClass as String: kSecClassIdentity] as CFDictionary), errSecSuccess)
        XCTAssertEqual(copy([kSecClass as String: kSecClassCertificate]).status, errSecItemNotFound)
        XCTAssertEqual(copy([kSecClass as String: kSecClassKey]).status, errSecItemNotFound)
    }

    // MARK: Password codes and flags

    func testCreatorTypeAndFlagsRoundTripInTheTypesGiven() throws {
        XCTAssertEqual(add(genericPassword([
            kSecAttrCreator as String: 0x6143_7274, kSecAttrType as String: "Type Test",
            kSecAttrIsInvisible as String: true, kSecAttrIsNegative as String: true,
        ])), errSecSuccess, describe(-1))
        let attributes = try XCTUnwrap(copy(genericPassword([kSecReturnAttributes as String: true])).result as? [String: Any])
        XCTAssertEqual(attributes[kSecAttrCreator as String] as? Int, 0x6143_7274)
        XCTAssertEqual(attributes[kSecAttrType as String] as? String, "Type Test")
        XCTAssertEqual(attributes[kSecAttrIsInvisible as String] as? Bool, true)
        XCTAssertEqual(attributes[kSecAttrIsNegative as String] as? Bool, true)
    }

    func testFlagsGivenAsFalseAreReturnedAndFlagsNeverGivenAreNot() throws {
        XCTAssertEqual(add(genericPassword(account: "given", [kSecAttrIsInvisible as String: false, kSecAttrIsNegative as String: false])), errSecSuccess)
        XCTAssertEqual(add(genericPassword(account: "absent")), errSecSuccess)
        let given = try XCTUnwrap(copy(genericPassword(account: "given", [kSecReturnAttributes as String: true])).result as? [String: Any])
        XCTAssertEqual(given[kSecAttrIsInvisible as String] as? Bool, false)
        XCTAssertEqual(given[kSecAttrIsNegative as String] as? Bool, false)
        let absent = try XCTUnwrap(copy(genericPassword(account: "absent", [kSecReturnAttributes as String: true])).result as? [String: Any])
        XCTAssertNil(absent[kSecAttrIsInvisible as String])
        XCTAssertNil(absent[kSecAttrIsNegative as String])
    }

    func testCreatorIsNotPartOfAPasswordsPrimaryKey() {
        XCTAssertEqual(add(genericPassword([kSecAttrCreator as String: 1])), errSecSuccess)
        XCTAssertEqual(add(genericPassword([kSecAttrCreator as String: 2])), errSecDuplicateItem)
    }

    func testAQueryByCreatorMatchesOnlyItemsWithThatCreator() {
        XCTAssertEqual(add(genericPassword(account: "a", [kSecAttrCreator as String: 0x6B63_636C])), errSecSuccess)
        XCTAssertEqual(add(genericPassword(account: "b")), errSecSuccess)
        let (status, result) = copy([kSecClass as String: kSecClassGenericPassword, kSecAttrCreator as String: 0x6B63_636C,
                                     kSecMatchLimit as String: kSecMatchLimitAll, kSecReturnAttributes as String: true])
        XCTAssertEqual(status, errSecSuccess)
        XCTAssertEqual((result as? [[String: Any]])?.compactMap { $0[kSecAttrAccount as String] as? String }, ["a"])
    }

    func testAQueryForInvisibleItemsSkipsVisibleOnes() {
        XCTAssertEqual(add(genericPassword()), errSecSuccess)
        XCTAssertEqual(copy(genericPassword([kSecAttrIsInvisible as String: true])).status, errSecItemNotFound)
        XCTAssertEqual(copy(genericPassword([kSecAttrIsInvisible as String: false])).status, errSecSuccess)
    }

    func testUpdateSetsTheType() throws {
        XCTAssertEqual(add(genericPassword()), errSecSuccess)
        XCTAssertEqual(SecItemUpdate(genericPassword() as CFDictionary, [kSecAttrType as String: 0x7465_7374] as CFDictionary), errSecSuccess)
        let attributes = try XCTUnwrap(copy(genericPassword([kSecReturnAttributes as String: true])).result as? [String: Any])
        XCTAssertEqual(attributes[kSecAttrType as String] as? Int, 0x7465_7374)
    }

    func testACreatorOutsideFourBytesIsAParameterError() {
        XCTAssertEqual(add(genericPassword([kSecAttrCreator as String: -1])), errSecParam)
    }
}
#endif
