#if !canImport(Darwin)
import Crypto
import _CryptoExtras
import Foundation

/// The RSA sizes this module creates and imports.
enum RSAKeySize {
    /// `SecKeyCreateRandomKey`: 1024 to 4096 bits, a multiple of 8, as Apple generates them.
    /// Below 2048 is weak and generated only so that code (and test suites) written for Apple
    /// platforms behave as on a device (docs/SECKEY.md).
    static let generated = 1024...4096
    /// `SecKeyCreateWithData`: 1024 to 4096 bits, so old keys from servers still import.
    static let imported = 1024...4096
}

/// An RSA public key, through swift-crypto's `_CryptoExtras`.
struct RSAPublicKey: Sendable {
    let signing: _RSA.Signing.PublicKey

    /// Parses a PKCS#1 RSAPublicKey (Apple's external representation) or a SubjectPublicKeyInfo.
    init?(der: Data) {
        guard let signing = try? _RSA.Signing.PublicKey(unsafeDERRepresentation: der),
              RSAKeySize.imported.contains(signing.keySizeInBits)
        else { return nil }
        self.signing = signing
    }

    init(_ signing: _RSA.Signing.PublicKey) {
        self.signing = signing
    }

    /// The same key as swift-crypto's encryption type (not `Sendable`, so made when needed).
    func encryption() throws -> _RSA.Encryption.PublicKey {
        try _RSA.Encryption.PublicKey(unsafeDERRepresentation: signing.pkcs1DERRepresentation)
    }

    /// PKCS#1 RSAPublicKey DER.
    var pkcs1: Data { signing.pkcs1DERRepresentation }
    var sizeInBits: Int { signing.keySizeInBits }
}

/// An RSA private key. Its numbers stay inside BoringSSL's RSA object (cleared when freed);
/// ``pkcs1`` copies them out only for ``SecKey/itemMaterial``.
struct RSAPrivateKey: Sendable {
    let signing: _RSA.Signing.PrivateKey

    init(generatingBits bits: Int) throws {
        // swift-crypto calls sizes below 2048 "unsafe" and makes them a separate initializer.
        self.init(bits < 2048
            ? try _RSA.Signing.PrivateKey(unsafeKeySize: .init(bitCount: bits))
            : try _RSA.Signing.PrivateKey(keySize: .init(bitCount: bits)))
    }

    /// Parses a PKCS#1 RSAPrivateKey (Apple's external representation) or a PKCS#8 one.
    init?(der: Data) {
        guard let signing = try? _RSA.Signing.PrivateKey(unsafeDERRepresentation: der),
              RSAKeySize.imported.contains(signing.keySizeInBits)
        else { return nil }
        self.init(signing)
    }

    private init(_ signing: _RSA.Signing.PrivateKey) {
        self.signing = signing
    }

    /// The same key as swift-crypto's encryption type (not `Sendable`, so made when needed). The
    /// DER passed between the two types is a transient copy of the secret, zeroed once parsed.
    func encryption() throws -> _RSA.Encryption.PrivateKey {
        var der = signing.derRepresentation
        defer { der.resetBytes(in: 0..<der.count) }
        return try _RSA.Encryption.PrivateKey(unsafeDERRepresentation: der)
    }

    /// PKCS#1 RSAPrivateKey DER: secret.
    var pkcs1: Data { signing.derRepresentation }
    var publicKey: RSAPublicKey { RSAPublicKey(signing.publicKey) }
    var sizeInBits: Int { signing.keySizeInBits }
}
#endif
