#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import SealedStorage

/// The attributes that make a keychain item unique, as Apple defines them per class.
///
/// - Generic passwords: class, access group, service, account, synchronizable.
/// - Internet passwords: class, access group, server, protocol, port, path, account,
///   authentication type, security domain, synchronizable.
/// - Keys: class, access group, key class, application label, application tag, key type, size
///   in bits, effective size, synchronizable (Apple's key also has creator, start and end
///   dates, which SecItem cannot set: always empty there, so left out here).
/// - Certificates: class, access group, certificate type, issuer, serial number, synchronizable.
///
/// `kSecAttrCreator`, `kSecAttrType`, `kSecAttrIsInvisible` and `kSecAttrIsNegative` are not in
/// any primary key: two passwords differing only in them collide.
///
/// Apple stores an absent attribute as its empty value, so an absent string and `""` (and an
/// absent port and `0`) are the same key here too: adding `account: nil` after `account: ""`
/// is a duplicate on a device, and must be one here.
///
/// Strings compare byte for byte (UTF-8), as the device's database does, not by Swift's
/// canonical equivalence: `"café"` precomposed and decomposed are two different accounts.
struct ItemPrimaryKey: Hashable, Sendable, CustomStringConvertible {
    let itemClass: ItemClass
    let accessGroup: GroupIdentifier?
    let isSynchronizable: Bool
    let service: String
    let account: String
    let server: String
    let `protocol`: String
    let port: Int
    let path: String
    let authenticationType: String
    let securityDomain: String
    /// The class-specific attributes of a key or certificate, each length-prefixed in a fixed
    /// order; empty for passwords (so their keys, and their stored hashes, are as before).
    let classAttributes: [UInt8]

    init(_ item: KeychainItem) {
        itemClass = item.itemClass
        accessGroup = item.accessGroup
        isSynchronizable = item.isSynchronizable
        account = item.account ?? ""
        classAttributes = Self.classAttributes(of: item)
        switch item.itemClass {
        case .genericPassword:
            // Internet attributes are stored on a generic password if given, but Apple leaves
            // them out of its key: two items differing only in `server` still collide.
            service = item.service ?? ""
            server = ""
            self.protocol = ""
            port = 0
            path = ""
            authenticationType = ""
            securityDomain = ""
        case .internetPassword:
            service = ""
            server = item.server ?? ""
            self.protocol = item.protocol ?? ""
            port = item.port ?? 0
            path = item.path ?? ""
            authenticationType = item.authenticationType ?? ""
            securityDomain = item.securityDomain ?? ""
        case .key, .certificate:
            // Apple's key and certificate tables have none of the password attributes.
            service = ""
            server = ""
            self.protocol = ""
            port = 0
            path = ""
            authenticationType = ""
            securityDomain = ""
        }
    }

    /// The bytes of ``classAttributes`` for `item`. An absent key or certificate attribute
    /// set encodes as its class's empty values, which ItemLimits refuses to store.
    private static func classAttributes(of item: KeychainItem) -> [UInt8] {
        var bytes: [UInt8] = []
        func append<Field: Collection<UInt8>>(_ field: Field) { bytes.appendLengthPrefixed(field) }
        func append(_ number: Int) { bytes.appendBigEndian(Int64(number)) }
        switch item.itemClass {
        case .genericPassword, .internetPassword:
            break
        case .key:
            let key = item.key
            append((key?.keyClass.rawValue ?? "").utf8)
            append(key?.applicationLabel ?? Data())
            append(key?.applicationTag ?? Data())
            append((key?.keyType ?? "").utf8)
            append(key?.sizeInBits ?? 0)
            append(key?.effectiveSize ?? 0)
        case .certificate:
            let certificate = item.certificate
            append(certificate?.certificateType ?? 0)
            append(certificate?.issuer ?? Data())
            append(certificate?.serialNumber ?? Data())
        }
        return bytes
    }

    /// The key's attributes, for error messages (attributes are not secret; the secret is not here).
    private var strings: [String] { [service, account, server, self.protocol, path, authenticationType, securityDomain] }

    static func == (lhs: ItemPrimaryKey, rhs: ItemPrimaryKey) -> Bool {
        lhs.itemClass == rhs.itemClass && lhs.accessGroup == rhs.accessGroup
            && lhs.isSynchronizable == rhs.isSynchronizable && lhs.port == rhs.port
            && zip(lhs.strings, rhs.strings).allSatisfy { $0.hasSameUTF8(as: $1) }
            && lhs.classAttributes == rhs.classAttributes
    }

    func hash(into hasher: inout Hasher) {
        hasher.combine(itemClass)
        hasher.combine(accessGroup)
        hasher.combine(isSynchronizable)
        hasher.combine(port)
        for string in strings {
            // The length first, so ("ab", "c") and ("a", "bc") feed the hasher differently.
            hasher.combine(string.utf8.count)
            for byte in string.utf8 { hasher.combine(byte) }
        }
        hasher.combine(classAttributes)
    }

    var description: String {
        var parts = ["class \(itemClass.rawValue)", "access group \(accessGroup?.rawValue ?? "default")"]
        switch itemClass {
        case .genericPassword:
            parts.append("service \"\(GroupIdentifier.printable(service))\"")
        case .key:
            parts.append("key attributes (\(classAttributes.count) bytes: key class, application label and tag, type, sizes)")
        case .certificate:
            parts.append("certificate attributes (\(classAttributes.count) bytes: type, issuer, serial number)")
        case .internetPassword:
            parts.append("server \"\(GroupIdentifier.printable(server))\"")
            if !self.protocol.isEmpty { parts.append("protocol \"\(GroupIdentifier.printable(self.protocol))\"") }
            if port != 0 { parts.append("port \(port)") }
            if !path.isEmpty { parts.append("path \"\(GroupIdentifier.printable(path))\"") }
            if !authenticationType.isEmpty { parts.append("authentication type \"\(GroupIdentifier.printable(authenticationType))\"") }
            if !securityDomain.isEmpty { parts.append("security domain \"\(GroupIdentifier.printable(securityDomain))\"") }
        }
        if itemClass.isPassword { parts.append("account \"\(GroupIdentifier.printable(account))\"") }
        parts.append(isSynchronizable ? "synchronizable" : "not synchronizable")
        return parts.joined(separator: ", ")
    }
}

extension KeychainItem {
    /// This item's primary key: what ``KeyringStatus/duplicateItem`` compares.
    var primaryKey: ItemPrimaryKey { ItemPrimaryKey(self) }
}
