import Foundation
import Security
import XCTest

/// Keys made here sign, verify, encrypt and decrypt with themselves, for every curve, size and
/// implemented algorithm.
final class SecKeyRoundTripTests: XCTestCase {
    func testECKeysOfEveryCurveSignAndVerifyWithEveryImplementedECDSAAlgorithm() throws {
        for bits in [256, 384, 521] {
            let key = try SecKeyFixtures.randomKey(type: kSecAttrKeyTypeECSECPrimeRandom, bits: bits)
            let publicKey = try XCTUnwrap(SecKeyCopyPublicKey(key))
            for algorithm in [SecKeyAlgorithm.ecdsaSignatureMessageX962SHA1, .ecdsaSignatureMessageX962SHA256,
                              .ecdsaSignatureMessageX962SHA384, .ecdsaSignatureMessageX962SHA512] {
                let signature = try SecKeyFixtures.sign(key, algorithm, SecKeyFixtures.message)
                XCTAssertTrue(SecKeyVerifySignature(publicKey, algorithm, SecKeyFixtures.message as CFData, signature as CFData, nil),
                              "P-\(bits) \(algorithm)")
            }
        }
    }

    func testECIESCiphertextsDecryptWithTheMatchingPrivateKeyOnEveryCurve() throws {
        for bits in [256, 384, 521] {
            let key = try SecKeyFixtures.randomKey(type: kSecAttrKeyTypeECSECPrimeRandom, bits: bits)
            let publicKey = try XCTUnwrap(SecKeyCopyPublicKey(key))
            for algorithm in [SecKeyAlgorithm.eciesEncryptionStandardX963SHA256AESGCM, .eciesEncryptionCofactorVariableIVX963SHA256AESGCM,
                              .eciesEncryptionStandardVariableIVX963SHA512AESGCM, .eciesEncryptionCofactorX963SHA1AESGCM] {
                let ciphertext = try SecKeyFixtures.encrypt(publicKey, algorithm, SecKeyFixtures.message)
                XCTAssertEqual(ciphertext.count, (1 + 2 * ((bits + 7) / 8)) + SecKeyFixtures.message.count + 16)
                XCTAssertEqual(try SecKeyFixtures.decrypt(key, algorithm, ciphertext), SecKeyFixtures.message, "P-\(bits) \(algorithm)")
            }
        }
    }

    func testRSAKeysSignWithPKCS1AndPSSAndDecryptOAEPAndPKCS1() throws {
        let key = try SecKeyFixtures.randomKey(type: kSecAttrKeyTypeRSA, bits: 2048)
        let publicKey = try XCTUnwrap(SecKeyCopyPublicKey(key))
        for algorithm in [SecKeyAlgorithm.rsaSignatureMessagePKCS1v15SHA256, .rsaSignatureMessagePKCS1v15SHA512,
                          .rsaSignatureMessagePSSSHA256, .rsaSignatureMessagePSSSHA384, .rsaSignatureMessagePKCS1v15SHA1] {
            let signature = try SecKeyFixtures.sign(key, algorithm, SecKeyFixtures.message)
            XCTAssertEqual(signature.count, 256)
            XCTAssertTrue(SecKeyVerifySignature(publicKey, algorithm, SecKeyFixtures.message as CFData, signature as CFData, nil), "\(algorithm)")
        }
        for algorithm in [SecKeyAlgorithm.rsaEncryptionOAEPSHA256, .rsaEncryptionOAEPSHA1, .rsaEncryptionPKCS1] {
            let ciphertext = try SecKeyFixtures.encrypt(publicKey, algorithm, SecKeyFixtures.message)
            XCTAssertEqual(try SecKeyFixtures.decrypt(key, algorithm, ciphertext), SecKeyFixtures.message, "\(algorithm)")
        }
    }

    func testA1024BitRSAKeyIsGeneratedAndSignsAsOnADevice() throws {
        // Weak, and generated only because Apple generates it: code written for a device does.
        let key = try SecKeyFixtures.randomKey(type: kSecAttrKeyTypeRSA, bits: 1024)
        XCTAssertEqual(SecKeyGetBlockSize(key), 128)
        let signature = try SecKeyFixtures.sign(key, .rsaSignatureMessagePKCS1v15SHA256, SecKeyFixtures.message)
        XCTAssertEqual(signature.count, 128)
        XCTAssertTrue(SecKeyVerifySignature(try XCTUnwrap(SecKeyCopyPublicKey(key)), .rsaSignatureMessagePKCS1v15SHA256,
                                            SecKeyFixtures.message as CFData, signature as CFData, nil))
    }

    func testDigestAlgorithmsVerifyTheSignatureOfTheMatchingMessageAlgorithm() throws {
        let ec = try SecKeyFixtures.randomKey(type: kSecAttrKeyTypeECSECPrimeRandom, bits: 256)
        let rsa = try SecKeyFixtures.randomKey(type: kSecAttrKeyTypeRSA, bits: 2048)
        let cases: [(SecKey, SecKeyAlgorithm, SecKeyAlgorithm)] = [
            (ec, .ecdsaSignatureMessageX962SHA256, .ecdsaSignatureDigestX962SHA256),
            (ec, .ecdsaSignatureMessageX962SHA384, .ecdsaSignatureDigestX962SHA384),
            (ec, .ecdsaSignatureMessageX962SHA512, .ecdsaSignatureDigestX962),
            (rsa, .rsaSignatureMessagePKCS1v15SHA256, .rsaSignatureDigestPKCS1v15SHA256),
            (rsa, .rsaSignatureMessagePSSSHA512, .rsaSignatureDigestPSSSHA512),
            (rsa, .rsaSignatureMessagePKCS1v15SHA1, .rsaSignatureDigestPKCS1v15SHA1),
        ]
        for (key, message, digest) in cases {
            let hash = SecKeyFixtures.digest(SecKeyFixtures.message, for: message)
            let publicKey = try XCTUnwrap(SecKeyCopyPublicKey(key))
            let fromMessage = try SecKeyFixtures.sign(key, message, SecKeyFixtures.message)
            XCTAssertTrue(SecKeyVerifySignature(publicKey, digest, hash as CFData, fromMessage as CFData, nil), "\(digest)")
            let fromDigest = try SecKeyFixtures.sign(key, digest, hash)
            XCTAssertTrue(SecKeyVerifySignature(publicKey, message, SecKeyFixtures.message as CFData, fromDigest as CFData, nil), "\(message)")
        }
    }
}
