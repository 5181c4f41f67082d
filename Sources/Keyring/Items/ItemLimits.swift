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
    }

    /// Checks the values `changes` would set, before any item is touched.
    static func check(_ changes: ItemChanges, operation: String) throws(KeyringError) {
        if let secret = changes.secret { try checkSecret(secret, operation: operation) }
        for attribute in TextAttribute.all {
            if case .some(.some(let value)) = changes[keyPath: attribute.change] {
                try checkAttribute(attribute.qualifiedName, size: value.utf8.count, operation: operation)
            }
        }
        if case .some(.some(let generic)) = changes.generic {
            try checkAttribute("generic (kSecAttrGeneric)", size: generic.count, operation: operation)
        }
        if case .some(let port) = changes.port { try checkPort(port, operation: operation) }
    }

    private static func attributeSizes(of item: KeychainItem) -> [(String, Int)] {
        var sizes: [(String, Int)] = []
        for attribute in TextAttribute.all {
            if let value = item[keyPath: attribute.item] { sizes.append((attribute.qualifiedName, value.utf8.count)) }
        }
        if let generic = item.generic { sizes.append(("generic (kSecAttrGeneric)", generic.count)) }
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
