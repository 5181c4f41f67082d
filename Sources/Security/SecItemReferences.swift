#if !canImport(Darwin)
import Foundation
import Keyring

/// The bridge between keychain items and the objects Apple code passes and gets back
/// (`kSecValueRef`, `kSecReturnRef`): `SecKey`, `SecCertificate` and `SecIdentity`.
///
/// The keyring stores bytes and attributes and knows nothing of cryptography; the objects are
/// built here from what it stores (``SecKey/ItemMaterial``, ``SecCertificate/ItemAttributes``)
/// and turned back into items the same way, so the two descriptions cannot drift apart.
enum SecItemReferences {
    // MARK: Adding

    /// The items `SecItemAdd` adds for a key, certificate or identity request: one item, or for
    /// an identity its certificate and then its private key.
    ///
    /// - Throws: `KeyringStatus.invalidParameter` when neither `kSecValueRef` nor
    ///   `kSecValueData` gives the object, or they give something that is not one.
    static func itemsToAdd(_ request: SecItemRequest) throws(KeyringError) -> [KeychainItem] {
        if let object = request.valueReference {
            if let key = object as? SecKey { return [try keyItem(key, request)] }
            if let certificate = object as? SecCertificate { return [certificateItem(certificate, request)] }
            if let identity = object as? SecIdentity {
                return [certificateItem(identity.certificate, request), try keyItem(identity.privateKey, request)]
            }
            throw KeyringError(.invalidParameter, "kSecValueRef is a \(type(of: object)); it must be a SecKey, SecCertificate or SecIdentity")
        }
        guard let data = request.secret else {
            throw KeyringError(.invalidParameter, "adding a \(request.isIdentity ? "identity" : request.itemClass?.rawValue ?? "key") needs kSecValueRef (the object) or kSecValueData (its bytes)")
        }
        switch request.itemClass {
        case .key where !request.isIdentity:
            return [try keyItem(try key(fromData: data, request), request)]
        case .certificate where !request.isIdentity:
            guard let certificate = SecCertificateCreateWithData(nil, data as CFData) else {
                throw KeyringError(.invalidParameter, "kSecValueData (\(data.count) bytes) is not a DER X.509 certificate")
            }
            return [certificateItem(certificate, request)]
        default:
            throw KeyringError(.invalidParameter, "an identity is added with kSecValueRef: a SecIdentity")
        }
    }

    /// A key from `kSecValueData` and the request's `kSecAttrKeyType` and `kSecAttrKeyClass`,
    /// as `SecKeyCreateWithData` reads them.
    private static func key(fromData data: Data, _ request: SecItemRequest) throws(KeyringError) -> SecKey {
        guard let keyType = request.key.keyType, let keyClass = request.key.keyClass else {
            throw KeyringError(.invalidParameter, "a key added with kSecValueData needs kSecAttrKeyType and kSecAttrKeyClass")
        }
        let attributes = [kSecAttrKeyType as String: keyType, kSecAttrKeyClass as String: keyClass.rawValue] as CFDictionary
        guard let key = SecKeyCreateWithData(data as CFData, attributes, nil) else {
            throw KeyringError(.invalidParameter, "kSecValueData (\(data.count) bytes) is not a \(keyClass) key of type \(keyType) (X9.63 for EC, PKCS#1 for RSA)")
        }
        return key
    }

    /// The item for `key`: its class, type, size, label, bytes and usages from the key; tag,
    /// label, group, accessibility and usage overrides from the request.
    private static func keyItem(_ key: SecKey, _ request: SecItemRequest) throws(KeyringError) -> KeychainItem {
        let material = key.itemMaterial
        guard let keyClass = KeyAttributes.KeyClass(rawValue: material.keyClass) else {
            throw KeyringError(.unimplemented, "key class \(material.keyClass) is not stored; only public and private keys are")
        }
        if let tokenID = request.key.tokenID, tokenID != material.tokenID {
            throw KeyringError(.invalidParameter, "kSecAttrTokenID \(tokenID) differs from the key's own token; a key cannot move into or out of the Secure Enclave")
        }
        var usage = KeyAttributes.Usage()
        for flag in SecItemKey.allCases {
            if let bit = flag.keyUsage, material.usage[flag.name] == true { usage.insert(bit) }
        }
        usage.formUnion(request.key.requiredUsage)
        usage.subtract(request.key.refusedUsage)
        let attributes = KeyAttributes(
            keyClass: keyClass, keyType: material.keyType, sizeInBits: material.sizeInBits,
            applicationLabel: request.key.applicationLabel ?? material.applicationLabel,
            applicationTag: request.applicationTag, tokenID: material.tokenID, usage: usage)
        var item = KeychainItem(
            key: attributes, keyData: material.keyData, accessGroup: request.accessGroup, label: request.label,
            accessibility: request.accessControl?.protection ?? request.accessibility ?? .whenUnlocked,
            accessControl: request.accessControl?.flags ?? key.accessControl?.flags ?? [])
        item.isSynchronizable = request.synchronizable == .yes
        return item
    }

    /// The item for `certificate`: its attributes read from its DER; label (the subject
    /// summary unless given), group and accessibility from the request.
    private static func certificateItem(_ certificate: SecCertificate, _ request: SecItemRequest) -> KeychainItem {
        let read = certificate.itemAttributes
        let attributes = CertificateAttributes(
            certificateType: read.certificateType, certificateEncoding: read.certificateEncoding,
            subject: read.subject, issuer: read.issuer, serialNumber: read.serialNumber,
            subjectKeyID: read.subjectKeyID, publicKeyHash: read.publicKeyHash)
        var item = KeychainItem(
            certificate: attributes, der: read.der, accessGroup: request.accessGroup, label: request.label ?? read.label,
            accessibility: request.accessControl?.protection ?? request.accessibility ?? .whenUnlocked)
        item.isSynchronizable = request.synchronizable == .yes
        return item
    }

    // MARK: Objects for stored items

    /// The object for a stored key or certificate, read through `Keyring.itemsForKeyUse(matching:limit:)`
    /// (a Secure Enclave key's bytes in the clear, never returned as data); `nil` for a password.
    ///
    /// - Throws: `KeyringStatus.decode` when the stored bytes are no longer a valid key or
    ///   certificate of the stored attributes.
    static func object(for item: KeychainItem) throws(KeyringError) -> AnyObject? {
        switch item.itemClass {
        case .genericPassword, .internetPassword:
            return nil
        case .key:
            return try key(for: item)
        case .certificate:
            return try certificate(for: item)
        }
    }

    /// The identity of a stored certificate and private key (the key's bytes in the clear).
    static func identity(for pair: IdentityItems) throws(KeyringError) -> SecIdentity {
        SecIdentity(certificate: try certificate(for: pair.certificate), privateKey: try key(for: pair.privateKey))
    }

    private static func key(for item: KeychainItem) throws(KeyringError) -> SecKey {
        guard let attributes = item.key else { throw undecodable(item, "has no key attributes") }
        var usage: [String: Bool] = [:]
        for flag in SecItemKey.allCases {
            if let bit = flag.keyUsage { usage[flag.name] = attributes.usage.contains(bit) }
        }
        let material = SecKey.ItemMaterial(
            keyType: attributes.keyType, keyClass: attributes.keyClass.rawValue, sizeInBits: attributes.sizeInBits,
            tokenID: attributes.tokenID, keyData: item.secret, applicationLabel: attributes.applicationLabel, usage: usage)
        let accessControl = item.accessControl.isEmpty ? nil : SecAccessControl(protection: item.accessibility, flags: item.accessControl)
        guard let key = SecKey(itemMaterial: material, accessControl: accessControl) else {
            throw undecodable(item, "holds bytes that are not a \(attributes.keyClass) key of type \(attributes.keyType), \(attributes.sizeInBits) bits")
        }
        // The item's tag and label go with the key, so SecKeyCopyAttributes reports them as a
        // device does for a key read from the keychain.
        return SecKey(key.material, tokenID: key.tokenID, accessControl: key.accessControl,
                      applicationTag: attributes.applicationTag, label: item.label)
    }

    private static func certificate(for item: KeychainItem) throws(KeyringError) -> SecCertificate {
        guard let certificate = SecCertificateCreateWithData(nil, item.secret as CFData) else {
            throw undecodable(item, "holds bytes that are not a DER certificate")
        }
        return certificate
    }

    private static func undecodable(_ item: KeychainItem, _ detail: String) -> KeyringError {
        KeyringError(.decode, "the \(item.itemClass.rawValue) item labelled \"\(GroupIdentifier.printableForMessage(item.label ?? ""))\" in \(item.accessGroup?.rawValue ?? "no group") \(detail); delete it and add it again")
    }

    // MARK: Queries naming an object

    /// Narrows `query` to the item `object` was stored as: a key by its application label and
    /// class, a certificate (or an identity's) by issuer and serial number.
    static func narrow(_ query: inout ItemQuery, to object: AnyObject) throws(KeyringError) {
        if let key = object as? SecKey {
            let material = key.itemMaterial
            query.key.applicationLabel = material.applicationLabel
            query.key.keyClass = KeyAttributes.KeyClass(rawValue: material.keyClass)
        } else if let certificate = (object as? SecCertificate) ?? (object as? SecIdentity)?.certificate {
            let read = certificate.itemAttributes
            query.certificate.issuer = read.issuer
            query.certificate.serialNumber = read.serialNumber
        } else {
            throw KeyringError(.invalidParameter, "kSecValueRef is a \(type(of: object)); it must be a SecKey, SecCertificate or SecIdentity")
        }
    }
}
#endif
