#if !canImport(Darwin)
import Crypto
import Foundation

/// Apple's ECIES (the `eciesEncryption...AESGCM` algorithms), byte for byte.
///
/// Encryption to a public key Q on curve C:
/// 1. a fresh ephemeral key pair (e, E) on C;
/// 2. Z = the x coordinate of e·Q (ECDH; the "Cofactor" variants are the same on the NIST curves,
///    whose cofactor is 1);
/// 3. the ANSI X9.63 KDF with the algorithm's hash over Z, with shared info E's X9.63
///    representation (04 || X || Y), derives a 16-byte AES key for P-256 and a 32-byte one for
///    P-384 and P-521, followed, in the `VariableIV` variants, by a 16-byte IV;
/// 4. AES-GCM with that key, the IV (sixteen zero bytes in the standard variants), no additional
///    data and a 16-byte tag;
/// 5. the output is E || ciphertext || tag.
///
/// docs/SECKEY.md cites the sources; SecKeyTests checks ciphertexts made by Apple devices and by
/// an independent Python implementation.
enum ECIES {
    /// Length of the AES-GCM tag.
    static let tagByteCount = 16
    /// Length of the AES-GCM IV (all zero in the standard variants).
    static let ivByteCount = 16

    /// AES-128 for P-256, AES-256 for the larger curves.
    static func aesKeyByteCount(_ curve: ECCurve) -> Int { curve == .p256 ? 16 : 32 }

    static func encrypt(_ plaintext: Data, to recipient: ECPublicKey, hash: SecKeyHash, variableIV: Bool) throws -> Data {
        let ephemeral = ECPrivateKey(generatingOn: recipient.curve)
        let ephemeralPublic = ephemeral.publicKey.x963
        let (key, iv) = try derive(try ephemeral.sharedSecret(with: recipient), ephemeralPublic: ephemeralPublic,
                                   curve: recipient.curve, hash: hash, variableIV: variableIV)
        let box = try AES.GCM.seal(plaintext, using: key, nonce: try AES.GCM.Nonce(data: iv))
        return ephemeralPublic + box.ciphertext + box.tag
    }

    static func decrypt(_ ciphertext: Data, with recipient: ECPrivateKey, hash: SecKeyHash, variableIV: Bool) throws -> Data {
        let curve = recipient.curve
        guard ciphertext.count >= curve.publicByteCount + tagByteCount else {
            throw SecKeyFailure(errSecParam, "ECIES: the ciphertext is shorter than an ephemeral key and a tag")
        }
        let ephemeralPublic = Data(ciphertext.prefix(curve.publicByteCount))
        guard let ephemeral = ECPublicKey(x963: ephemeralPublic, curve: curve) else {
            throw SecKeyFailure(errSecParam, "ECIES: the ephemeral public key is not a point of the key's curve")
        }
        let body = ciphertext.dropFirst(curve.publicByteCount)
        let (key, iv) = try derive(try recipient.sharedSecret(with: ephemeral), ephemeralPublic: ephemeralPublic,
                                   curve: curve, hash: hash, variableIV: variableIV)
        do {
            let box = try AES.GCM.SealedBox(
                nonce: try AES.GCM.Nonce(data: iv), ciphertext: body.dropLast(tagByteCount), tag: body.suffix(tagByteCount))
            return try AES.GCM.open(box, using: key)
        } catch {
            throw SecKeyFailure(errSecParam, "ECIES: failed to AES-GCM decrypt data (wrong key, or the ciphertext was altered)")
        }
    }

    /// The AES key and IV from the X9.63 KDF.
    private static func derive(_ secret: SharedSecret, ephemeralPublic: Data, curve: ECCurve, hash: SecKeyHash,
                               variableIV: Bool) throws -> (SymmetricKey, Data) {
        let keyByteCount = aesKeyByteCount(curve)
        let output = try x963(secret, hash: hash, sharedInfo: ephemeralPublic, byteCount: keyByteCount + (variableIV ? ivByteCount : 0))
        let derived = output.withUnsafeBytes { Data($0) }
        let iv = variableIV ? Data(derived.suffix(ivByteCount)) : Data(repeating: 0, count: ivByteCount)
        return (SymmetricKey(data: derived.prefix(keyByteCount)), iv)
    }

    /// swift-crypto's ANSI X9.63 KDF with the algorithm's hash.
    static func x963(_ secret: SharedSecret, hash: SecKeyHash, sharedInfo: Data, byteCount: Int) throws -> SymmetricKey {
        switch hash {
        case .sha1: secret.x963DerivedSymmetricKey(using: Insecure.SHA1.self, sharedInfo: sharedInfo, outputByteCount: byteCount)
        case .sha256: secret.x963DerivedSymmetricKey(using: SHA256.self, sharedInfo: sharedInfo, outputByteCount: byteCount)
        case .sha384: secret.x963DerivedSymmetricKey(using: SHA384.self, sharedInfo: sharedInfo, outputByteCount: byteCount)
        case .sha512: secret.x963DerivedSymmetricKey(using: SHA512.self, sharedInfo: sharedInfo, outputByteCount: byteCount)
        case .sha224: throw SecKeyFailure(errSecUnimplemented, "SHA-224 is not implemented")
        }
    }
}
#endif
