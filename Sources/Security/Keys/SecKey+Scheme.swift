#if !canImport(Darwin)
import Foundation

extension SecKey {
    /// Whether this key can run `algorithm` for `operation` here: the algorithm fits the key's
    /// family and class, and this module implements it.
    func supports(_ operation: SecKeyOperationType, _ algorithm: SecKeyAlgorithm) -> Bool {
        (try? scheme(for: operation, algorithm)) != nil
    }

    /// What `algorithm` means for this key and `operation`, or the failure Apple reports:
    /// `errSecParam` when it does not fit the key (another family, or a public key asked to sign
    /// or decrypt), `errSecUnimplemented` when it fits but this module does not run it.
    ///
    /// A private key verifies and encrypts with its public half, as Security.framework does.
    func scheme(for operation: SecKeyOperationType, _ algorithm: SecKeyAlgorithm) throws -> SecKeyScheme {
        let refusal = SecKeyFailure(errSecParam, "\(algorithm): algorithm not supported by the key \(self) for this operation")
        guard let scheme = algorithm.scheme, scheme.kind == kind, scheme.operations.contains(operation) else { throw refusal }
        switch operation {
        case .sign, .decrypt, .keyExchange: guard isPrivate else { throw refusal }
        case .verify, .encrypt: break
        }
        guard scheme.isImplemented else {
            throw SecKeyFailure(errSecUnimplemented, "\(algorithm) is not implemented by this Security module (docs/SECKEY.md lists what is)")
        }
        return scheme
    }
}

/// Whether `key` can run `algorithm` for `operation`.
///
/// `false` for an algorithm of another key family, for signing or decrypting with a public key,
/// and for the algorithms this module does not implement (docs/SECKEY.md lists them).
public func SecKeyIsAlgorithmSupported(_ key: SecKey, _ operation: SecKeyOperationType, _ algorithm: SecKeyAlgorithm) -> Bool {
    key.supports(operation, algorithm)
}

/// The size of the key's block in bytes: the modulus length for RSA; for EC, the size of a
/// field element in CoreCrypto's 64-bit words, as Security.framework reports it (32 for P-256,
/// 48 for P-384, 72 for P-521).
public func SecKeyGetBlockSize(_ key: SecKey) -> Int {
    switch key.kind {
    case .rsa: key.sizeInBits / 8
    case .ec: (key.sizeInBits + 63) / 64 * 8
    }
}
#endif
