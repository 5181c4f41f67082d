#if !canImport(Darwin)
import Foundation
import _CryptoExtras

/// Signs `dataToSign` with a private key.
///
/// - Parameters:
///   - key: An EC or RSA private key. A Secure Enclave key, or any key with an access control
///     that requires user presence, asks `UserPresence` (Keyring) first.
///   - algorithm: An ECDSA X9.62 (DER signature), RSA PKCS#1 v1.5 or RSA PSS algorithm. The
///     `...Message...` variants hash `dataToSign`; the `...Digest...` variants take a digest of
///     exactly the hash's length.
///   - dataToSign: The message, or its digest for the `...Digest...` algorithms.
///   - error: Receives `errSecParam` for an algorithm that does not fit the key (or a public
///     key), a digest of the wrong length or data too long for the key; `errSecUnimplemented`
///     for an algorithm this module does not run; `errSecUserCanceled` / `errSecAuthFailed`
///     when user presence is denied or unavailable.
/// - Returns: The signature, or `nil` on error.
public func SecKeyCreateSignature(
    _ key: SecKey, _ algorithm: SecKeyAlgorithm, _ dataToSign: CFData, _ error: UnsafeMutablePointer<Unmanaged<CFError>?>?
) -> CFData? {
    SecKeyFailure.reporting(error) {
        let scheme = try key.scheme(for: .sign, algorithm)
        try key.demandUserPresence(for: "SecKeyCreateSignature")
        let input = dataToSign as Data
        switch (scheme, key.material) {
        case (.ecdsa(let hash, let form), .ecPrivate(let privateKey)):
            let (digest, hash) = try signedDigest(input, hash: hash, form: form)
            return try privateKey.signature(digest: digest, hash: hash) as NSData
        case (.rsaPKCS1v15Signature(let hash, let form), .rsaPrivate(let privateKey)):
            let (digest, hash) = try signedDigest(input, hash: hash, form: form)
            return try rsaSignature(privateKey, digest: digest, hash: hash, padding: .insecurePKCS1v1_5) as NSData
        case (.rsaPSS(let hash, let form), .rsaPrivate(let privateKey)):
            let (digest, hash) = try signedDigest(input, hash: hash, form: form)
            return try rsaSignature(privateKey, digest: digest, hash: hash, padding: .PSS) as NSData
        default:
            throw SecKeyFailure(errSecParam, "\(algorithm): algorithm not supported by the key \(key)")
        }
    }
}

/// Checks a signature with a public key (or a private key's public half).
///
/// - Returns: `true` when `signature` is valid for `signedData`; `false` otherwise, with
///   `errSecVerifyFailed` in `error` for a wrong or malformed signature, `errSecParam` for an
///   algorithm that does not fit the key, `errSecUnimplemented` for one not implemented here.
public func SecKeyVerifySignature(
    _ key: SecKey, _ algorithm: SecKeyAlgorithm, _ signedData: CFData, _ signature: CFData,
    _ error: UnsafeMutablePointer<Unmanaged<CFError>?>?
) -> Bool {
    let verified: Bool? = SecKeyFailure.reporting(error) {
        let scheme = try key.scheme(for: .verify, algorithm)
        let input = signedData as Data
        let signature = signature as Data
        let valid: Bool
        switch (scheme, key.publicKey.material) {
        case (.ecdsa(let hash, let form), .ecPublic(let publicKey)):
            let (digest, hash) = try signedDigest(input, hash: hash, form: form)
            valid = publicKey.isValidSignature(der: signature, digest: digest, hash: hash)
        case (.rsaPKCS1v15Signature(let hash, let form), .rsaPublic(let publicKey)):
            let (digest, hash) = try signedDigest(input, hash: hash, form: form)
            valid = isValidRSASignature(publicKey, signature, digest: digest, hash: hash, padding: .insecurePKCS1v1_5)
        case (.rsaPSS(let hash, let form), .rsaPublic(let publicKey)):
            let (digest, hash) = try signedDigest(input, hash: hash, form: form)
            valid = isValidRSASignature(publicKey, signature, digest: digest, hash: hash, padding: .PSS)
        default:
            throw SecKeyFailure(errSecParam, "\(algorithm): algorithm not supported by the key \(key)")
        }
        guard valid else { throw SecKeyFailure(errSecVerifyFailed, "\(algorithm): the signature does not match the data and key") }
        return true
    }
    return verified ?? false
}

/// The digest a signature covers: the hash of a message, or the caller's digest checked for
/// length. `hash` nil (`ecdsaSignatureDigestX962`) takes the hash from the digest's length.
private func signedDigest(_ input: Data, hash: SecKeyHash?, form: SecKeySignedInput) throws -> (Data, SecKeyHash) {
    switch form {
    case .message:
        // A `.message` scheme always names its hash (SecKeyScheme.table).
        guard let hash, let digest = hash.digest(input) else { throw SecKeyFailure(errSecUnimplemented, "the hash is not implemented") }
        return (digest, hash)
    case .digest:
        let byLength = SecKeyHash.allCases.first { $0.isImplemented && $0.byteCount == input.count }
        guard let hash = hash ?? byLength, input.count == hash.byteCount else {
            throw SecKeyFailure(errSecParam, "the digest is \(input.count) bytes long; the algorithm takes a \((hash ?? .sha256).byteCount)-byte digest")
        }
        return (input, hash)
    }
}

private func rsaSignature(_ key: RSAPrivateKey, digest: Data, hash: SecKeyHash, padding: _RSA.Signing.Padding) throws -> Data {
    guard let digest = DigestBytes(digest, hash: hash) else { throw SecKeyFailure(errSecParam, "the digest is not \(hash.byteCount) bytes long") }
    do {
        return try digest.withDigest { try key.signing.signature(for: $0, padding: padding).rawRepresentation }
    } catch {
        // BoringSSL refuses when the encoded digest does not fit the modulus (e.g. PSS SHA-512 on 1024-bit RSA).
        throw SecKeyFailure(errSecParam, "the RSA key is too small for this algorithm's padding and digest")
    }
}

private func isValidRSASignature(_ key: RSAPublicKey, _ signature: Data, digest: Data, hash: SecKeyHash, padding: _RSA.Signing.Padding) -> Bool {
    guard let digest = DigestBytes(digest, hash: hash) else { return false }
    let signature = _RSA.Signing.RSASignature(rawRepresentation: signature)
    return digest.withDigest { key.signing.isValidSignature(signature, for: $0, padding: padding) }
}
#endif
