#if !canImport(Darwin)
import Foundation
import Keyring

/// One SecItem dictionary, read and type-checked once: the translation from Apple's
/// dictionaries to the native `ItemQuery`, `KeychainItem` and `ItemChanges`.
///
/// This type decides only what a dictionary *says*. Which items match, which groups are
/// entitled, the lock state and the size limits are decided by the native `Keyring` API, the
/// one source of truth for keychain semantics.
struct SecItemRequest {
    /// Which dictionary of which call is being read; each accepts different keys.
    enum Role: Equatable {
        /// `SecItemAdd`'s attributes.
        case add
        /// `SecItemCopyMatching`'s query.
        case search
        /// `SecItemUpdate`'s query.
        case updateQuery
        /// `SecItemUpdate`'s attributes to update, for items of the query's class (if it names one).
        case attributesToUpdate(ItemClass?)
        /// `SecItemDelete`'s query.
        case delete
    }

    /// `kSecUseAuthenticationUI`: what to do when an item would need a user-presence prompt.
    enum AuthenticationUI: Equatable {
        case allow, fail, skip
    }

    let role: Role
    /// Who is asking: only to explain a refused access group.
    private let identity: Identity
    /// The class: for `kSecClassIdentity`, `ItemClass.certificate` with ``isIdentity`` set
    /// (an identity is found through its certificate).
    private(set) var itemClass: ItemClass?
    /// Whether `kSecClass` is `kSecClassIdentity`.
    private(set) var isIdentity = false
    private(set) var service: String?
    private(set) var account: String?
    /// How `kSecAttrAccount` was given: Apple returns a `Data` account as `Data`.
    private(set) var accountEncoding: AttributeEncoding?
    private(set) var accessGroup: GroupIdentifier?
    private(set) var label: String?
    private(set) var generic: Data?
    private(set) var itemDescription: String?
    private(set) var comment: String?
    private(set) var synchronizable: ItemQuery.Synchronizable?
    private(set) var accessibility: Accessibility?
    private(set) var accessControl: SecAccessControl?
    private(set) var server: String?
    private(set) var `protocol`: String?
    private(set) var port: Int?
    private(set) var path: String?
    private(set) var authenticationType: String?
    private(set) var securityDomain: String?
    private(set) var persistentReference: Data?
    private(set) var secret: Data?
    private(set) var limit: MatchLimit?
    private(set) var caseInsensitive = false
    private(set) var returnData = false
    private(set) var returnAttributes = false
    private(set) var returnPersistentReference = false
    private(set) var returnReference = false
    private(set) var authenticationUI = AuthenticationUI.allow
    // Passwords' codes and flags.
    private(set) var creator: FourCharacterCode?
    private(set) var typeCode: FourCharacterCode?
    private(set) var isInvisible: Bool?
    private(set) var isNegative: Bool?
    /// Key and certificate attributes as a query (or, for an update, the tag and usages to set).
    private(set) var key = KeyAttributeQuery()
    private(set) var certificate = CertificateAttributeQuery()
    /// `kSecAttrApplicationTag` as given (an update may set it).
    private(set) var applicationTag: Data?
    /// `kSecValueRef`: a `SecKey`, `SecCertificate` or `SecIdentity` (SecItemReferences reads it).
    private(set) var valueReference: AnyObject?

    /// Reads `dictionary` for `role`.
    ///
    /// - Throws: `KeyringStatus.invalidParameter` for a non-string or unknown key, `NSNull`, a
    ///   value of the wrong type, a missing or unknown `kSecClass`, or a key the role refuses;
    ///   `KeyringStatus.unimplemented` for a known key or class that is not emulated;
    ///   `KeyringStatus.noSuchAttribute` for an attribute the item class does not have;
    ///   `KeyringStatus.missingEntitlement` for an access group that is not a valid identifier.
    init(_ dictionary: CFDictionary, role: Role, identity: Identity) throws(KeyringError) {
        self.role = role
        self.identity = identity
        var entries: [(key: SecItemKey, value: Any)] = []
        for (rawKey, value) in dictionary {
            guard let name = rawKey as? String else {
                throw Self.parameterError(role, "a key is a \(type(of: rawKey)), not a string")
            }
            guard let key = SecItemKey(name: name) else {
                throw Self.parameterError(role, "unknown key \"\(GroupIdentifier.printableForMessage(name))\"")
            }
            guard !(value is NSNull) else {
                throw Self.parameterError(role, "\(name) is NSNull; leave the key out instead")
            }
            entries.append((key, value))
        }
        // The class decides which attributes are valid, so it is read first.
        if case .attributesToUpdate(let queryClass) = role {
            guard !entries.contains(where: { $0.key == .itemClass }) else {
                throw Self.parameterError(role, "the attributes to update contain kSecClass; an item's class cannot change")
            }
            itemClass = queryClass
        } else if let classValue = entries.first(where: { $0.key == .itemClass })?.value {
            (itemClass, isIdentity) = try Self.itemClass(classValue, role: role)
        }
        // A fixed order, so a dictionary with several problems always gets the same status.
        for (key, value) in entries.sorted(by: { $0.key.name < $1.key.name }) where key != .itemClass {
            try read(key, value)
        }
        try validate(keys: Set(entries.map(\.key)))
    }

    // MARK: Native values

    /// The item `SecItemAdd` adds. Without `kSecAttrAccessGroup` the native add picks the
    /// identity's default access group.
    func itemToAdd() -> KeychainItem {
        var item = KeychainItem(
            itemClass ?? .genericPassword,
            service: service, account: account, accessGroup: accessGroup,
            secret: secret ?? Data(),
            label: label, itemDescription: itemDescription, comment: comment, generic: generic,
            isSynchronizable: synchronizable == .yes,
            accessibility: accessControl?.protection ?? accessibility ?? .whenUnlocked,
            accessControl: accessControl?.flags ?? [],
            server: server, protocol: `protocol`, port: port, path: path,
            authenticationType: authenticationType, securityDomain: securityDomain)
        // Only a Data account is recorded, so items written as text look as native adds do.
        if accountEncoding == .data { item.accountEncoding = .data }
        item.creator = creator
        item.type = typeCode
        // Recorded as given, `false` included: a device returns a flag that was set, even to
        // false, and leaves out one never given (wrappers' suites check both); for matching,
        // an absent flag is false.
        item.isInvisible = isInvisible
        item.isNegative = isNegative
        return item
    }

    /// The native query for items of `itemClass` (the dictionary's own class unless it names
    /// none, which only a persistent-reference query may do).
    func query(for itemClass: ItemClass) -> ItemQuery {
        var query = ItemQuery(
            itemClass,
            service: service, account: account, accessGroup: accessGroup,
            label: label, itemDescription: itemDescription, comment: comment, generic: generic,
            // Apple: a persistent reference names its item whatever its synchronizability, so
            // without kSecAttrSynchronizable such a query looks at both kinds.
            synchronizable: synchronizable ?? (persistentReference != nil ? .any : .no),
            // An access control in a query is accepted and selects nothing: on Apple platforms
            // a query carrying one finds items of any protection (wrappers that moved from it to
            // kSecAttrAccessible, a strict filter, lost their items), so only
            // kSecAttrAccessible filters here (docs/SECITEM.md).
            accessibility: accessibility,
            server: server, protocol: `protocol`, port: port, path: path,
            authenticationType: authenticationType, securityDomain: securityDomain,
            persistentReference: persistentReference,
            caseInsensitive: caseInsensitive)
        query.creator = creator
        query.type = typeCode
        query.isInvisible = isInvisible
        query.isNegative = isNegative
        if itemClass == .key { query.key = key }
        if itemClass == .certificate { query.certificate = certificate }
        return query
    }

    /// The key attributes an identity query gives, as a query for its private key.
    var identityKeyQuery: ItemQuery {
        var query = ItemQuery(.key, accessGroup: accessGroup, synchronizable: .any)
        query.key = key
        return query
    }

    /// The classes a query applies to: its own, or, for a persistent reference without
    /// `kSecClass` (which Apple allows, the reference naming the item), every emulated class.
    var queryClasses: [ItemClass] {
        if let itemClass { return [itemClass] }
        return ItemClass.allCases
    }

    /// The native changes `SecItemUpdate` applies.
    func changes() -> ItemChanges {
        var changes = ItemChanges()
        if let service { changes.service = .some(service) }
        if let account {
            changes.account = .some(account)
            changes.accountEncoding = accountEncoding
        }
        changes.accessGroup = accessGroup
        if let label { changes.label = .some(label) }
        if let itemDescription { changes.itemDescription = .some(itemDescription) }
        if let comment { changes.comment = .some(comment) }
        if let generic { changes.generic = .some(generic) }
        if let synchronizable { changes.isSynchronizable = synchronizable == .yes }
        changes.accessibility = accessControl?.protection ?? accessibility
        changes.accessControl = accessControl?.flags
        if let server { changes.server = .some(server) }
        if let `protocol` { changes.protocol = .some(`protocol`) }
        if let port { changes.port = .some(port) }
        if let path { changes.path = .some(path) }
        if let authenticationType { changes.authenticationType = .some(authenticationType) }
        if let securityDomain { changes.securityDomain = .some(securityDomain) }
        changes.secret = secret
        if let creator { changes.creator = .some(creator) }
        if let typeCode { changes.type = .some(typeCode) }
        changes.isInvisible = isInvisible
        changes.isNegative = isNegative
        if let applicationTag { changes.applicationTag = .some(applicationTag) }
        changes.grantedKeyUsage = key.requiredUsage
        changes.revokedKeyUsage = key.refusedUsage
        return changes
    }

    /// What the caller asked to get back, and in what shape.
    var resultShape: SecItemResultShape {
        SecItemResultShape(
            data: returnData, attributes: returnAttributes, persistentReference: returnPersistentReference,
            reference: returnReference,
            limit: role == .add ? .one : limit ?? .one)
    }

    // MARK: Reading one key

    private mutating func read(_ key: SecItemKey, _ value: Any) throws(KeyringError) {
        try checkClass(allows: key)
        switch key {
        case .itemClass: break
        case .service: service = try string(key, value)
        case .account: (account, accountEncoding) = try textOrData(key, value)
        case .label: label = try string(key, value)
        case .itemDescription: itemDescription = try string(key, value)
        case .comment: comment = try string(key, value)
        case .server: server = try string(key, value)
        case .protocol: `protocol` = try string(key, value)
        case .path: path = try string(key, value)
        case .authenticationType: authenticationType = try string(key, value)
        case .securityDomain: securityDomain = try string(key, value)
        case .generic: generic = try data(key, value)
        case .port:
            // Only the type is checked here; the native limits decide the valid range.
            guard let number = integer(value) else { throw wrongType(key, "an integer") }
            port = number
        case .accessGroup: accessGroup = try group(value)
        case .synchronizable:
            if let string = value as? String, string == kSecAttrSynchronizableAny as String {
                guard role == .search || role == .updateQuery || role == .delete else {
                    throw parameterError("kSecAttrSynchronizableAny only selects items in a query; an item is synchronizable or not")
                }
                synchronizable = .any
            } else {
                synchronizable = try boolean(key, value) ? .yes : .no
            }
        case .accessible:
            guard let string = value as? String, let accessibility = Accessibility(rawValue: string) else {
                throw wrongType(key, "one of the kSecAttrAccessible constants")
            }
            self.accessibility = accessibility
        case .accessControl:
            guard let accessControl = value as? SecAccessControl else {
                throw wrongType(key, "a SecAccessControl from SecAccessControlCreateWithFlags")
            }
            self.accessControl = accessControl
        case .valueData:
            // Apple ignores kSecValueData in search, update and delete queries (a common pattern
            // deletes with the dictionary it is about to add), so only add and update read it.
            let secret = try data(key, value)
            if role == .add || isUpdateAttributes { self.secret = secret }
        case .valuePersistentRef, .persistentReferenceAttribute:
            let reference = try data(key, value)
            guard role != .add else {
                throw parameterError("\(key.name) addresses an existing item; SecItemAdd creates one")
            }
            persistentReference = reference
        case .creationDate, .modificationDate:
            guard value is Date else { throw wrongType(key, "a Date") }
            throw unimplemented("\(key.name) is set by the keyring and returned with kSecReturnAttributes; it cannot be given or matched")
        case .isInvisible: isInvisible = try boolean(key, value)
        case .isNegative: isNegative = try boolean(key, value)
        case .creator: creator = try code(key, value)
        case .type:
            // One string, two attributes: a key's algorithm, a password's four-character code.
            if itemClass == .key || isIdentity {
                if let number = integer(value) { self.key.keyType = String(number) } else { self.key.keyType = try string(key, value) }
            } else {
                typeCode = try code(key, value)
            }
        case .tokenID:
            let token = try string(key, value)
            guard token == KeyAttributes.secureEnclaveToken else {
                throw unimplemented("kSecAttrTokenID \"\(GroupIdentifier.printableForMessage(token))\" is not emulated; only kSecAttrTokenIDSecureEnclave is")
            }
            self.key.tokenID = token
        case .valueRef:
            // Which object it is (SecKey, SecCertificate, SecIdentity) is SecItemReferences' to check.
            valueReference = value as AnyObject
        case .keyClass:
            // The constant is a string; attributes read back give a number, which code passes on.
            let name = if let number = integer(value) { String(number) } else { try string(key, value) }
            guard let keyClass = KeyAttributes.KeyClass(rawValue: name) else {
                if name == kSecAttrKeyClassSymmetric as String { throw unimplemented("symmetric keys (kSecAttrKeyClassSymmetric) are not emulated") }
                throw wrongType(key, "kSecAttrKeyClassPublic or kSecAttrKeyClassPrivate")
            }
            self.key.keyClass = keyClass
        case .applicationLabel: self.key.applicationLabel = try data(key, value)
        case .applicationTag:
            // Apple stores the tag as bytes; a string is its UTF-8.
            let tag = if let text = value as? String { Data(text.utf8) } else { try data(key, value) }
            self.key.applicationTag = tag
            applicationTag = tag
        case .keySizeInBits: self.key.sizeInBits = try bitCount(key, value)
        case .effectiveKeySize: self.key.effectiveSize = try bitCount(key, value)
        case .isPermanent: self.key.isPermanent = try boolean(key, value)
        case .isSensitive, .isExtractable:
            // Accepted as a device does for software keys; nothing here depends on them.
            _ = try boolean(key, value)
        case .canEncrypt, .canDecrypt, .canDerive, .canSign, .canVerify, .canWrap, .canUnwrap:
            let usage = key.keyUsage!  // every kSecAttrCan... key has one
            if try boolean(key, value) { self.key.requiredUsage.insert(usage) } else { self.key.refusedUsage.insert(usage) }
        case .certificateType:
            guard let number = integer(value) else { throw wrongType(key, "an integer") }
            certificate.certificateType = number
        case .certificateEncoding:
            guard let number = integer(value) else { throw wrongType(key, "an integer") }
            certificate.certificateEncoding = number
        case .subject: certificate.subject = try data(key, value)
        case .issuer: certificate.issuer = try data(key, value)
        case .serialNumber: certificate.serialNumber = try data(key, value)
        case .subjectKeyID: certificate.subjectKeyID = try data(key, value)
        case .publicKeyHash: certificate.publicKeyHash = try data(key, value)
        case .matchLimit: limit = try matchLimit(value)
        case .matchCaseInsensitive: caseInsensitive = try boolean(key, value)
        case .returnData: returnData = try boolean(key, value)
        case .returnAttributes: returnAttributes = try boolean(key, value)
        case .returnPersistentRef: returnPersistentReference = try boolean(key, value)
        case .returnRef:
            // Accepted as Apple does; a password has no reference object, so it adds nothing
            // to the result but its shape (SecItemResultShape).
            returnReference = try boolean(key, value)
        case .useDataProtectionKeychain:
            // This keyring is always the iOS-style ("data protection") keychain.
            _ = try boolean(key, value)
        case .useOperationPrompt:
            // There is no prompt to show: UserPresence answers for the person.
            _ = try string(key, value)
        case .useAuthenticationUI:
            let name = value as? String
            if name == kSecUseAuthenticationUIAllow as String {
                authenticationUI = .allow
            } else if name == kSecUseAuthenticationUIFail as String {
                authenticationUI = .fail
            } else if name == kSecUseAuthenticationUISkip as String {
                authenticationUI = .skip
            } else {
                throw wrongType(key, "kSecUseAuthenticationUIAllow, ...Fail or ...Skip")
            }
        case .useNoAuthenticationUI:
            // The deprecated spelling of kSecUseAuthenticationUIFail (true) or ...Allow (false).
            authenticationUI = try boolean(key, value) ? .fail : .allow
        case .useAuthenticationContext:
            throw unimplemented("LocalAuthentication contexts are not emulated; set UserPresence.response instead")
        }
    }

    private var isUpdateAttributes: Bool {
        if case .attributesToUpdate = role { return true }
        return false
    }

    private func checkClass(allows key: SecItemKey) throws(KeyringError) {
        guard let itemClass else { return }
        let refused: Bool
        if isIdentity {
            // An identity is a certificate and a key: either's attributes select it.
            refused = key.isPasswordOnly
        } else {
            switch itemClass {
            case .genericPassword, .internetPassword:
                refused = (key.isInternetOnly && itemClass != .internetPassword) || (key.isGenericOnly && itemClass != .genericPassword)
                    || key.isKeyOnly || key.isCertificateOnly
            case .key:
                refused = key.isPasswordOnly || key.isCertificateOnly
            case .certificate:
                refused = key.isPasswordOnly || key.isKeyOnly
            }
        }
        if refused {
            throw KeyringError(.noSuchAttribute, "\(key.name) is not an attribute of \(isIdentity ? "idnt" : itemClass.rawValue) items")
        }
    }

    /// Checks what the role needs or refuses once every key has been read.
    private func validate(keys: Set<SecItemKey>) throws(KeyringError) {
        switch role {
        case .add, .search, .updateQuery, .delete:
            // Apple accepts a persistent reference without a class: the reference names the item.
            if itemClass == nil && (role == .add || persistentReference == nil) {
                throw parameterError("kSecClass is missing; add kSecClass: kSecClassGenericPassword")
            }
        case .attributesToUpdate:
            if let key = keys.first(where: \.isSearchControl) {
                throw parameterError("\(key.name) steers a search; it belongs in the query, not in the attributes to update")
            }
            // What the key or certificate itself determines cannot be changed by an update.
            if itemClass == .key || itemClass == .certificate,
               let key = keys.first(where: { Self.fixedByTheObject.contains($0) }) {
                throw parameterError("\(key.name) is read from the \(itemClass == .key ? "key" : "certificate") itself and cannot be updated; delete the item and add the new one")
            }
        }
        if keys.contains(.accessible) && keys.contains(.accessControl) {
            throw parameterError("kSecAttrAccessible and kSecAttrAccessControl are mutually exclusive; the access control carries the accessibility")
        }
        if role == .updateQuery, let key = [SecItemKey.returnData, .returnAttributes, .returnPersistentRef].first(where: keys.contains) {
            // Apple: "return ... not supported by update".
            throw parameterError("\(key.name) is not supported by SecItemUpdate, which returns nothing")
        }
        if role == .delete, let limit, limit != .all {
            // Apple: "match limit not supported by delete"; delete removes every match.
            throw parameterError("a kSecMatchLimit other than kSecMatchLimitAll is not supported by SecItemDelete, which removes every match")
        }
    }

    /// Attributes a key's or certificate's bytes determine (refused in an update).
    private static let fixedByTheObject: Set<SecItemKey> = [
        .keyClass, .type, .keySizeInBits, .effectiveKeySize, .applicationLabel, .tokenID, .valueData,
        .certificateType, .certificateEncoding, .subject, .issuer, .serialNumber, .subjectKeyID, .publicKeyHash,
    ]

    // MARK: Value types

    private static func itemClass(_ value: Any, role: Role) throws(KeyringError) -> (ItemClass, isIdentity: Bool) {
        guard let name = value as? String else {
            throw parameterError(role, "kSecClass is a \(type(of: value)), not one of the kSecClass constants")
        }
        if let itemClass = ItemClass(rawValue: name) { return (itemClass, false) }
        if name == kSecClassIdentity as String { return (.certificate, true) }
        throw parameterError(role, "unknown kSecClass \"\(GroupIdentifier.printableForMessage(name))\"")
    }

    /// A four-character code: a number in `UInt32`'s range, or a string (kept as given).
    private func code(_ key: SecItemKey, _ value: Any) throws(KeyringError) -> FourCharacterCode {
        if let text = value as? String { return .text(text) }
        guard let number = integer(value), let code = UInt32(exactly: number) else {
            throw wrongType(key, "a four-character code as a number (0...\(UInt32.max)) or a string")
        }
        return .number(code)
    }

    /// A key size: a positive number, or a string holding one (Apple accepts both).
    private func bitCount(_ key: SecItemKey, _ value: Any) throws(KeyringError) -> Int {
        let number = integer(value) ?? (value as? String).flatMap { Int($0) }
        guard let number, number > 0 else { throw wrongType(key, "a positive number of bits") }
        return number
    }

    private func string(_ key: SecItemKey, _ value: Any) throws(KeyringError) -> String {
        guard let string = value as? String else { throw wrongType(key, "a string") }
        return string
    }

    /// A string, or `Data` holding UTF-8 text (how some wrappers pass every account), with
    /// the encoding it came in so it goes back out the same way.
    private func textOrData(_ key: SecItemKey, _ value: Any) throws(KeyringError) -> (String, AttributeEncoding) {
        if let string = value as? String { return (string, .text) }
        guard let data = value as? Data else { throw wrongType(key, "a string or Data") }
        // The native item keeps the account as text: bytes that are not UTF-8 have no text form.
        guard let string = String(data: data, encoding: .utf8) else {
            throw parameterError("\(key.name) is \(data.count) bytes of Data that are not UTF-8 text; only UTF-8 Data accounts are emulated")
        }
        return (string, .data)
    }

    private func data(_ key: SecItemKey, _ value: Any) throws(KeyringError) -> Data {
        guard let data = value as? Data else { throw wrongType(key, "Data") }
        return data
    }

    private func boolean(_ key: SecItemKey, _ value: Any) throws(KeyringError) -> Bool {
        guard let boolean = value as? Bool else { throw wrongType(key, "a Boolean (true, false, kCFBooleanTrue or kCFBooleanFalse)") }
        return boolean
    }

    /// An integral number; `nil` for anything else. A Boolean or a fractional value does not
    /// cast to `Int`, so `true` and `2.5` are refused.
    private func integer(_ value: Any) -> Int? {
        value as? Int
    }

    private func matchLimit(_ value: Any) throws(KeyringError) -> MatchLimit {
        if let name = value as? String {
            if name == kSecMatchLimitOne as String { return .one }
            if name == kSecMatchLimitAll as String { return .all }
        } else if let count = integer(value), count > 0 {
            return count == 1 ? .one : .count(count)
        }
        throw wrongType(.matchLimit, "kSecMatchLimitOne, kSecMatchLimitAll or a positive number")
    }

    private func group(_ value: Any) throws(KeyringError) -> GroupIdentifier {
        guard let raw = value as? String else { throw wrongType(.accessGroup, "a string") }
        guard let group = GroupIdentifier(rawValue: raw) else {
            // A device answers any group outside the entitlements, well-formed or not, with
            // errSecMissingEntitlement; the reason explains the near-miss (e.g. no team prefix).
            throw identity.missingEntitlement(forRawGroup: raw, operation: "kSecAttrAccessGroup")
        }
        return group
    }

    // MARK: Errors

    private func wrongType(_ key: SecItemKey, _ expected: String) -> KeyringError {
        parameterError("\(key.name) must be \(expected)")
    }

    // Reasons carry no operation name: SecItemCall prefixes the function that failed.

    private func parameterError(_ reason: String) -> KeyringError {
        Self.parameterError(role, reason)
    }

    private static func parameterError(_ role: Role, _ reason: String) -> KeyringError {
        KeyringError(.invalidParameter, reason)
    }

    private func unimplemented(_ reason: String) -> KeyringError {
        KeyringError(.unimplemented, reason)
    }
}
#endif
