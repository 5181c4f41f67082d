import Foundation
import Security
import XCTest

/// Wrong sizes, wrong algorithms, wrong key classes and damaged inputs give Apple's errors, never
/// a crash or a wrong answer.
final class SecKeyBadInputTests: XCTestCase {
    private let message = SecKeyFixtures.message

    func testUnsupportedKeyTypesAndSizesAreRefusedWithErrSecParam() {
        let cases: [(CFString, Int)] = [
            (kSecAttrKeyTypeECSECPrimeRandom, 192), (kSecAttrKeyTypeECSECPrimeRandom, 255), (kSecAttrKeyTypeRSA, 1016),
            (kSecAttrKeyTypeRSA, 8192), (kSecAttrKeyTypeRSA, 2047), (kSecAttrKeyTypeDSA, 2048), (kSecAttrKeyTypeAES, 256),
        ]
        for (type, bits) in cases {
            XCTAssertEqual(SecKeyFixtures.status { error in
                SecKeyCreateRandomKey([kSecAttrKeyType as String: type, kSecAttrKeySizeInBits as String: bits] as CFDictionary, error)
            }, Int(errSecParam), "\(type) \(bits)")
        }
        XCTAssertEqual(SecKeyFixtures.status { SecKeyCreateRandomKey([kSecAttrKeyType as String: kSecAttrKeyTypeRSA] as CFDictionary, $0) },
                       Int(errSecParam), "no size")
    }

    func testErrorsAreInTheOSStatusDomain() throws {
        var error: Unmanaged<CFError>?
        XCTAssertNil(SecKeyCreateRandomKey([kSecAttrKeyType as String: kSecAttrKeyTypeDSA] as CFDictionary, &error))
        let failure = try XCTUnwrap(error?.takeRetainedValue())
        XCTAssertEqual(CFErrorGetDomain(failure) as String, NSOSStatusErrorDomain)
        XCTAssertEqual(CFErrorGetCode(failure), Int(errSecParam))
    }

    func testAlgorithmsOfAnotherKeyFamilyAreRefusedWithErrSecParam() throws {
        let ec = try SecKeyFixtures.randomKey(type: kSecAttrKeyTypeECSECPrimeRandom, bits: 256)
        let rsa = try SecKeyFixtures.randomKey(type: kSecAttrKeyTypeRSA, bits: 2048)
        XCTAssertFalse(SecKeyIsAlgorithmSupported(ec, .sign, .rsaSignatureMessagePKCS1v15SHA256))
        XCTAssertFalse(SecKeyIsAlgorithmSupported(rsa, .sign, .ecdsaSignatureMessageX962SHA256))
        XCTAssertEqual(SecKeyFixtures.status { SecKeyCreateSignature(ec, .rsaSignatureMessagePSSSHA256, self.message as CFData, $0) }, Int(errSecParam))
        XCTAssertEqual(SecKeyFixtures.status { SecKeyCreateDecryptedData(rsa, .eciesEncryptionStandardX963SHA256AESGCM, self.message as CFData, $0) },
                       Int(errSecParam))
        XCTAssertEqual(SecKeyFixtures.status { SecKeyCreateEncryptedData(ec, .ecdsaSignatureMessageX962SHA256, self.message as CFData, $0) },
                       Int(errSecParam), "a signature algorithm used to encrypt")
        XCTAssertEqual(SecKeyFixtures.status { SecKeyCreateSignature(ec, SecKeyAlgorithm(rawValue: "algid:nonsense" as CFString), self.message as CFData, $0) },
                       Int(errSecParam), "an unknown identifier")
    }

    func testPublicKeysCannotSignDecryptOrExchange() throws {
        let key = try SecKeyFixtures.randomKey(type: kSecAttrKeyTypeECSECPrimeRandom, bits: 256)
        let publicKey = try XCTUnwrap(SecKeyCopyPublicKey(key))
        XCTAssertFalse(SecKeyIsAlgorithmSupported(publicKey, .sign, .ecdsaSignatureMessageX962SHA256))
        XCTAssertTrue(SecKeyIsAlgorithmSupported(publicKey, .verify, .ecdsaSignatureMessageX962SHA256))
        XCTAssertEqual(SecKeyFixtures.status { SecKeyCreateSignature(publicKey, .ecdsaSignatureMessageX962SHA256, self.message as CFData, $0) },
                       Int(errSecParam))
        XCTAssertEqual(SecKeyFixtures.status { SecKeyCreateDecryptedData(publicKey, .eciesEncryptionStandardX963SHA256AESGCM, self.message as CFData, $0) },
                       Int(errSecParam))
        XCTAssertEqual(SecKeyFixtures.status { SecKeyCopyKeyExchangeResult(publicKey, .ecdhKeyExchangeStandard, publicKey, [:] as CFDictionary, $0) },
                       Int(errSecParam))
    }

    func testPrivateKeysVerifyAndEncryptWithTheirPublicHalf() throws {
        let key = try SecKeyFixtures.randomKey(type: kSecAttrKeyTypeECSECPrimeRandom, bits: 256)
        let signature = try SecKeyFixtures.sign(key, .ecdsaSignatureMessageX962SHA256, message)
        XCTAssertTrue(SecKeyVerifySignature(key, .ecdsaSignatureMessageX962SHA256, message as CFData, signature as CFData, nil))
        let ciphertext = try SecKeyFixtures.encrypt(key, .eciesEncryptionStandardX963SHA256AESGCM, message)
        XCTAssertEqual(try SecKeyFixtures.decrypt(key, .eciesEncryptionStandardX963SHA256AESGCM, ciphertext), message)
    }

    func testUnimplementedAlgorithmsAreRefusedWithErrSecUnimplemented() throws {
        let ec = try SecKeyFixtures.randomKey(type: kSecAttrKeyTypeECSECPrimeRandom, bits: 256)
        let rsa = try SecKeyFixtures.randomKey(type: kSecAttrKeyTypeRSA, bits: 2048)
        for (key, algorithm) in [(ec, SecKeyAlgorithm.ecdsaSignatureMessageX962SHA224), (ec, .ecdsaSignatureMessageRFC4754SHA256),
                                 (rsa, .rsaSignatureRaw), (rsa, .rsaSignatureMessagePSSSHA224), (rsa, .rsaSignatureDigestPKCS1v15Raw)] {
            XCTAssertFalse(SecKeyIsAlgorithmSupported(key, .sign, algorithm), "\(algorithm)")
            XCTAssertEqual(SecKeyFixtures.status { SecKeyCreateSignature(key, algorithm, self.message as CFData, $0) }, Int(errSecUnimplemented), "\(algorithm)")
        }
        for algorithm in [SecKeyAlgorithm.rsaEncryptionRaw, .rsaEncryptionOAEPSHA512, .rsaEncryptionOAEPSHA384] {
            XCTAssertEqual(SecKeyFixtures.status { SecKeyCreateEncryptedData(rsa, algorithm, self.message as CFData, $0) }, Int(errSecUnimplemented), "\(algorithm)")
        }
    }

    func testDigestsOfTheWrongLengthAreRefusedWithErrSecParam() throws {
        let ec = try SecKeyFixtures.randomKey(type: kSecAttrKeyTypeECSECPrimeRandom, bits: 256)
        let rsa = try SecKeyFixtures.randomKey(type: kSecAttrKeyTypeRSA, bits: 2048)
        let short = Data(repeating: 7, count: 31)
        XCTAssertEqual(SecKeyFixtures.status { SecKeyCreateSignature(ec, .ecdsaSignatureDigestX962SHA256, short as CFData, $0) }, Int(errSecParam))
        XCTAssertEqual(SecKeyFixtures.status { SecKeyCreateSignature(ec, .ecdsaSignatureDigestX962, short as CFData, $0) }, Int(errSecParam))
        XCTAssertEqual(SecKeyFixtures.status { SecKeyCreateSignature(rsa, .rsaSignatureDigestPSSSHA384, short as CFData, $0) }, Int(errSecParam))
    }

    func testGarbledAndTruncatedSignaturesFailVerificationWithErrSecVerifyFailed() throws {
        for (type, bits, algorithm) in [(kSecAttrKeyTypeECSECPrimeRandom, 384, SecKeyAlgorithm.ecdsaSignatureMessageX962SHA384),
                                        (kSecAttrKeyTypeRSA, 2048, .rsaSignatureMessagePSSSHA256)] {
            let key = try SecKeyFixtures.randomKey(type: type, bits: bits)
            let publicKey = try XCTUnwrap(SecKeyCopyPublicKey(key))
            let signature = try SecKeyFixtures.sign(key, algorithm, message)
            var flipped = signature
            flipped[flipped.count / 2] ^= 0x40
            for bad in [flipped, signature.dropLast(), Data(), signature + Data([0]), Data(repeating: 0xff, count: 300)] {
                var error: Unmanaged<CFError>?
                XCTAssertFalse(SecKeyVerifySignature(publicKey, algorithm, message as CFData, bad as CFData, &error), "\(algorithm)")
                XCTAssertEqual(error?.takeRetainedValue().code, Int(errSecVerifyFailed), "\(algorithm)")
            }
            var other = message
            other[0] ^= 1
            XCTAssertFalse(SecKeyVerifySignature(publicKey, algorithm, other as CFData, signature as CFData, nil), "another message")
        }
    }

    func testTruncatedGarbledOrForeignCiphertextsAreRefusedWithErrSecParam() throws {
        let key = try SecKeyFixtures.randomKey(type: kSecAttrKeyTypeECSECPrimeRandom, bits: 256)
        let other = try SecKeyFixtures.randomKey(type: kSecAttrKeyTypeECSECPrimeRandom, bits: 256)
        let algorithm = SecKeyAlgorithm.eciesEncryptionCofactorVariableIVX963SHA256AESGCM
        let ciphertext = try SecKeyFixtures.encrypt(XCTUnwrap(SecKeyCopyPublicKey(key)), algorithm, message)
        var garbled = ciphertext
        garbled[70] ^= 0x01
        var badPoint = ciphertext
        badPoint[10] ^= 0x01
        for bad in [ciphertext.prefix(80), ciphertext.dropLast(), garbled, badPoint, Data(), Data(repeating: 4, count: 200)] {
            XCTAssertEqual(SecKeyFixtures.status { SecKeyCreateDecryptedData(key, algorithm, bad as CFData, $0) }, Int(errSecParam), "\(bad.count) bytes")
        }
        XCTAssertEqual(SecKeyFixtures.status { SecKeyCreateDecryptedData(other, algorithm, ciphertext as CFData, $0) }, Int(errSecParam), "another key")

        let rsa = try SecKeyFixtures.randomKey(type: kSecAttrKeyTypeRSA, bits: 2048)
        let rsaCiphertext = try SecKeyFixtures.encrypt(XCTUnwrap(SecKeyCopyPublicKey(rsa)), .rsaEncryptionOAEPSHA256, message)
        var rsaGarbled = rsaCiphertext
        rsaGarbled[5] ^= 0x80
        for bad in [rsaCiphertext.dropLast(), rsaGarbled, Data(repeating: 0xff, count: 256)] {
            XCTAssertEqual(SecKeyFixtures.status { SecKeyCreateDecryptedData(rsa, .rsaEncryptionOAEPSHA256, bad as CFData, $0) }, Int(errSecParam))
        }
        XCTAssertEqual(SecKeyFixtures.status { SecKeyCreateDecryptedData(rsa, .rsaEncryptionOAEPSHA1, rsaCiphertext as CFData, $0) }, Int(errSecParam),
                       "the wrong padding")
    }

    func testRSAPlaintextLongerThanThePaddingAllowsIsRefusedWithErrSecParam() throws {
        let rsa = try SecKeyFixtures.randomKey(type: kSecAttrKeyTypeRSA, bits: 2048)
        XCTAssertEqual(SecKeyFixtures.status { SecKeyCreateEncryptedData(rsa, .rsaEncryptionOAEPSHA256, Data(count: 191) as CFData, $0) },
                       Int(errSecParam))
        XCTAssertNoThrow(try SecKeyFixtures.encrypt(rsa, .rsaEncryptionOAEPSHA256, Data(count: 190)))
    }

    func testKeyDataThatIsNotAKeyOfTheNamedTypeAndClassIsRefusedWithErrSecParam() throws {
        let ec = try SecKeyFixtures.randomKey(type: kSecAttrKeyTypeECSECPrimeRandom, bits: 256)
        let ecPrivate = try SecKeyFixtures.external(ec)
        let ecPublic = try SecKeyFixtures.external(XCTUnwrap(SecKeyCopyPublicKey(ec)))
        var offCurve = ecPublic
        offCurve[40] ^= 0x01
        var wrongPublicHalf = ecPrivate
        wrongPublicHalf[5] ^= 0x01
        let rsaPublic = try SecKeyFixtures.external(XCTUnwrap(SecKeyCopyPublicKey(SecKeyFixtures.randomKey(type: kSecAttrKeyTypeRSA, bits: 2048))))
        let cases: [(Data, CFString, CFString, String)] = [
            (Data(), kSecAttrKeyTypeECSECPrimeRandom, kSecAttrKeyClassPublic, "empty"),
            (ecPublic.dropLast(), kSecAttrKeyTypeECSECPrimeRandom, kSecAttrKeyClassPublic, "truncated"),
            (offCurve, kSecAttrKeyTypeECSECPrimeRandom, kSecAttrKeyClassPublic, "not on the curve"),
            (ecPublic, kSecAttrKeyTypeECSECPrimeRandom, kSecAttrKeyClassPrivate, "a public key as private"),
            (wrongPublicHalf, kSecAttrKeyTypeECSECPrimeRandom, kSecAttrKeyClassPrivate, "X || Y not K's point"),
            (ecPublic, kSecAttrKeyTypeRSA, kSecAttrKeyClassPublic, "EC data as RSA"),
            (rsaPublic, kSecAttrKeyTypeECSECPrimeRandom, kSecAttrKeyClassPublic, "RSA data as EC"),
            (rsaPublic, kSecAttrKeyTypeRSA, kSecAttrKeyClassPrivate, "an RSA public key as private"),
            (rsaPublic.dropLast(3), kSecAttrKeyTypeRSA, kSecAttrKeyClassPublic, "truncated DER"),
            (ecPublic, kSecAttrKeyTypeECSECPrimeRandom, kSecAttrKeyClassSymmetric, "a symmetric class"),
        ]
        for (data, type, keyClass, name) in cases {
            XCTAssertEqual(SecKeyFixtures.status { error in
                SecKeyCreateWithData(data as CFData, [kSecAttrKeyType as String: type, kSecAttrKeyClass as String: keyClass] as CFDictionary, error)
            }, Int(errSecParam), name)
        }
        XCTAssertEqual(SecKeyFixtures.status { error in
            SecKeyCreateWithData(ecPublic as CFData, [kSecAttrKeyType as String: kSecAttrKeyTypeECSECPrimeRandom, kSecAttrKeyClass as String: kSecAttrKeyClassPublic,
                                                      kSecAttrKeySizeInBits as String: 384] as CFDictionary, error)
        }, Int(errSecParam), "a size that contradicts the data")
    }

    func testECDHWithAKeyOnAnotherCurveIsRefusedWithErrSecParam() throws {
        let p256 = try SecKeyFixtures.randomKey(type: kSecAttrKeyTypeECSECPrimeRandom, bits: 256)
        let p384 = try SecKeyFixtures.randomKey(type: kSecAttrKeyTypeECSECPrimeRandom, bits: 384)
        XCTAssertEqual(SecKeyFixtures.status { SecKeyCopyKeyExchangeResult(p256, .ecdhKeyExchangeStandard, p384, [:] as CFDictionary, $0) },
                       Int(errSecParam))
        XCTAssertEqual(SecKeyFixtures.status { SecKeyCopyKeyExchangeResult(p256, .ecdhKeyExchangeStandardX963SHA256, p256, [:] as CFDictionary, $0) },
                       Int(errSecParam), "no requested size")
    }
}
