#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The size and range limits every stored item obeys, checked before anything is written.
///
/// The limits keep one item's row small, and a reason names the attribute and the limit so a caller knows
/// what to shorten; it never quotes the value (it could be secret).
enum ItemLimits {
    /// The valid TCP/UDP port numbers (`kSecAttrPort`).
    static let ports = 0...65535

    /// Checks the secret, every attribute and the port of `item`.
    static func check(_ item: KeychainItem, operation: String) throws(KeyringError) {
        try checkSecret(item.secret, operation: operation)
        for (name, size) in attributeSizes(of: item) {
            try checkAttribute(name, size: size, operation: operation)
        }
        try checkPort(item.port, operation: operation)
        try checkClassAttributes(of: item, operation: operation)
    }

    /// A key carries key attributes and nothing of a certificate, a certificate the reverse, a
    /// password neither; a Secure Enclave private key is P-256, as on a device.
    private static func checkClassAttributes(of item: KeychainItem, operation: String) throws(KeyringError) {
        switch item.itemClass {
        case .genericPassword, .internetPassword:
            guard item.key == nil, item.certificate == nil else {
                throw KeyringError(.invalidParameter, "\(operation): a password has no key or certificate attributes")
            }
        case .key:
            guard let key = item.key, item.certificate == nil else {
                throw KeyringError(.invalidParameter, "\(operation): a key item needs KeyAttributes (key class, type, size, application label)")
            }
            try checkAttribute("application label (kSecAttrApplicationLabel)", size: key.applicationLabel.count, operation: operation)
            try checkAttribute("application tag (kSecAttrApplicationTag)", size: key.applicationTag?.count ?? 0, operation: operation)
            try checkAttribute("key type (kSecAttrKeyType)", size: key.keyType.utf8.count, operation: operation)
            try checkAttribute("token (kSecAttrTokenID)", size: key.tokenID?.utf8.count ?? 0, operation: operation)
            if let tokenID = key.tokenID, tokenID != KeyAttributes.secureEnclaveToken {
                throw KeyringError(.invalidParameter, "\(operation): token \"\(GroupIdentifier.printable(tokenID))\" (kSecAttrTokenID) is not emulated; only kSecAttrTokenIDSecureEnclave is")
            }
            if key.isSecureEnclavePrivateKey, key.keyType != "73" || key.sizeInBits != 256 {
                throw KeyringError(.invalidParameter, "\(operation): a Secure Enclave key is an EC P-256 key (kSecAttrKeyTypeECSECPrimeRandom, 256 bits), as on a device; this one is type \(key.keyType), \(key.sizeInBits) bits")
            }
        case .certificate:
            guard let certificate = item.certificate, item.key == nil else {
                throw KeyringError(.invalidParameter, "\(operation): a certificate item needs CertificateAttributes (issuer, serial number, public key hash)")
            }
            for (name, value) in [("subject (kSecAttrSubject)", certificate.subject), ("issuer (kSecAttrIssuer)", certificate.issuer),
                                  ("serial number (kSecAttrSerialNumber)", certificate.serialNumber),
                                  ("subject key id (kSecAttrSubjectKeyID)", certificate.subjectKeyID ?? Data()),
                                  ("public key hash (kSecAttrPublicKeyHash)", certificate.publicKeyHash)] {
                try checkAttribute(name, size: value.count, operation: operation)
            }
        }
    }

    /// Checks the values `changes` would set, before any item is touched.
    static func check(_ changes: ItemChanges, operation: String) throws(KeyringError) {
        if let secret = changes.secret { try checkSecret(secret, operation: operation) }
        for attribute in TextAttribute.all {
            if case .some(.some(let value)) = attribute.readChange(changes) {
                try checkAttribute(attribute.qualifiedName, size: value.utf8.count, operation: operation)
            }
        }
        if case .some(.some(let generic)) = changes.generic {
            try checkAttribute("generic (kSecAttrGeneric)", size: generic.count, operation: operation)
        }
        if case .some(let port) = changes.port { try checkPort(port, operation: operation) }
        if case .some(.some(.text(let creator))) = changes.creator {
            try checkAttribute("creator (kSecAttrCreator)", size: creator.utf8.count, operation: operation)
        }
        if case .some(.some(.text(let type))) = changes.type {
            try checkAttribute("type (kSecAttrType)", size: type.utf8.count, operation: operation)
        }
        if case .some(.some(let tag)) = changes.applicationTag {
            try checkAttribute("application tag (kSecAttrApplicationTag)", size: tag.count, operation: operation)
        }
    }

    private static func attributeSizes(of item: KeychainItem) -> [(String, Int)] {
        var sizes: [(String, Int)] = []
        for attribute in TextAttribute.all {
            if let value = attribute.readItem(item) { sizes.append((attribute.qualifiedName, value.utf8.count)) }
        }
        if let generic = item.generic { sizes.append(("generic (kSecAttrGeneric)", generic.count)) }
        if case .text(let creator) = item.creator { sizes.append(("creator (kSecAttrCreator)", creator.utf8.count)) }
        if case .text(let type) = item.type { sizes.append(("type (kSecAttrType)", type.utf8.count)) }
        return sizes
    }

    private static func checkSecret(_ secret: Data, operation: String) throws(KeyringError) {
        guard secret.count <= KeychainItem.maximumSecretSize else {
            throw KeyringError(.dataTooLarge, "\(operation): the secret (kSecValueData) is \(secret.count) bytes; the limit is \(KeychainItem.maximumSecretSize) bytes (KeychainItem.maximumSecretSize); store large data in a sealed Vault record and keep only its key here")
        }
    }

    private static func checkAttribute(_ name: String, size: Int, operation: String) throws(KeyringError) {
        guard size <= KeychainItem.maximumAttributeSize else {
            throw KeyringError(.dataTooLarge, "\(operation): attribute \(name) is \(size) bytes; the limit is \(KeychainItem.maximumAttributeSize) bytes (KeychainItem.maximumAttributeSize)")
        }
    }

    private static func checkPort(_ port: Int?, operation: String) throws(KeyringError) {
        guard let port else { return }
        guard ports.contains(port) else {
            throw KeyringError(.invalidParameter, "\(operation): port (kSecAttrPort) \(port) is outside \(ports.lowerBound)...\(ports.upperBound)")
        }
    }
}
