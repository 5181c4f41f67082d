#if !canImport(Darwin)
import Foundation
import _CryptoExtras

/// Encrypts `plaintext` to a public key (or a private key's public half).
///
/// - Parameters:
///   - key: An RSA or EC public key, or a private key whose public half is used.
///   - algorithm: RSA OAEP SHA-1 / SHA-256 or PKCS#1, or Apple's ECIES (standard or variable-IV,
///     SHA-1/256/384/512; the ECIES section of docs/SECKEY.md gives the construction).
///   - plaintext: The bytes to encrypt.
///   - error: Receives `errSecParam` for an algorithm that does not fit the key or a plaintext too
///     long for RSA, `errSecUnimplemented` for an algorithm this module does not run.
/// - Returns: The ciphertext, or `nil` on error.
public func SecKeyCreateEncryptedData(
    _ key: SecKey, _ algorithm: SecKeyAlgorithm, _ plaintext: CFData, _ error: UnsafeMutablePointer<Unmanaged<CFError>?>?
) -> CFData? {
    SecKeyFailure.reporting(error) {
        let scheme = try key.scheme(for: .encrypt, algorithm)
        let input = plaintext as Data
        switch (scheme, key.publicKey.material) {
        case (.ecies(let hash, let variableIV), .ecPublic(let publicKey)):
            return try ECIES.encrypt(input, to: publicKey, hash: hash, variableIV: variableIV) as NSData
        case (.rsaOAEP(let hash), .rsaPublic(let publicKey)):
            return try rsaEncrypt(input, publicKey, padding: hash == .sha1 ? .PKCS1_OAEP : .PKCS1_OAEP_SHA256) as NSData
        case (.rsaPKCS1Encryption, .rsaPublic(let publicKey)):
            return try rsaEncrypt(input, publicKey, padding: ._WEAK_AND_INSECURE_PKCS_V1_5) as NSData
        default:
            throw SecKeyFailure(errSecParam, "\(algorithm): algorithm not supported by the key \(key)")
        }
    }
}

/// Decrypts `ciphertext` with a private key.
///
/// - Parameters:
///   - key: An RSA or EC private key. A Secure Enclave key, or any key with an access control that
///     requires user presence, asks `UserPresence` (Keyring) first.
///   - algorithm: The algorithm the ciphertext was made with.
///   - ciphertext: The bytes to decrypt.
///   - error: Receives `errSecParam` for an algorithm that does not fit the key (or a public key)
///     and for a ciphertext that is truncated, altered or not for this key;
///     `errSecUnimplemented` for an algorithm this module does not run; `errSecUserCanceled` /
///     `errSecAuthFailed` when user presence is denied or unavailable.
/// - Returns: The plaintext, or `nil` on error.
public func SecKeyCreateDecryptedData(
    _ key: SecKey, _ algorithm: SecKeyAlgorithm, _ ciphertext: CFData, _ error: UnsafeMutablePointer<Unmanaged<CFError>?>?
) -> CFData? {
    SecKeyFailure.reporting(error) {
        let scheme = try key.scheme(for: .decrypt, algorithm)
        try key.demandUserPresence(for: "SecKeyCreateDecryptedData")
        let input = ciphertext as Data
        switch (scheme, key.material) {
        case (.ecies(let hash, let variableIV), .ecPrivate(let privateKey)):
            return try ECIES.decrypt(input, with: privateKey, hash: hash, variableIV: variableIV) as NSData
        case (.rsaOAEP(let hash), .rsaPrivate(let privateKey)):
            return try rsaDecrypt(input, privateKey, padding: hash == .sha1 ? .PKCS1_OAEP : .PKCS1_OAEP_SHA256) as NSData
        case (.rsaPKCS1Encryption, .rsaPrivate(let privateKey)):
            return try rsaDecrypt(input, privateKey, padding: ._WEAK_AND_INSECURE_PKCS_V1_5) as NSData
        default:
            throw SecKeyFailure(errSecParam, "\(algorithm): algorithm not supported by the key \(key)")
        }
    }
}

private func rsaEncrypt(_ plaintext: Data, _ key: RSAPublicKey, padding: _RSA.Encryption.Padding) throws -> Data {
    let limit = try key.encryption().maximumEncryptSize(with: padding)
    guard plaintext.count <= limit else {
        throw SecKeyFailure(errSecParam, "RSA encryption: the plaintext is \(plaintext.count) bytes; this key and padding take at most \(limit)")
    }
    return try key.encryption().encrypt(plaintext, padding: padding)
}

private func rsaDecrypt(_ ciphertext: Data, _ key: RSAPrivateKey, padding: _RSA.Encryption.Padding) throws -> Data {
    guard ciphertext.count == key.sizeInBits / 8 else {
        throw SecKeyFailure(errSecParam, "RSA decryption: the ciphertext is \(ciphertext.count) bytes, not the key's \(key.sizeInBits / 8)")
    }
    do {
        return try key.encryption().decrypt(ciphertext, padding: padding)
    } catch {
        throw SecKeyFailure(errSecParam, "RSA decryption failed: the ciphertext was not made for this key and padding, or was altered")
    }
}
#endif
