#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The attributes of a key item (`kSecClassKey`), with Apple's types and values.
///
/// The keyring stores bytes and attributes only: turning them into a key object (and checking
/// that the bytes are a key) is the `Security` module's. For a key item the item's
/// ``KeychainItem/secret`` holds the key's bytes: the external representation (ANSI X9.63 for
/// EC, PKCS#1 for RSA) of a software key, or, for a Secure Enclave key, a blob sealed under a
/// key that never leaves the keyring (`SecureEnclaveSealing`).
public struct KeyAttributes: Sendable, Hashable, Codable {
    /// `kSecAttrKeyClass`.
    public enum KeyClass: String, Sendable, Hashable, Codable, CaseIterable {
        /// `kSecAttrKeyClassPublic` (`"0"`).
        case `public` = "0"
        /// `kSecAttrKeyClassPrivate` (`"1"`).
        case `private` = "1"
    }

    /// What a key may be used for (`kSecAttrCanSign` and its neighbours).
    public struct Usage: OptionSet, Sendable, Hashable, Codable {
        /// The usages as bits (this type's own numbering, stored in items).
        public let rawValue: UInt16
        /// Usages from their bits.
        public init(rawValue: UInt16) { self.rawValue = rawValue }

        /// `kSecAttrCanEncrypt`.
        public static let encrypt = Usage(rawValue: 1 << 0)
        /// `kSecAttrCanDecrypt`.
        public static let decrypt = Usage(rawValue: 1 << 1)
        /// `kSecAttrCanDerive`.
        public static let derive = Usage(rawValue: 1 << 2)
        /// `kSecAttrCanSign`.
        public static let sign = Usage(rawValue: 1 << 3)
        /// `kSecAttrCanVerify`.
        public static let verify = Usage(rawValue: 1 << 4)
        /// `kSecAttrCanWrap`.
        public static let wrap = Usage(rawValue: 1 << 5)
        /// `kSecAttrCanUnwrap`.
        public static let unwrap = Usage(rawValue: 1 << 6)

        /// Apple's defaults for a key of `keyClass` added without usage attributes: a private
        /// key signs, decrypts, derives and unwraps; a public key verifies, encrypts and wraps.
        public static func defaults(for keyClass: KeyClass) -> Usage {
            keyClass == .private ? [.sign, .decrypt, .derive, .unwrap] : [.verify, .encrypt, .wrap]
        }
    }

    /// `kSecAttrKeyClass`: part of the primary key.
    public var keyClass: KeyClass
    /// `kSecAttrKeyType`: Apple's algorithm string, `"73"` (EC) or `"42"` (RSA). Part of the
    /// primary key.
    public var keyType: String
    /// `kSecAttrKeySizeInBits`: part of the primary key.
    public var sizeInBits: Int
    /// `kSecAttrEffectiveKeySize`: the same as the size for EC and RSA keys. Part of the primary key.
    public var effectiveSize: Int
    /// `kSecAttrApplicationLabel`: for EC and RSA keys the SHA-1 of the public key, which a
    /// certificate's `kSecAttrPublicKeyHash` equals. Part of the primary key.
    public var applicationLabel: Data
    /// `kSecAttrApplicationTag`: application-defined bytes. Part of the primary key (absent and
    /// empty are the same).
    public var applicationTag: Data?
    /// `kSecAttrTokenID`: ``secureEnclaveToken`` for a Secure Enclave key, else `nil`.
    public var tokenID: String?
    /// `kSecAttrIsPermanent`: always `true` for a stored key.
    public var isPermanent: Bool
    /// `kSecAttrCanSign` and its neighbours.
    public var usage: Usage

    /// `kSecAttrTokenIDSecureEnclave`'s value.
    public static let secureEnclaveToken = "com.apple.setoken"

    /// A key's attributes; usage defaults to Apple's for its class.
    public init(
        keyClass: KeyClass, keyType: String, sizeInBits: Int, effectiveSize: Int? = nil,
        applicationLabel: Data, applicationTag: Data? = nil, tokenID: String? = nil,
        usage: Usage? = nil
    ) {
        self.keyClass = keyClass
        self.keyType = keyType
        self.sizeInBits = sizeInBits
        self.effectiveSize = effectiveSize ?? sizeInBits
        self.applicationLabel = applicationLabel
        self.applicationTag = applicationTag
        self.tokenID = tokenID
        self.isPermanent = true
        self.usage = usage ?? .defaults(for: keyClass)
    }

    /// Whether the key's private part lives in the (emulated) Secure Enclave.
    public var isSecureEnclavePrivateKey: Bool { keyClass == .private && tokenID == Self.secureEnclaveToken }
}

/// What a query asks of a key item's attributes; `nil` (or an empty usage set) matches anything.
public struct KeyAttributeQuery: Sendable, Hashable {
    /// `kSecAttrKeyClass`.
    public var keyClass: KeyAttributes.KeyClass?
    /// `kSecAttrKeyType`.
    public var keyType: String?
    /// `kSecAttrKeySizeInBits`.
    public var sizeInBits: Int?
    /// `kSecAttrEffectiveKeySize`.
    public var effectiveSize: Int?
    /// `kSecAttrApplicationLabel`.
    public var applicationLabel: Data?
    /// `kSecAttrApplicationTag` (compared byte for byte; absent in an item equals empty).
    public var applicationTag: Data?
    /// `kSecAttrTokenID` (absent in an item equals `""`).
    public var tokenID: String?
    /// `kSecAttrIsPermanent`.
    public var isPermanent: Bool?
    /// Usages given as `true`: the key must have each.
    public var requiredUsage: KeyAttributes.Usage = []
    /// Usages given as `false`: the key must have none of them.
    public var refusedUsage: KeyAttributes.Usage = []

    /// A query that matches any key; set what must match.
    public init(
        keyClass: KeyAttributes.KeyClass? = nil, keyType: String? = nil, sizeInBits: Int? = nil,
        effectiveSize: Int? = nil, applicationLabel: Data? = nil, applicationTag: Data? = nil,
        tokenID: String? = nil, isPermanent: Bool? = nil,
        requiredUsage: KeyAttributes.Usage = [], refusedUsage: KeyAttributes.Usage = []
    ) {
        self.keyClass = keyClass
        self.keyType = keyType
        self.sizeInBits = sizeInBits
        self.effectiveSize = effectiveSize
        self.applicationLabel = applicationLabel
        self.applicationTag = applicationTag
        self.tokenID = tokenID
        self.isPermanent = isPermanent
        self.requiredUsage = requiredUsage
        self.refusedUsage = refusedUsage
    }

    /// Whether `key` has every attribute this query gives. An item without key attributes (a
    /// password) matches only the empty query.
    func matches(_ key: KeyAttributes?) -> Bool {
        guard let key else { return givesNothing }
        if let keyClass, key.keyClass != keyClass { return false }
        if let keyType, !keyType.hasSameUTF8(as: key.keyType) { return false }
        if let sizeInBits, key.sizeInBits != sizeInBits { return false }
        if let effectiveSize, key.effectiveSize != effectiveSize { return false }
        if let applicationLabel, key.applicationLabel != applicationLabel { return false }
        if let applicationTag, (key.applicationTag ?? Data()) != applicationTag { return false }
        if let tokenID, !tokenID.hasSameUTF8(as: key.tokenID ?? "") { return false }
        if let isPermanent, key.isPermanent != isPermanent { return false }
        return key.usage.isSuperset(of: requiredUsage) && key.usage.isDisjoint(with: refusedUsage)
    }

    /// Whether the query gives no attribute (as `KeyAttributeQuery()`): field by field, since
    /// the synthesised `==` against an empty query cost a lookup of a password 800 instructions
    /// (`AttributeQueryEmptinessTests`).
    var givesNothing: Bool {
        keyClass == nil && keyType == nil && sizeInBits == nil && effectiveSize == nil && applicationLabel == nil
            && applicationTag == nil && tokenID == nil && isPermanent == nil && requiredUsage.isEmpty && refusedUsage.isEmpty
    }

    /// The attributes this query gives, for "not found" messages (binary ones by size only).
    var summary: [String] {
        var parts: [String] = []
        if let keyClass { parts.append("key class \(keyClass.rawValue) (\(keyClass))") }
        if let keyType { parts.append("key type \"\(GroupIdentifier.printable(keyType))\"") }
        if let sizeInBits { parts.append("size \(sizeInBits) bits") }
        if let effectiveSize { parts.append("effective size \(effectiveSize) bits") }
        if let applicationLabel { parts.append("application label (\(applicationLabel.count) bytes)") }
        if let applicationTag { parts.append("application tag (\(applicationTag.count) bytes)") }
        if let tokenID { parts.append("token \"\(GroupIdentifier.printable(tokenID))\"") }
        if let isPermanent { parts.append(isPermanent ? "permanent" : "not permanent") }
        if !requiredUsage.isEmpty { parts.append("usage including \(requiredUsage.rawValue)") }
        if !refusedUsage.isEmpty { parts.append("usage excluding \(refusedUsage.rawValue)") }
        return parts
    }
}
