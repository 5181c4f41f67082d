#if !canImport(Darwin)
import Foundation

/// Creates a new private key (and with it its public key), as on Apple platforms.
///
/// - Parameters:
///   - parameters: `kSecAttrKeyType` (`kSecAttrKeyTypeECSECPrimeRandom` or `kSecAttrKeyTypeRSA`),
///     `kSecAttrKeySizeInBits` (256, 384 or 521 for EC; 1024 to 4096, a multiple of 8, for RSA;
///     below 2048 only because Apple generates them too: too weak for new keys),
///     optionally `kSecAttrTokenID: kSecAttrTokenIDSecureEnclave` (P-256 only), and
///     `kSecPrivateKeyAttrs` / top-level `kSecAttrIsPermanent`, `kSecAttrApplicationTag`,
///     `kSecAttrLabel`, `kSecAttrAccessControl`, `kSecAttrAccessible`, `kSecAttrAccessGroup`.
///   - error: Receives an `NSOSStatusErrorDomain` error: `errSecParam` for a missing or
///     unsupported type or size; with `kSecAttrIsPermanent`, whatever `SecItemAdd` returned.
/// - Returns: The private key, or `nil` on error.
///
/// With `kSecAttrIsPermanent: true` the private key is stored exactly as Apple code would store
/// it, through `SecItemAdd` with `kSecClass: kSecClassKey` and `kSecValueRef`; if that fails,
/// no key is returned.
public func SecKeyCreateRandomKey(_ parameters: CFDictionary, _ error: UnsafeMutablePointer<Unmanaged<CFError>?>?) -> SecKey? {
    SecKeyFailure.reporting(error) {
        let top = SecKeyParameters(parameters)
        let privateAttributes = top.merging(top.dictionary(kSecPrivateKeyAttrs) ?? SecKeyParameters(nil))
        let publicAttributes = top.merging(top.dictionary(kSecPublicKeyAttrs) ?? SecKeyParameters(nil))

        guard let typeName = top.string(kSecAttrKeyType), let kind = SecKeyKind(rawValue: typeName) else {
            throw SecKeyFailure(errSecParam, "Key generation failed: kSecAttrKeyType must be kSecAttrKeyTypeECSECPrimeRandom or kSecAttrKeyTypeRSA")
        }
        guard let bits = top.int(kSecAttrKeySizeInBits) else {
            throw SecKeyFailure(errSecParam, "Key generation failed: kSecAttrKeySizeInBits is missing")
        }
        let tokenID = top.string(kSecAttrTokenID)
        if let tokenID {
            guard tokenID == kSecAttrTokenIDSecureEnclave as String else {
                throw SecKeyFailure(errSecParam, "Key generation failed: the only token is kSecAttrTokenIDSecureEnclave")
            }
            guard kind == .ec, bits == 256 else {
                throw SecKeyFailure(errSecParam, "Key generation failed: the Secure Enclave holds only 256-bit EC (P-256) keys")
            }
        }
        let accessControl: SecAccessControl?
        switch privateAttributes.raw(kSecAttrAccessControl) {
        case nil: accessControl = nil
        case let control as SecAccessControl: accessControl = control
        default: throw SecKeyFailure(errSecParam, "Key generation failed: kSecAttrAccessControl must be a SecAccessControl")
        }

        let material: SecKey.Material
        switch kind {
        case .ec:
            guard let curve = ECCurve(rawValue: bits) else {
                throw SecKeyFailure(errSecParam, "Key generation failed: EC keys are 256, 384 or 521 bits, not \(bits)")
            }
            material = .ecPrivate(ECPrivateKey(generatingOn: curve))
        case .rsa:
            guard RSAKeySize.generated.contains(bits), bits % 8 == 0 else {
                throw SecKeyFailure(errSecParam, "Key generation failed: RSA keys are 1024 to 4096 bits (a multiple of 8), not \(bits)")
            }
            material = .rsaPrivate(try RSAPrivateKey(generatingBits: bits))
        }
        let key = SecKey(
            material, tokenID: tokenID, accessControl: accessControl,
            applicationTag: privateAttributes.data(kSecAttrApplicationTag), label: privateAttributes.string(kSecAttrLabel))

        if privateAttributes.bool(kSecAttrIsPermanent) == true {
            try store(key, attributes: privateAttributes)
        }
        if top.dictionary(kSecPublicKeyAttrs)?.bool(kSecAttrIsPermanent) == true {
            // The token belongs to the private key: an enclave key's public half is an ordinary
            // key (SecKeyCopyPublicKey gives it no token), so its item has none either.
            try store(key.publicKey, attributes: publicAttributes, excluding: [kSecAttrTokenID])
        }
        return key
    }
}

/// The attributes of `SecKeyCreateRandomKey`'s parameters that a permanent key's item keeps.
private var storedAttributes: [CFString] {
    [
        kSecAttrApplicationTag, kSecAttrLabel, kSecAttrAccessGroup, kSecAttrAccessible, kSecAttrAccessControl,
        kSecAttrSynchronizable, kSecUseDataProtectionKeychain, kSecAttrTokenID,
    ]
}

/// Adds `key` as a `kSecClassKey` item through the public SecItemAdd, as Apple code would.
private func store(_ key: SecKey, attributes: SecKeyParameters, excluding excluded: [CFString] = []) throws {
    var query = attributes.subset(storedAttributes.filter { !excluded.contains($0) })
    // An access control given for the private key is the item's; a plain accessibility then is not.
    if query[kSecAttrAccessControl as String] != nil { query[kSecAttrAccessible as String] = nil }
    query[kSecClass as String] = kSecClassKey
    query[kSecValueRef as String] = key
    let status = SecItemAdd(query as CFDictionary, nil)
    guard status == errSecSuccess else {
        throw SecKeyFailure(status, "Key generation failed: storing the permanent key with SecItemAdd returned \(status)")
    }
}
#endif
