#if !canImport(Darwin)
import Foundation

/// The public key of a private key, or the key itself if it is public.
///
/// Never `nil` here: every key this module creates has a public half. (Apple returns `nil` for
/// keys whose public half it cannot compute.)
public func SecKeyCopyPublicKey(_ key: SecKey) -> SecKey? {
    key.publicKey
}

/// The key's external representation: ANSI X9.63 for EC (public 04 || X || Y, private
/// 04 || X || Y || K), PKCS#1 DER for RSA (RSAPublicKey or RSAPrivateKey).
///
/// - Parameters:
///   - key: The key.
///   - error: Receives `errSecUnimplemented` for the private key of a Secure Enclave
///     key, which never leaves the (emulated) enclave.
public func SecKeyCopyExternalRepresentation(_ key: SecKey, _ error: UnsafeMutablePointer<Unmanaged<CFError>?>?) -> CFData? {
    SecKeyFailure.reporting(error) {
        guard !(key.isSecureEnclave && key.isPrivate) else {
            throw SecKeyFailure(errSecUnimplemented, "export of a Secure Enclave private key is not allowed")
        }
        return key.externalRepresentation as NSData
    }
}

/// The key's attributes, as Apple reports them: `kSecAttrKeyClass`, `kSecAttrKeyType`,
/// `kSecAttrKeySizeInBits`, `kSecAttrEffectiveKeySize`, `kSecAttrApplicationLabel`,
/// `kSecAttrApplicationTag` (empty data when none was given), `kSecAttrCanSign` and the other
/// usage flags, `kSecAttrTokenID` for Secure Enclave keys, `kSecAttrLabel` and
/// `kSecAttrAccessControl` when set, and `kSecValueData` (the external representation) for every
/// key but a Secure Enclave private key.
public func SecKeyCopyAttributes(_ key: SecKey) -> CFDictionary? {
    let material = key.itemMaterial
    var attributes: [String: Any] = [
        kSecClass as String: kSecClassKey,
        kSecAttrKeyClass as String: NSString(string: material.keyClass),
        kSecAttrKeyType as String: NSString(string: material.keyType),
        kSecAttrKeySizeInBits as String: NSNumber(value: material.sizeInBits),
        kSecAttrEffectiveKeySize as String: NSNumber(value: material.sizeInBits),
        kSecAttrApplicationLabel as String: material.applicationLabel as NSData,
        kSecAttrApplicationTag as String: (key.applicationTag ?? Data()) as NSData,
    ]
    for (name, allowed) in material.usage { attributes[name] = NSNumber(value: allowed) }
    if let tokenID = key.tokenID { attributes[kSecAttrTokenID as String] = NSString(string: tokenID) }
    if let label = key.label { attributes[kSecAttrLabel as String] = NSString(string: label) }
    if let accessControl = key.accessControl { attributes[kSecAttrAccessControl as String] = accessControl }
    if !(key.isSecureEnclave && key.isPrivate) { attributes[kSecValueData as String] = material.keyData as NSData }
    return attributes as NSDictionary
}

/// Restores a key from its external representation (see ``SecKeyCopyExternalRepresentation(_:_:)``).
///
/// - Parameters:
///   - keyData: X9.63 for EC (the curve follows from the length), PKCS#1 DER for RSA (a
///     SubjectPublicKeyInfo or PKCS#8 is accepted too); 1024 to 4096-bit RSA.
///   - attributes: `kSecAttrKeyType` and `kSecAttrKeyClass` (public or private) are required;
///     `kSecAttrKeySizeInBits`, when given, must match the data.
///   - error: Receives `errSecParam` when the attributes are missing or the data is not a valid
///     key of that type and class, as on Apple platforms.
/// - Returns: The key, or `nil` on error.
public func SecKeyCreateWithData(_ keyData: CFData, _ attributes: CFDictionary, _ error: UnsafeMutablePointer<Unmanaged<CFError>?>?) -> SecKey? {
    SecKeyFailure.reporting(error) {
        let parameters = SecKeyParameters(attributes)
        guard let typeName = parameters.string(kSecAttrKeyType), let kind = SecKeyKind(rawValue: typeName) else {
            throw SecKeyFailure(errSecParam, "Unsupported key type: kSecAttrKeyType must be kSecAttrKeyTypeECSECPrimeRandom or kSecAttrKeyTypeRSA")
        }
        guard let isPrivate = SecKey.isPrivateClass(parameters.string(kSecAttrKeyClass)) else {
            throw SecKeyFailure(errSecParam, "Unsupported key class: kSecAttrKeyClass must be kSecAttrKeyClassPublic or kSecAttrKeyClassPrivate")
        }
        let family = kind == .ec ? "EC" : "RSA"
        let role = isPrivate ? "private" : "public"
        guard let material = SecKey.Material(kind: kind, isPrivate: isPrivate, externalRepresentation: keyData as Data) else {
            throw SecKeyFailure(errSecParam, "\(family) \(role) key creation from data failed")
        }
        let key = SecKey(material, applicationTag: parameters.data(kSecAttrApplicationTag), label: parameters.string(kSecAttrLabel))
        if let bits = parameters.int(kSecAttrKeySizeInBits), bits != key.sizeInBits {
            throw SecKeyFailure(errSecParam, "\(family) \(role) key creation from data failed: the data is a \(key.sizeInBits)-bit key, not \(bits)")
        }
        return key
    }
}
#endif
