import Foundation
import Security
import XCTest

/// SecKey against an independent implementation (Python's `cryptography`, through
/// Resources/apple_seckey.py), in both directions.
final class IndependentImplementationTests: XCTestCase {
    private let message = SecKeyFixtures.message
    private let ecdsa: [(SecKeyAlgorithm, String)] = [
        (.ecdsaSignatureMessageX962SHA1, "sha1"), (.ecdsaSignatureMessageX962SHA256, "sha256"),
        (.ecdsaSignatureMessageX962SHA384, "sha384"), (.ecdsaSignatureMessageX962SHA512, "sha512"),
    ]
    private let ecies: [(SecKeyAlgorithm, String, Bool)] = [
        (.eciesEncryptionStandardX963SHA256AESGCM, "sha256", false),
        (.eciesEncryptionCofactorX963SHA256AESGCM, "sha256", false),
        (.eciesEncryptionCofactorVariableIVX963SHA256AESGCM, "sha256", true),
        (.eciesEncryptionStandardVariableIVX963SHA256AESGCM, "sha256", true),
        (.eciesEncryptionStandardX963SHA1AESGCM, "sha1", false),
        (.eciesEncryptionCofactorVariableIVX963SHA384AESGCM, "sha384", true),
        (.eciesEncryptionStandardX963SHA512AESGCM, "sha512", false),
        (.eciesEncryptionCofactorVariableIVX963SHA512AESGCM, "sha512", true),
    ]
    private let rsaSignatures: [(SecKeyAlgorithm, String, String)] = [
        (.rsaSignatureMessagePKCS1v15SHA1, "pkcs1v15", "sha1"), (.rsaSignatureMessagePKCS1v15SHA256, "pkcs1v15", "sha256"),
        (.rsaSignatureMessagePKCS1v15SHA512, "pkcs1v15", "sha512"), (.rsaSignatureMessagePSSSHA256, "pss", "sha256"),
        (.rsaSignatureMessagePSSSHA384, "pss", "sha384"), (.rsaSignatureMessagePSSSHA512, "pss", "sha512"),
    ]
    private let rsaEncryption: [(SecKeyAlgorithm, String, String)] = [
        (.rsaEncryptionOAEPSHA256, "oaep", "sha256"), (.rsaEncryptionOAEPSHA1, "oaep", "sha1"), (.rsaEncryptionPKCS1, "pkcs1v15", "sha256"),
    ]

    private func ecKeys() throws -> [(Int, SecKey)] {
        try [256, 384, 521].map { ($0, try SecKeyFixtures.randomKey(type: kSecAttrKeyTypeECSECPrimeRandom, bits: $0)) }
    }

    private func publicData(_ key: SecKey) throws -> Data { try SecKeyFixtures.external(XCTUnwrap(SecKeyCopyPublicKey(key))) }

    func testECDSASignaturesMadeHereVerifyInPython() throws {
        var requests: [[String: Any]] = [], names: [String] = []
        for (bits, key) in try ecKeys() {
            for (algorithm, hash) in ecdsa {
                let signature = try SecKeyFixtures.sign(key, algorithm, message)
                requests.append(["op": "ecdsa_verify", "bits": bits, "key": try publicData(key).hex, "hash": hash,
                                 "data": message.hex, "signature": signature.hex])
                names.append("P-\(bits) \(algorithm)")
            }
        }
        for (answer, name) in zip(try PythonCryptography.run(requests), names) {
            XCTAssertEqual(answer["valid"] as? Bool, true, name)
        }
    }

    func testECDSASignaturesMadeInPythonVerifyHere() throws {
        var requests: [[String: Any]] = [], cases: [(SecKey, SecKeyAlgorithm, String)] = []
        for (bits, key) in try ecKeys() {
            for (algorithm, hash) in ecdsa {
                requests.append(["op": "ecdsa_sign", "bits": bits, "key": try SecKeyFixtures.external(key).hex, "hash": hash, "data": message.hex])
                cases.append((try XCTUnwrap(SecKeyCopyPublicKey(key)), algorithm, "P-\(bits) \(algorithm)"))
            }
        }
        for (answer, (publicKey, algorithm, name)) in zip(try PythonCryptography.run(requests), cases) {
            guard let signature = PythonCryptography.output(answer, name) else { continue }
            XCTAssertTrue(SecKeyVerifySignature(publicKey, algorithm, message as CFData, signature as CFData, nil), name)
        }
    }

    func testECIESCiphertextsMadeHereDecryptInPythonsReimplementationOfApplesECIES() throws {
        var requests: [[String: Any]] = [], names: [String] = []
        for (bits, key) in try ecKeys() {
            for (algorithm, hash, variableIV) in ecies {
                let ciphertext = try SecKeyFixtures.encrypt(XCTUnwrap(SecKeyCopyPublicKey(key)), algorithm, message)
                requests.append(["op": "ecies_decrypt", "bits": bits, "key": try SecKeyFixtures.external(key).hex, "hash": hash,
                                 "variable_iv": variableIV, "data": ciphertext.hex])
                names.append("P-\(bits) \(algorithm)")
            }
        }
        for (answer, name) in zip(try PythonCryptography.run(requests), names) {
            XCTAssertEqual(PythonCryptography.output(answer, name), message, name)
        }
    }

    func testECIESCiphertextsMadeByPythonDecryptHere() throws {
        var requests: [[String: Any]] = [], cases: [(SecKey, SecKeyAlgorithm, String)] = []
        for (bits, key) in try ecKeys() {
            for (algorithm, hash, variableIV) in ecies {
                requests.append(["op": "ecies_encrypt", "bits": bits, "key": try publicData(key).hex, "hash": hash,
                                 "variable_iv": variableIV, "data": message.hex])
                cases.append((key, algorithm, "P-\(bits) \(algorithm)"))
            }
        }
        for (answer, (key, algorithm, name)) in zip(try PythonCryptography.run(requests), cases) {
            guard let ciphertext = PythonCryptography.output(answer, name) else { continue }
            XCTAssertEqual(try SecKeyFixtures.decrypt(key, algorithm, ciphertext), message, name)
        }
    }

    func testECDHSharedSecretsAgreeWithPython() throws {
        var requests: [[String: Any]] = [], expected: [(Data, String)] = []
        for (bits, key) in try ecKeys() {
            let peer = try SecKeyFixtures.randomKey(type: kSecAttrKeyTypeECSECPrimeRandom, bits: bits)
            let peerPublic = try XCTUnwrap(SecKeyCopyPublicKey(peer))
            let secret = try SecKeyFixtures.call {
                SecKeyCopyKeyExchangeResult(key, .ecdhKeyExchangeStandard, peerPublic, [:] as CFDictionary, $0)
            } as Data
            requests.append(["op": "ecdh", "bits": bits, "key": try SecKeyFixtures.external(key).hex, "peer": try SecKeyFixtures.external(peerPublic).hex])
            expected.append((secret, "P-\(bits)"))
            let sharedInfo = Data("GroupVault shared info".utf8)
            let parameters = [kSecKeyKeyExchangeParameterRequestedSize as String: 42,
                              kSecKeyKeyExchangeParameterSharedInfo as String: sharedInfo] as CFDictionary
            let derived = try SecKeyFixtures.call {
                SecKeyCopyKeyExchangeResult(key, .ecdhKeyExchangeCofactorX963SHA384, peerPublic, parameters, $0)
            } as Data
            requests.append(["op": "ecdh", "bits": bits, "key": try SecKeyFixtures.external(key).hex, "peer": try SecKeyFixtures.external(peerPublic).hex,
                             "hash": "sha384", "kdf_size": 42, "shared_info": sharedInfo.hex])
            expected.append((derived, "P-\(bits) X9.63 SHA-384"))
        }
        for (answer, (secret, name)) in zip(try PythonCryptography.run(requests), expected) {
            XCTAssertEqual(PythonCryptography.output(answer, name), secret, name)
        }
    }

    func testRSASignaturesAgreeWithPythonInBothDirections() throws {
        let key = try SecKeyFixtures.randomKey(type: kSecAttrKeyTypeRSA, bits: 2048)
        let publicKey = try XCTUnwrap(SecKeyCopyPublicKey(key))
        var requests: [[String: Any]] = []
        for (algorithm, scheme, hash) in rsaSignatures {
            let signature = try SecKeyFixtures.sign(key, algorithm, message)
            requests.append(["op": "rsa_verify", "key": try publicData(key).hex, "padding": scheme, "hash": hash,
                             "data": message.hex, "signature": signature.hex])
            requests.append(["op": "rsa_sign", "key": try SecKeyFixtures.external(key).hex, "padding": scheme, "hash": hash, "data": message.hex])
        }
        let answers = try PythonCryptography.run(requests)
        for (index, (algorithm, _, _)) in rsaSignatures.enumerated() {
            XCTAssertEqual(answers[2 * index]["valid"] as? Bool, true, "made here: \(algorithm)")
            guard let signature = PythonCryptography.output(answers[2 * index + 1], "\(algorithm)") else { continue }
            XCTAssertTrue(SecKeyVerifySignature(publicKey, algorithm, message as CFData, signature as CFData, nil), "made in Python: \(algorithm)")
        }
    }

    func testRSAEncryptionAgreesWithPythonInBothDirections() throws {
        let key = try SecKeyFixtures.randomKey(type: kSecAttrKeyTypeRSA, bits: 3072)
        var requests: [[String: Any]] = []
        for (algorithm, scheme, hash) in rsaEncryption {
            let ciphertext = try SecKeyFixtures.encrypt(XCTUnwrap(SecKeyCopyPublicKey(key)), algorithm, message)
            requests.append(["op": "rsa_decrypt", "key": try SecKeyFixtures.external(key).hex, "padding": scheme, "hash": hash, "data": ciphertext.hex])
            requests.append(["op": "rsa_encrypt", "key": try publicData(key).hex, "padding": scheme, "hash": hash, "data": message.hex])
        }
        let answers = try PythonCryptography.run(requests)
        for (index, (algorithm, _, _)) in rsaEncryption.enumerated() {
            XCTAssertEqual(PythonCryptography.output(answers[2 * index], "\(algorithm)"), message, "made here: \(algorithm)")
            guard let ciphertext = PythonCryptography.output(answers[2 * index + 1], "\(algorithm)") else { continue }
            XCTAssertEqual(try SecKeyFixtures.decrypt(key, algorithm, ciphertext), message, "made in Python: \(algorithm)")
        }
    }
}
