import Foundation
@testable import Security
import XCTest

/// External representations, attributes, identity and the item material the keychain stores.
final class SecKeyRepresentationTests: XCTestCase {
    func testExternalRepresentationsHaveApplesLayoutsAndRoundTrip() throws {
        for (bits, coordinate) in [(256, 32), (384, 48), (521, 66)] {
            let key = try SecKeyFixtures.randomKey(type: kSecAttrKeyTypeECSECPrimeRandom, bits: bits)
            let privateData = try SecKeyFixtures.external(key)
            let publicData = try SecKeyFixtures.external(XCTUnwrap(SecKeyCopyPublicKey(key)))
            XCTAssertEqual(privateData.count, 1 + 3 * coordinate, "04 || X || Y || K")
            XCTAssertEqual(publicData.count, 1 + 2 * coordinate, "04 || X || Y")
            XCTAssertEqual(publicData.first, 0x04)
            XCTAssertEqual(privateData.prefix(publicData.count), publicData)
            let restored = try SecKeyFixtures.key(privateData, type: kSecAttrKeyTypeECSECPrimeRandom, keyClass: kSecAttrKeyClassPrivate)
            XCTAssertEqual(restored, key)
            XCTAssertEqual(try SecKeyFixtures.external(restored), privateData)
        }
        let rsa = try SecKeyFixtures.randomKey(type: kSecAttrKeyTypeRSA, bits: 2048)
        let rsaPrivate = try SecKeyFixtures.external(rsa)
        XCTAssertEqual(rsaPrivate.prefix(1), Data([0x30]), "PKCS#1 RSAPrivateKey is a DER SEQUENCE")
        let restored = try SecKeyFixtures.key(rsaPrivate, type: kSecAttrKeyTypeRSA, keyClass: kSecAttrKeyClassPrivate)
        XCTAssertEqual(try SecKeyFixtures.external(restored), rsaPrivate)
        XCTAssertEqual(SecKeyGetBlockSize(rsa), 256)
        for (bits, blockSize) in [(256, 32), (384, 48), (521, 72)] {
            XCTAssertEqual(SecKeyGetBlockSize(try SecKeyFixtures.randomKey(type: kSecAttrKeyTypeECSECPrimeRandom, bits: bits)), blockSize)
        }
    }

    func testAttributesDescribeTheKeyAsAppleDoes() throws {
        let tag = Data("com.example.signing".utf8)
        let key = try SecKeyFixtures.randomKey(type: kSecAttrKeyTypeECSECPrimeRandom, bits: 384, extra: [
            kSecPrivateKeyAttrs as String: [kSecAttrApplicationTag as String: tag, kSecAttrLabel as String: "Signing"],
        ])
        let attributes = try XCTUnwrap(SecKeyCopyAttributes(key) as? [String: Any])
        XCTAssertEqual(attributes[kSecAttrKeyType as String] as? String, "73")
        XCTAssertEqual(attributes[kSecAttrKeyClass as String] as? String, "1")
        XCTAssertEqual(attributes[kSecAttrKeySizeInBits as String] as? Int, 384)
        XCTAssertEqual(attributes[kSecAttrApplicationTag as String] as? Data, tag)
        XCTAssertEqual(attributes[kSecAttrLabel as String] as? String, "Signing")
        XCTAssertEqual(attributes[kSecAttrCanSign as String] as? Bool, true)
        XCTAssertEqual(attributes[kSecAttrCanVerify as String] as? Bool, false)
        XCTAssertEqual(attributes[kSecValueData as String] as? Data, try SecKeyFixtures.external(key))
        let publicData = try SecKeyFixtures.external(XCTUnwrap(SecKeyCopyPublicKey(key)))
        XCTAssertEqual(attributes[kSecAttrApplicationLabel as String] as? Data, SecKeyFixtures.sha1(publicData))
    }

    func testConstantsHaveApplesStringValues() {
        let expected: [(CFString, String)] = [
            (kSecAttrKeyTypeECSECPrimeRandom, "73"), (kSecAttrKeyTypeEC, "73"), (kSecAttrKeyTypeRSA, "42"), (kSecAttrKeyClassPublic, "0"),
            (kSecAttrKeyClassPrivate, "1"), (kSecAttrKeyClassSymmetric, "2"), (kSecAttrTokenIDSecureEnclave, "com.apple.setoken"),
            (kSecAttrKeyType, "type"), (kSecAttrKeyClass, "kcls"), (kSecAttrKeySizeInBits, "bsiz"), (kSecAttrApplicationTag, "atag"),
            (kSecAttrApplicationLabel, "klbl"), (kSecAttrIsPermanent, "perm"), (kSecPrivateKeyAttrs, "private"), (kSecPublicKeyAttrs, "public"),
            (SecKeyAlgorithm.eciesEncryptionCofactorVariableIVX963SHA256AESGCM.rawValue, "algid:encrypt:ECIES:ECDHC:KDFX963:SHA256:AESGCM-KDFIV"),
            (SecKeyAlgorithm.ecdsaSignatureMessageX962SHA256.rawValue, "algid:sign:ECDSA:message-X962:SHA256"),
            (SecKeyAlgorithm.rsaSignatureDigestPSSSHA256.rawValue, "algid:sign:RSA:digest-PSS:SHA256:SHA256:32"),
        ]
        for (constant, value) in expected { XCTAssertEqual(constant as String, value) }
    }

    func testKeysAreEqualWhenTheyAreTheSameKey() throws {
        let key = try SecKeyFixtures.randomKey(type: kSecAttrKeyTypeECSECPrimeRandom, bits: 256)
        let publicData = try SecKeyFixtures.external(XCTUnwrap(SecKeyCopyPublicKey(key)))
        let imported = try SecKeyFixtures.key(publicData, type: kSecAttrKeyTypeECSECPrimeRandom, keyClass: kSecAttrKeyClassPublic)
        XCTAssertEqual(imported, SecKeyCopyPublicKey(key))
        XCTAssertEqual(Set([imported, try XCTUnwrap(SecKeyCopyPublicKey(key))]).count, 1)
        XCTAssertNotEqual(imported, key, "a public key is not its private key")
        XCTAssertFalse("\(key)".contains(try SecKeyFixtures.external(key).base64EncodedString()), "descriptions carry no key bytes")
    }

    func testIdentityReturnsItsCertificateAndPrivateKey() throws {
        let certificate = try XCTUnwrap(SecCertificateCreateWithData(nil, SecCertificateTests.ecCertificate as CFData))
        let privateKey = try SecKeyFixtures.key(SecCertificateTests.ecPrivateKey, type: kSecAttrKeyTypeECSECPrimeRandom, keyClass: kSecAttrKeyClassPrivate)
        let identity = SecIdentity(certificate: certificate, privateKey: privateKey)
        var copiedCertificate: SecCertificate?
        var copiedKey: SecKey?
        XCTAssertEqual(SecIdentityCopyCertificate(identity, &copiedCertificate), errSecSuccess)
        XCTAssertEqual(SecIdentityCopyPrivateKey(identity, &copiedKey), errSecSuccess)
        XCTAssertEqual(copiedCertificate, certificate)
        XCTAssertEqual(copiedKey, privateKey)
    }

    func testItemMaterialRebuildsTheSameKeyAndRefusesCorruptMaterial() throws {
        for key in [try SecKeyFixtures.randomKey(type: kSecAttrKeyTypeECSECPrimeRandom, bits: 521),
                    try SecKeyFixtures.randomKey(type: kSecAttrKeyTypeRSA, bits: 2048)] {
            for form in [key, try XCTUnwrap(SecKeyCopyPublicKey(key))] {
                let material = form.itemMaterial
                let rebuilt = try XCTUnwrap(SecKey(itemMaterial: material, accessControl: nil))
                XCTAssertEqual(rebuilt, form)
                XCTAssertEqual(rebuilt.itemMaterial, material)
                var corrupt = material
                corrupt.keyData = material.keyData.dropLast()
                XCTAssertNil(SecKey(itemMaterial: corrupt, accessControl: nil))
                var wrongSize = material
                wrongSize.sizeInBits += 8
                XCTAssertNil(SecKey(itemMaterial: wrongSize, accessControl: nil))
            }
        }
    }

    func testCertificateItemAttributesCarryApplesValues() throws {
        let certificate = try XCTUnwrap(SecCertificateCreateWithData(nil, SecCertificateTests.rsaCertificate as CFData))
        let attributes = certificate.itemAttributes
        XCTAssertEqual(attributes.der, SecCertificateTests.rsaCertificate)
        XCTAssertEqual(attributes.serialNumber, Data([42]))
        XCTAssertEqual(attributes.subjectKeyID, SecCertificateTests.rsaSubjectKeyID)
        XCTAssertEqual(attributes.publicKeyHash, SecCertificateTests.rsaSubjectKeyID)
        XCTAssertEqual(attributes.label, "GroupVault Test RSA")
        XCTAssertEqual(attributes.certificateType, 3)
        XCTAssertEqual(attributes.certificateEncoding, 3)
        XCTAssertEqual(attributes.subject, attributes.issuer)
    }
}
