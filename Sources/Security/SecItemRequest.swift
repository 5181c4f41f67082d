#if !canImport(Darwin)
import Foundation
import Keyring

/// One SecItem dictionary, read and type-checked once: the translation from Apple's
/// dictionaries to the native ``ItemQuery``, ``KeychainItem`` and ``ItemChanges``.
///
/// This type decides only what a dictionary *says*. Which items match, which groups are
/// entitled, the lock state and the size limits are decided by the native ``Keyring`` API, the
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
    private(set) var itemClass: ItemClass?
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

    /// Reads `dictionary` for `role`.
    ///
    /// - Throws: ``KeyringStatus/invalidParameter`` for a non-string or unknown key, `NSNull`, a
    ///   value of the wrong type, a missing or unknown `kSecClass`, or a key the role refuses;
    ///   ``KeyringStatus/unimplemented`` for a known key or class that is not emulated;
    ///   ``KeyringStatus/noSuchAttribute`` for an attribute the item class does not have;
    ///   ``KeyringStatus/missingEntitlement`` for an access group that is not a valid identifier.
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
            itemClass = try Self.itemClass(classValue, role: role)
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
        return item
    }

    /// The native query for items of `itemClass` (the dictionary's own class unless it names
    /// none, which only a persistent-reference query may do).
    func query(for itemClass: ItemClass) -> ItemQuery {
        ItemQuery(
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
        case .isInvisible, .isNegative:
            // Every emulated item is visible and non-negative, so `false` is exactly right.
            guard try !boolean(key, value) else { throw unimplemented("\(key.name) = true is not emulated") }
        case .creator, .type:
            throw unimplemented("\(key.name) is not emulated")
        case .tokenID, .valueRef:
            throw unimplemented("\(key.name) applies to keys and certificates, which are not emulated")
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
        if (key.isInternetOnly && itemClass != .internetPassword) || (key.isGenericOnly && itemClass != .genericPassword) {
            throw KeyringError(.noSuchAttribute, "\(key.name) is not an attribute of \(itemClass.rawValue) items")
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

    // MARK: Value types

    private static func itemClass(_ value: Any, role: Role) throws(KeyringError) -> ItemClass {
        guard let name = value as? String else {
            throw parameterError(role, "kSecClass is a \(type(of: value)), not one of the kSecClass constants")
        }
        if let itemClass = ItemClass(rawValue: name) { return itemClass }
        if [kSecClassKey, kSecClassCertificate, kSecClassIdentity].contains(where: { $0 as String == name }) {
            throw KeyringError(.unimplemented, "kSecClass \(name) is not emulated; only generic and internet passwords are")
        }
        throw parameterError(role, "unknown kSecClass \"\(GroupIdentifier.printableForMessage(name))\"")
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
