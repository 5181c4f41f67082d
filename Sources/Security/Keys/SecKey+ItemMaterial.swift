#if !canImport(Darwin)
import Foundation

extension SecKey {
    /// What a key item stores: the key's class, type, size, token and usage attributes, and its
    /// bytes (public: X9.63 / PKCS#1 public; private: X9.63 04||X||Y||K / PKCS#1 private, for
    /// Secure Enclave keys too: the keychain seals them at rest under a device-bound key and
    /// never returns them).
    ///
    /// The contract between SecKey and the keychain's key items; `keyData` of a private key is
    /// secret and must never be logged or returned.
    struct ItemMaterial: Sendable, Equatable {
        /// `kSecAttrKeyType` value: `"73"` EC, `"42"` RSA.
        var keyType: String
        /// `kSecAttrKeyClass` value: `"0"` public, `"1"` private.
        var keyClass: String
        /// `kSecAttrKeySizeInBits`.
        var sizeInBits: Int
        /// `kSecAttrTokenIDSecureEnclave`, or nil.
        var tokenID: String?
        /// The key's external representation; secret for private keys.
        var keyData: Data
        /// `kSecAttrApplicationLabel`: SHA-1 of the public key's external representation.
        var applicationLabel: Data
        /// `kSecAttrCanSign` etc., as Security.framework sets them for this class and type.
        var usage: [String: Bool]
    }

    /// This key as a key item stores it.
    var itemMaterial: ItemMaterial {
        ItemMaterial(
            keyType: kind.rawValue,
            keyClass: isPrivate ? kSecAttrKeyClassPrivate as String : kSecAttrKeyClassPublic as String,
            sizeInBits: sizeInBits,
            tokenID: tokenID,
            keyData: externalRepresentation,
            applicationLabel: applicationLabel,
            usage: usage
        )
    }

    /// Rebuilds a key from a stored item; nil when the bytes are not a valid key of that
    /// type, size and class, or a Secure Enclave key is not P-256 private or public.
    convenience init?(itemMaterial: ItemMaterial, accessControl: SecAccessControl?) {
        guard let kind = SecKeyKind(rawValue: itemMaterial.keyType) else { return nil }
        guard let isPrivate = SecKey.isPrivateClass(itemMaterial.keyClass) else { return nil }
        guard let material = Material(kind: kind, isPrivate: isPrivate, externalRepresentation: itemMaterial.keyData) else { return nil }
        let key = SecKey(material)
        guard key.sizeInBits == itemMaterial.sizeInBits else { return nil }
        if let tokenID = itemMaterial.tokenID {
            guard tokenID == kSecAttrTokenIDSecureEnclave as String, kind == .ec, key.sizeInBits == 256 else { return nil }
        }
        self.init(material, tokenID: itemMaterial.tokenID, accessControl: accessControl)
    }
}

extension SecKey {
    /// `kSecAttrKeyClassPrivate` → true, `kSecAttrKeyClassPublic` → false, anything else nil.
    static func isPrivateClass(_ keyClass: String?) -> Bool? {
        switch keyClass {
        case String(kSecAttrKeyClassPrivate): true
        case String(kSecAttrKeyClassPublic): false
        default: nil
        }
    }
}

extension SecKey.Material {
    /// Parses an external representation of the given family and class (curve and size from its
    /// length and contents); nil when it is not one.
    init?(kind: SecKeyKind, isPrivate: Bool, externalRepresentation data: Data) {
        switch (kind, isPrivate) {
        case (.ec, false):
            guard let curve = ECCurve(externalByteCount: data.count, isPrivate: false),
                  let key = ECPublicKey(x963: data, curve: curve) else { return nil }
            self = .ecPublic(key)
        case (.ec, true):
            guard let curve = ECCurve(externalByteCount: data.count, isPrivate: true),
                  let key = ECPrivateKey(x963: data, curve: curve) else { return nil }
            self = .ecPrivate(key)
        case (.rsa, false):
            guard let key = RSAPublicKey(der: data) else { return nil }
            self = .rsaPublic(key)
        case (.rsa, true):
            guard let key = RSAPrivateKey(der: data) else { return nil }
            self = .rsaPrivate(key)
        }
    }
}
#endif
