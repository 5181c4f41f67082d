import Foundation
import Keyring
import Security
import XCTest

/// Emulated Secure Enclave keys: P-256 only, private part never exported, access control enforced
/// through the emulated person (UserPresence).
final class SecureEnclaveKeyTests: XCTestCase {
    override func tearDown() {
        UserPresence.response = .approve
        super.tearDown()
    }

    private func enclaveKey(flags: SecAccessControlCreateFlags = [.privateKeyUsage]) throws -> SecKey {
        let access = try XCTUnwrap(SecAccessControlCreateWithFlags(nil, kSecAttrAccessibleWhenUnlockedThisDeviceOnly, flags, nil))
        return try SecKeyFixtures.randomKey(type: kSecAttrKeyTypeECSECPrimeRandom, bits: 256, extra: [
            kSecAttrTokenID as String: kSecAttrTokenIDSecureEnclave,
            kSecPrivateKeyAttrs as String: [kSecAttrAccessControl as String: access],
        ])
    }

    func testOnlyP256KeysAreCreatedInTheEnclave() {
        for (type, bits) in [(kSecAttrKeyTypeECSECPrimeRandom, 384), (kSecAttrKeyTypeECSECPrimeRandom, 521), (kSecAttrKeyTypeRSA, 2048)] {
            XCTAssertEqual(SecKeyFixtures.status { error in
                SecKeyCreateRandomKey([kSecAttrKeyType as String: type, kSecAttrKeySizeInBits as String: bits,
                                       kSecAttrTokenID as String: kSecAttrTokenIDSecureEnclave] as CFDictionary, error)
            }, Int(errSecParam), "\(type) \(bits)")
        }
    }

    func testThePrivateKeyIsNeverExportedButThePublicKeyIs() throws {
        let key = try enclaveKey()
        XCTAssertEqual(SecKeyFixtures.status { SecKeyCopyExternalRepresentation(key, $0) }, Int(errSecUnimplemented))
        let attributes = try XCTUnwrap(SecKeyCopyAttributes(key) as? [String: Any])
        XCTAssertNil(attributes[kSecValueData as String], "SecKeyCopyAttributes must not carry the private key")
        XCTAssertEqual(attributes[kSecAttrTokenID as String] as? String, kSecAttrTokenIDSecureEnclave as String)
        let publicKey = try XCTUnwrap(SecKeyCopyPublicKey(key))
        let publicData = try SecKeyFixtures.external(publicKey)
        XCTAssertEqual(publicData.count, 65)
        XCTAssertEqual(try SecKeyFixtures.key(publicData, type: kSecAttrKeyTypeECSECPrimeRandom, keyClass: kSecAttrKeyClassPublic), publicKey,
                       "the exported public key imports to the same key")
    }

    func testSigningAndDecryptingAskForUserPresenceWhenTheAccessControlSaysSo() throws {
        let key = try enclaveKey(flags: [.privateKeyUsage, .userPresence])
        let ciphertext = try SecKeyFixtures.encrypt(XCTUnwrap(SecKeyCopyPublicKey(key)), .eciesEncryptionCofactorVariableIVX963SHA256AESGCM,
                                                    SecKeyFixtures.message)
        UserPresence.response = .approve
        XCTAssertNoThrow(try SecKeyFixtures.sign(key, .ecdsaSignatureMessageX962SHA256, SecKeyFixtures.message))
        XCTAssertEqual(try SecKeyFixtures.decrypt(key, .eciesEncryptionCofactorVariableIVX963SHA256AESGCM, ciphertext), SecKeyFixtures.message)

        UserPresence.response = .deny
        XCTAssertEqual(SecKeyFixtures.status { SecKeyCreateSignature(key, .ecdsaSignatureMessageX962SHA256, SecKeyFixtures.message as CFData, $0) },
                       Int(errSecUserCanceled))
        XCTAssertEqual(SecKeyFixtures.status { SecKeyCreateDecryptedData(key, .eciesEncryptionCofactorVariableIVX963SHA256AESGCM, ciphertext as CFData, $0) },
                       Int(errSecUserCanceled))
        XCTAssertEqual(SecKeyFixtures.status { SecKeyCopyKeyExchangeResult(key, .ecdhKeyExchangeStandard, key, [:] as CFDictionary, $0) },
                       Int(errSecUserCanceled))

        UserPresence.response = .unavailable
        XCTAssertEqual(SecKeyFixtures.status { SecKeyCreateSignature(key, .ecdsaSignatureMessageX962SHA256, SecKeyFixtures.message as CFData, $0) },
                       Int(errSecAuthFailed))
    }

    func testBiometryFlagsAreEnforcedLikeUserPresence() throws {
        let key = try enclaveKey(flags: [.privateKeyUsage, .biometryCurrentSet])
        UserPresence.response = .deny
        XCTAssertEqual(SecKeyFixtures.status { SecKeyCreateSignature(key, .ecdsaSignatureMessageX962SHA256, SecKeyFixtures.message as CFData, $0) },
                       Int(errSecUserCanceled))
    }

    func testPrivateKeyUsageAloneNeedsNoPresenceAndPublicOperationsNeverDo() throws {
        let key = try enclaveKey(flags: [.privateKeyUsage])
        UserPresence.response = .deny
        let signature = try SecKeyFixtures.sign(key, .ecdsaSignatureMessageX962SHA256, SecKeyFixtures.message)
        let guarded = try enclaveKey(flags: [.privateKeyUsage, .userPresence])
        let publicKey = try XCTUnwrap(SecKeyCopyPublicKey(guarded))
        XCTAssertNoThrow(try SecKeyFixtures.encrypt(publicKey, .eciesEncryptionStandardX963SHA256AESGCM, SecKeyFixtures.message))
        let verifier = try XCTUnwrap(SecKeyCopyPublicKey(key))
        XCTAssertTrue(SecKeyVerifySignature(verifier, .ecdsaSignatureMessageX962SHA256,
                                            SecKeyFixtures.message as CFData, signature as CFData, nil))
    }
}
