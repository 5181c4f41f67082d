#if !canImport(Darwin)
import Crypto
import Foundation

/// A NIST prime curve a `kSecAttrKeyTypeECSECPrimeRandom` key lives on.
enum ECCurve: Int, Sendable, CaseIterable {
    case p256 = 256
    case p384 = 384
    case p521 = 521

    /// Bytes of one coordinate or of the private scalar.
    var coordinateByteCount: Int { (rawValue + 7) / 8 }
    /// Bytes of the X9.63 public key, 04 || X || Y.
    var publicByteCount: Int { 1 + 2 * coordinateByteCount }
    /// Bytes of Apple's private external representation, 04 || X || Y || K.
    var privateByteCount: Int { publicByteCount + coordinateByteCount }

    /// The curve whose X9.63 public (or, with `isPrivate`, private) representation has this length.
    init?(externalByteCount count: Int, isPrivate: Bool) {
        guard let curve = Self.allCases.first(where: { (isPrivate ? $0.privateByteCount : $0.publicByteCount) == count })
        else { return nil }
        self = curve
    }
}

/// An EC public key on one of the three curves, through swift-crypto.
enum ECPublicKey: Sendable {
    case p256(P256.Signing.PublicKey)
    case p384(P384.Signing.PublicKey)
    case p521(P521.Signing.PublicKey)

    /// Parses an uncompressed X9.63 point (04 || X || Y); nil when it is not a point of the curve.
    init?(x963 data: Data, curve: ECCurve) {
        guard data.count == curve.publicByteCount, data.first == 0x04 else { return nil }
        switch curve {
        case .p256: guard let key = try? P256.Signing.PublicKey(x963Representation: data) else { return nil }; self = .p256(key)
        case .p384: guard let key = try? P384.Signing.PublicKey(x963Representation: data) else { return nil }; self = .p384(key)
        case .p521: guard let key = try? P521.Signing.PublicKey(x963Representation: data) else { return nil }; self = .p521(key)
        }
    }

    var curve: ECCurve {
        switch self {
        case .p256: .p256
        case .p384: .p384
        case .p521: .p521
        }
    }

    /// 04 || X || Y.
    var x963: Data {
        switch self {
        case .p256(let key): key.x963Representation
        case .p384(let key): key.x963Representation
        case .p521(let key): key.x963Representation
        }
    }

    /// Whether `der` is a valid ECDSA signature (DER, X9.62) of `digest`.
    func isValidSignature(der: Data, digest: Data, hash: SecKeyHash) -> Bool {
        guard let digest = DigestBytes(digest, hash: hash) else { return false }
        switch self {
        case .p256(let key):
            guard let signature = try? P256.Signing.ECDSASignature(derRepresentation: der) else { return false }
            return digest.withDigest { key.isValidSignature(signature, for: $0) }
        case .p384(let key):
            guard let signature = try? P384.Signing.ECDSASignature(derRepresentation: der) else { return false }
            return digest.withDigest { key.isValidSignature(signature, for: $0) }
        case .p521(let key):
            guard let signature = try? P521.Signing.ECDSASignature(derRepresentation: der) else { return false }
            return digest.withDigest { key.isValidSignature(signature, for: $0) }
        }
    }
}

/// An EC private key on one of the three curves. The scalar stays inside swift-crypto's key
/// (a BoringSSL EC_KEY, cleared when freed); ``x963`` copies it out only for ``SecKey/itemMaterial``.
enum ECPrivateKey: Sendable {
    case p256(P256.Signing.PrivateKey)
    case p384(P384.Signing.PrivateKey)
    case p521(P521.Signing.PrivateKey)

    /// A fresh key from the system's random generator (BoringSSL's).
    init(generatingOn curve: ECCurve) {
        switch curve {
        case .p256: self = .p256(P256.Signing.PrivateKey())
        case .p384: self = .p384(P384.Signing.PrivateKey())
        case .p521: self = .p521(P521.Signing.PrivateKey())
        }
    }

    /// Parses Apple's private representation 04 || X || Y || K; nil when K is not a valid
    /// scalar or X || Y is not K's public point.
    init?(x963 data: Data, curve: ECCurve) {
        guard data.count == curve.privateByteCount, data.first == 0x04 else { return nil }
        switch curve {
        case .p256: guard let key = try? P256.Signing.PrivateKey(x963Representation: data) else { return nil }; self = .p256(key)
        case .p384: guard let key = try? P384.Signing.PrivateKey(x963Representation: data) else { return nil }; self = .p384(key)
        case .p521: guard let key = try? P521.Signing.PrivateKey(x963Representation: data) else { return nil }; self = .p521(key)
        }
        // swift-crypto derives the point from K; a representation whose X || Y disagrees is corrupt.
        guard publicKey.x963 == data.prefix(curve.publicByteCount) else { return nil }
    }

    var curve: ECCurve { publicKey.curve }

    var publicKey: ECPublicKey {
        switch self {
        case .p256(let key): .p256(key.publicKey)
        case .p384(let key): .p384(key.publicKey)
        case .p521(let key): .p521(key.publicKey)
        }
    }

    /// 04 || X || Y || K: secret.
    var x963: Data {
        switch self {
        case .p256(let key): key.x963Representation
        case .p384(let key): key.x963Representation
        case .p521(let key): key.x963Representation
        }
    }

    /// An ECDSA signature of `digest`, DER-encoded as Apple returns it.
    func signature(digest: Data, hash: SecKeyHash) throws -> Data {
        guard let digest = DigestBytes(digest, hash: hash) else { throw SecKeyFailure(errSecParam, "the digest is not \(hash.byteCount) bytes long") }
        switch self {
        case .p256(let key): return try digest.withDigest { try key.signature(for: $0).derRepresentation }
        case .p384(let key): return try digest.withDigest { try key.signature(for: $0).derRepresentation }
        case .p521(let key): return try digest.withDigest { try key.signature(for: $0).derRepresentation }
        }
    }

    /// The ECDH shared secret with `peer`: the x coordinate of the shared point, as Apple's
    /// `ecdhKeyExchangeStandard` returns it.
    func sharedSecret(with peer: ECPublicKey) throws -> SharedSecret {
        // swift-crypto keeps signing and key-agreement keys apart; the scalar crosses over as a
        // transient copy, zeroed as soon as the agreement key holds it.
        switch (self, peer) {
        case (.p256(let key), .p256(let peer)):
            var scalar = key.rawRepresentation
            defer { scalar.resetBytes(in: 0..<scalar.count) }
            return try P256.KeyAgreement.PrivateKey(rawRepresentation: scalar)
                .sharedSecretFromKeyAgreement(with: P256.KeyAgreement.PublicKey(rawRepresentation: peer.rawRepresentation))
        case (.p384(let key), .p384(let peer)):
            var scalar = key.rawRepresentation
            defer { scalar.resetBytes(in: 0..<scalar.count) }
            return try P384.KeyAgreement.PrivateKey(rawRepresentation: scalar)
                .sharedSecretFromKeyAgreement(with: P384.KeyAgreement.PublicKey(rawRepresentation: peer.rawRepresentation))
        case (.p521(let key), .p521(let peer)):
            var scalar = key.rawRepresentation
            defer { scalar.resetBytes(in: 0..<scalar.count) }
            return try P521.KeyAgreement.PrivateKey(rawRepresentation: scalar)
                .sharedSecretFromKeyAgreement(with: P521.KeyAgreement.PublicKey(rawRepresentation: peer.rawRepresentation))
        default:
            throw SecKeyFailure(errSecParam, "the public key is on a different curve than the private key")
        }
    }
}
#endif
