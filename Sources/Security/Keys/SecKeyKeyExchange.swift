#if !canImport(Darwin)
import Crypto
import Foundation

/// ECDH between a private key and another party's public key.
///
/// - Parameters:
///   - privateKey: This party's EC private key.
///   - algorithm: `ecdhKeyExchangeStandard` / `Cofactor` (the raw shared secret, the x coordinate)
///     or their `X963SHA...` variants (the X9.63 KDF of it).
///   - publicKey: The other party's EC public key, on the same curve.
///   - parameters: For the KDF variants, `kSecKeyKeyExchangeParameterRequestedSize` (required)
///     and `kSecKeyKeyExchangeParameterSharedInfo` (optional data).
///   - error: Receives `errSecParam` for a key or public key that does not fit (another curve) or
///     a missing size, `errSecUnimplemented` for SHA-224.
/// - Returns: The shared secret or derived bytes, or `nil` on error.
public func SecKeyCopyKeyExchangeResult(
    _ privateKey: SecKey, _ algorithm: SecKeyAlgorithm, _ publicKey: SecKey, _ parameters: CFDictionary,
    _ error: UnsafeMutablePointer<Unmanaged<CFError>?>?
) -> CFData? {
    SecKeyFailure.reporting(error) {
        guard case .ecdh(let kdf) = try privateKey.scheme(for: .keyExchange, algorithm),
              case .ecPrivate(let ownKey) = privateKey.material
        else { throw SecKeyFailure(errSecParam, "\(algorithm): algorithm not supported by the key \(privateKey)") }
        guard case .ecPublic(let peer) = publicKey.publicKey.material else {
            throw SecKeyFailure(errSecParam, "the other party's key is not an EC key")
        }
        try privateKey.demandUserPresence(for: "SecKeyCopyKeyExchangeResult")
        let secret = try ownKey.sharedSecret(with: peer)
        guard let kdf else { return secret.withUnsafeBytes { Data($0) } as NSData }
        let options = SecKeyParameters(parameters)
        guard let size = options.int(kSecKeyKeyExchangeParameterRequestedSize), size > 0 else {
            throw SecKeyFailure(errSecParam, "kSecKeyKeyExchangeParameterRequestedSize is required for the KDF variants")
        }
        let derived = try ECIES.x963(secret, hash: kdf, sharedInfo: options.data(kSecKeyKeyExchangeParameterSharedInfo) ?? Data(), byteCount: size)
        return derived.withUnsafeBytes { Data($0) } as NSData
    }
}
#endif
