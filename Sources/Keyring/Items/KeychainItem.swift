#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The class of a keychain item (`kSecClass`). Raw values are Apple's exact strings.
public enum ItemClass: String, Sendable, Hashable, Codable, CaseIterable {
    /// `kSecClassGenericPassword` (`genp`): primary key is access group, service, account, synchronizable.
    case genericPassword = "genp"
    /// `kSecClassInternetPassword` (`inet`): primary key adds server, protocol, port, path,
    /// authentication type and security domain.
    case internetPassword = "inet"
    /// `kSecClassKey` (`keys`): primary key is access group, key class, application label,
    /// application tag, key type, size, effective size, synchronizable (``KeyAttributes``).
    case key = "keys"
    /// `kSecClassCertificate` (`cert`): primary key is access group, certificate type, issuer,
    /// serial number, synchronizable (``CertificateAttributes``).
    case certificate = "cert"

    /// Whether items of this class are passwords (generic or internet).
    public var isPassword: Bool { self == .genericPassword || self == .internetPassword }
}

/// A keychain item: its attributes and its secret.
///
/// For a password the secret is the password (`kSecValueData`); for a key, the key's bytes
/// (``KeyAttributes``); for a certificate, its DER (``CertificateAttributes``).
///
/// The secret is never printed: `description`, `debugDescription` and `dump` show its size only.
///
/// Stored items are this type's synthesized `Codable` form: a field added later must be optional
/// (or decode with a default), or every existing items file would read as ``KeyringStatus/decode``.
public struct KeychainItem: Sendable, Hashable, Codable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// The largest secret accepted, in bytes (``KeyringStatus/dataTooLarge`` above it).
    public static let maximumSecretSize = 128 * 1024
    /// The largest value accepted for any string or data attribute, in bytes.
    public static let maximumAttributeSize = 4 * 1024

    /// `kSecClass`.
    public var itemClass: ItemClass
    /// `kSecAttrService` (generic passwords). Absent and empty are the same in the primary key.
    public var service: String?
    /// `kSecAttrAccount`. Absent and empty are the same in the primary key.
    public var account: String?
    /// Whether ``account`` was given as `Data` through the SecItem API and is returned as
    /// such; `nil` (every native add) means text. Optional so items stored before it decode.
    public var accountEncoding: AttributeEncoding?
    /// `kSecAttrAccessGroup`. `nil` when adding means the identity's default access group;
    /// every stored item has one.
    public var accessGroup: GroupIdentifier?
    /// `kSecAttrLabel`.
    public var label: String?
    /// `kSecAttrDescription`.
    public var itemDescription: String?
    /// `kSecAttrComment`.
    public var comment: String?
    /// `kSecAttrGeneric`: application-defined bytes (not secret).
    public var generic: Data?
    /// `kSecAttrSynchronizable`: part of the primary key.
    public var isSynchronizable: Bool
    /// `kSecAttrAccessible`: when the item can be read. Not part of the primary key.
    public var accessibility: Accessibility
    /// `kSecAttrAccessControl` flags beyond accessibility.
    public var accessControl: AccessControlFlags
    /// `kSecAttrServer` (internet passwords).
    public var server: String?
    /// `kSecAttrProtocol` (internet passwords), Apple's four-character code such as `htps`.
    public var `protocol`: String?
    /// `kSecAttrPort` (internet passwords).
    public var port: Int?
    /// `kSecAttrPath` (internet passwords).
    public var path: String?
    /// `kSecAttrAuthenticationType` (internet passwords).
    public var authenticationType: String?
    /// `kSecAttrSecurityDomain` (internet passwords).
    public var securityDomain: String?
    /// `kSecAttrCreationDate`: set when the item is added, never changed.
    public var creationDate: Date?
    /// `kSecAttrModificationDate`: set when the item is added or updated.
    public var modificationDate: Date?
    /// `kSecAttrPersistentReference`: an opaque, stable reference assigned when added.
    public var persistentReference: Data?
    /// `kSecAttrCreator` (passwords): a four-character code as a number. Not part of the primary key.
    public var creator: FourCharacterCode?
    /// `kSecAttrType` (passwords): a four-character code as a number. Not part of the primary key.
    public var type: FourCharacterCode?
    /// `kSecAttrIsInvisible` (passwords); `nil` is `false`. Not part of the primary key.
    public var isInvisible: Bool?
    /// `kSecAttrIsNegative` (passwords); `nil` is `false`. Not part of the primary key.
    public var isNegative: Bool?
    /// The key attributes of a ``ItemClass/key`` item; `nil` for every other class.
    public var key: KeyAttributes?
    /// The certificate attributes of a ``ItemClass/certificate`` item; `nil` for every other class.
    public var certificate: CertificateAttributes?
    /// `kSecValueData`: the secret (see the type's documentation for keys and certificates).
    public var secret: Data

    /// Creates an item; dates, the persistent reference and (if `nil`) the access group are
    /// filled in by ``Keyring/add(_:)``.
    public init(
        _ itemClass: ItemClass = .genericPassword,
        service: String? = nil,
        account: String? = nil,
        accessGroup: GroupIdentifier? = nil,
        secret: Data,
        label: String? = nil,
        itemDescription: String? = nil,
        comment: String? = nil,
        generic: Data? = nil,
        isSynchronizable: Bool = false,
        accessibility: Accessibility = .whenUnlocked,
        accessControl: AccessControlFlags = [],
        server: String? = nil,
        protocol: String? = nil,
        port: Int? = nil,
        path: String? = nil,
        authenticationType: String? = nil,
        securityDomain: String? = nil
    ) {
        self.itemClass = itemClass
        self.service = service
        self.account = account
        self.accessGroup = accessGroup
        self.secret = secret
        self.label = label
        self.itemDescription = itemDescription
        self.comment = comment
        self.generic = generic
        self.isSynchronizable = isSynchronizable
        self.accessibility = accessibility
        self.accessControl = accessControl
        self.server = server
        self.protocol = `protocol`
        self.port = port
        self.path = path
        self.authenticationType = authenticationType
        self.securityDomain = securityDomain
    }

    /// Class, key attributes and group; the secret only as its size.
    public var description: String {
        let attributes = [service.map { "service: \($0)" }, account.map { "account: \($0)" }, server.map { "server: \($0)" },
                          key.map { "key class: \($0.keyClass.rawValue), type: \($0.keyType), \($0.sizeInBits) bits" },
                          certificate.map { "serial number: \($0.serialNumber.count) bytes" }]
            .compactMap { $0 }.joined(separator: ", ")
        return "KeychainItem(\(itemClass.rawValue), \(attributes), group: \(accessGroup?.rawValue ?? "default"), secret: \(secret.count) bytes redacted)"
    }

    /// Same as ``description``: the secret stays hidden in debug output too.
    public var debugDescription: String { description }

    /// Mirrors the item without its secret, so `dump(item)` cannot print it either.
    public var customMirror: Mirror {
        Mirror(self, children: [
            "itemClass": itemClass, "service": service as Any, "account": account as Any,
            "accessGroup": accessGroup as Any, "accessibility": accessibility,
            "isSynchronizable": isSynchronizable, "secret": "\(secret.count) bytes redacted",
        ])
    }
}

extension KeychainItem {
    /// A key item: `keyData` is the key's external representation (X9.63 for EC, PKCS#1 for
    /// RSA). A Secure Enclave private key's bytes are sealed by ``Keyring/add(_:)`` before
    /// they are stored, and never returned in the clear (`SecureEnclaveSealing`).
    public init(
        key: KeyAttributes, keyData: Data, accessGroup: GroupIdentifier? = nil, label: String? = nil,
        accessibility: Accessibility = .whenUnlocked, accessControl: AccessControlFlags = []
    ) {
        self.init(.key, accessGroup: accessGroup, secret: keyData, label: label, accessibility: accessibility, accessControl: accessControl)
        self.key = key
    }

    /// A certificate item holding `der`.
    public init(
        certificate: CertificateAttributes, der: Data, accessGroup: GroupIdentifier? = nil, label: String? = nil,
        accessibility: Accessibility = .whenUnlocked
    ) {
        self.init(.certificate, accessGroup: accessGroup, secret: der, label: label, accessibility: accessibility)
        self.certificate = certificate
    }
}
