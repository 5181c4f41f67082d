#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Which items an operation applies to. Every attribute given must match; absent ones match
/// anything, with Apple's exceptions: synchronizable defaults to matching only
/// non-synchronizable items, and an absent access group searches every group the identity has.
public struct ItemQuery: Sendable, Hashable {
    /// How `kSecAttrSynchronizable` is matched.
    public enum Synchronizable: Sendable, Hashable {
        /// Only items that are not synchronizable (the default, as when the key is absent).
        case no
        /// Only synchronizable items.
        case yes
        /// Both (`kSecAttrSynchronizableAny`).
        case any
    }

    /// `kSecClass`.
    public var itemClass: ItemClass
    /// `kSecAttrService`.
    public var service: String?
    /// `kSecAttrAccount`.
    public var account: String?
    /// `kSecAttrAccessGroup`: restricts the search to one group (which must be entitled).
    public var accessGroup: GroupIdentifier?
    /// `kSecAttrLabel`.
    public var label: String?
    /// `kSecAttrDescription`.
    public var itemDescription: String?
    /// `kSecAttrComment`.
    public var comment: String?
    /// `kSecAttrGeneric`.
    public var generic: Data?
    /// `kSecAttrSynchronizable`.
    public var synchronizable: Synchronizable
    /// `kSecAttrAccessible`: only items of this class. Not part of an item's identity.
    public var accessibility: Accessibility?
    /// `kSecAttrServer`.
    public var server: String?
    /// `kSecAttrProtocol`.
    public var `protocol`: String?
    /// `kSecAttrPort`.
    public var port: Int?
    /// `kSecAttrPath`.
    public var path: String?
    /// `kSecAttrAuthenticationType`.
    public var authenticationType: String?
    /// `kSecAttrSecurityDomain`.
    public var securityDomain: String?
    /// `kSecValuePersistentRef`: exactly the item with this reference.
    public var persistentReference: Data?
    /// `kSecMatchCaseInsensitive`: string attributes compare without regard to case.
    public var caseInsensitive: Bool
    /// `kSecAttrCreator` (passwords; an item without one has creator 0).
    public var creator: FourCharacterCode?
    /// `kSecAttrType` (passwords; an item without one has type 0).
    public var type: FourCharacterCode?
    /// `kSecAttrIsInvisible` (passwords; an item without it is not invisible).
    public var isInvisible: Bool?
    /// `kSecAttrIsNegative` (passwords; an item without it is not negative).
    public var isNegative: Bool?
    /// Key attributes that must match (``ItemClass/key`` queries).
    public var key = KeyAttributeQuery()
    /// Certificate attributes that must match (``ItemClass/certificate`` queries).
    public var certificate = CertificateAttributeQuery()

    /// A query; give only what must match.
    public init(
        _ itemClass: ItemClass = .genericPassword,
        service: String? = nil,
        account: String? = nil,
        accessGroup: GroupIdentifier? = nil,
        label: String? = nil,
        itemDescription: String? = nil,
        comment: String? = nil,
        generic: Data? = nil,
        synchronizable: Synchronizable = .no,
        accessibility: Accessibility? = nil,
        server: String? = nil,
        protocol: String? = nil,
        port: Int? = nil,
        path: String? = nil,
        authenticationType: String? = nil,
        securityDomain: String? = nil,
        persistentReference: Data? = nil,
        caseInsensitive: Bool = false
    ) {
        self.itemClass = itemClass
        self.service = service
        self.account = account
        self.accessGroup = accessGroup
        self.label = label
        self.itemDescription = itemDescription
        self.comment = comment
        self.generic = generic
        self.synchronizable = synchronizable
        self.accessibility = accessibility
        self.server = server
        self.protocol = `protocol`
        self.port = port
        self.path = path
        self.authenticationType = authenticationType
        self.securityDomain = securityDomain
        self.persistentReference = persistentReference
        self.caseInsensitive = caseInsensitive
    }
}

/// How many matches a query returns (`kSecMatchLimit`).
public enum MatchLimit: Sendable, Hashable {
    /// `kSecMatchLimitOne`: the first match (the default on Apple platforms).
    case one
    /// `kSecMatchLimitAll`: every match.
    case all
    /// At most this many.
    case count(Int)
}

/// The attributes an update changes. `nil` leaves an attribute as it is; the double optional
/// on clearable attributes distinguishes "leave" (`nil`) from "clear" (`.some(nil)`).
public struct ItemChanges: Sendable, Hashable {
    /// A new `kSecAttrService`; `.some(nil)` clears it.
    public var service: String??
    /// A new `kSecAttrAccount`; `.some(nil)` clears it.
    public var account: String??
    /// How the new account is returned (see ``KeychainItem/accountEncoding``); `nil` leaves it.
    public var accountEncoding: AttributeEncoding?
    /// Moving an item to another access group (which must be entitled).
    public var accessGroup: GroupIdentifier?
    /// A new `kSecAttrLabel`; `.some(nil)` clears it.
    public var label: String??
    /// A new `kSecAttrDescription`; `.some(nil)` clears it.
    public var itemDescription: String??
    /// A new `kSecAttrComment`; `.some(nil)` clears it.
    public var comment: String??
    /// New `kSecAttrGeneric` bytes; `.some(nil)` clears them.
    public var generic: Data??
    /// A new `kSecAttrSynchronizable` (part of the primary key).
    public var isSynchronizable: Bool?
    /// A new `kSecAttrAccessible` class.
    public var accessibility: Accessibility?
    /// New access-control flags.
    public var accessControl: AccessControlFlags?
    /// A new `kSecAttrServer`; `.some(nil)` clears it.
    public var server: String??
    /// A new `kSecAttrProtocol`; `.some(nil)` clears it.
    public var `protocol`: String??
    /// A new `kSecAttrPort`; `.some(nil)` clears it.
    public var port: Int??
    /// A new `kSecAttrPath`; `.some(nil)` clears it.
    public var path: String??
    /// A new `kSecAttrAuthenticationType`; `.some(nil)` clears it.
    public var authenticationType: String??
    /// A new `kSecAttrSecurityDomain`; `.some(nil)` clears it.
    public var securityDomain: String??
    /// A new secret.
    public var secret: Data?
    /// A new `kSecAttrCreator`; `.some(nil)` clears it.
    public var creator: FourCharacterCode??
    /// A new `kSecAttrType`; `.some(nil)` clears it.
    public var type: FourCharacterCode??
    /// A new `kSecAttrIsInvisible`.
    public var isInvisible: Bool?
    /// A new `kSecAttrIsNegative`.
    public var isNegative: Bool?
    /// A new `kSecAttrApplicationTag` of a key (part of its primary key); `.some(nil)` clears it.
    public var applicationTag: Data??
    /// Usages a key gains (`kSecAttrCanSign: true` and its neighbours).
    public var grantedKeyUsage: KeyAttributes.Usage = []
    /// Usages a key loses (`kSecAttrCanSign: false` and its neighbours).
    public var revokedKeyUsage: KeyAttributes.Usage = []

    /// No changes; set the properties to change.
    public init() {}
}
