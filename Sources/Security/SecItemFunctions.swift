#if !canImport(Darwin)
import Foundation
import Keyring

// Apple's four keychain functions over the process keyring. Each reads its dictionaries with
// SecItemRequest, calls the native Keyring API once per item class, and shapes the result with
// SecItemResultShape; a KeyringError becomes its OSStatus, its reason goes to
// ProcessKeyring.lastError. Nothing here matches, stores or decides access on its own.

/// Adds an item to the keychain.
///
/// ```swift
/// let status = SecItemAdd([
///     kSecClass as String: kSecClassGenericPassword,
///     kSecAttrService as String: "api",
///     kSecAttrAccount as String: "me",
///     kSecAttrAccessGroup as String: "ABCDE12345.com.example.shared",
///     kSecAttrAccessible as String: kSecAttrAccessibleAfterFirstUnlock,
///     kSecValueData as String: Data(token.utf8),
/// ] as CFDictionary, nil)
/// ```
///
/// Without `kSecAttrAccessGroup` the item goes to the process identity's default access group.
/// - Parameters:
///   - attributes: The item's class, attributes and `kSecValueData`; `kSecReturn...` keys ask
///     for the added item back.
///   - result: Receives the added item in the shape the return keys ask for; may be `nil`.
/// - Returns: `errSecSuccess`, or e.g. `errSecDuplicateItem`, `errSecMissingEntitlement`,
///   `errSecParam`, `errSecDataTooLarge`.
public func SecItemAdd(_ attributes: CFDictionary, _ result: UnsafeMutablePointer<CFTypeRef?>?) -> OSStatus {
    SecItemCall.run("SecItemAdd") { keyring throws(KeyringError) in
        let request = try SecItemRequest(attributes, role: .add, identity: keyring.identity)
        guard request.itemClass?.isPassword == false else {
            let added = try keyring.add(request.itemToAdd())
            result?.pointee = request.resultShape.render([SecItemMatch(item: added)])
            return
        }
        // A key, a certificate, or an identity's certificate and then its private key.
        var added: [KeychainItem] = []
        for item in try SecItemReferences.itemsToAdd(request) {
            do throws(KeyringError) {
                added.append(try keyring.add(item))
            } catch where error.status == .duplicateItem && item.itemClass == .key && !added.isEmpty {
                // An identity whose private key is stored already: its certificate completes it.
            } catch {
                // An identity is added whole or not at all: take back its certificate.
                for earlier in added {
                    guard let reference = earlier.persistentReference else { continue }
                    _ = try? keyring.delete(matching: ItemQuery(earlier.itemClass, accessGroup: earlier.accessGroup, synchronizable: .any, persistentReference: reference))
                }
                throw error
            }
        }
        guard let first = added.first else { return }
        let shape = request.resultShape
        guard !shape.isEmpty else { return }
        var match = SecItemMatch(item: first)
        if shape.reference {
            if let given = request.valueReference {
                match.object = given
            } else {
                match.object = try SecItemReferences.object(for: try SecItemCall.forKeyUse(keyring, first))
            }
        }
        result?.pointee = shape.render([match])
    }
}

/// Finds items matching a query.
///
/// ```swift
/// var result: CFTypeRef?
/// let status = SecItemCopyMatching([
///     kSecClass as String: kSecClassGenericPassword,
///     kSecAttrService as String: "api",
///     kSecReturnData as String: true,
/// ] as CFDictionary, &result)
/// let token = status == errSecSuccess ? result as? Data : nil
/// ```
///
/// Without `kSecAttrAccessGroup` every access group of the process is searched;
/// `kSecMatchLimit` defaults to `kSecMatchLimitOne`.
/// - Parameters:
///   - query: The class, the attributes that must match, the limit and the return keys.
///   - result: Receives the matches in the shape the return keys ask for (see
///     docs/SECITEM.md); `nil` when no return key is given. May be `nil`.
/// - Returns: `errSecSuccess`, `errSecItemNotFound` when nothing matches, or e.g.
///   `errSecInteractionNotAllowed` when the lock state forbids reading a match.
public func SecItemCopyMatching(_ query: CFDictionary, _ result: UnsafeMutablePointer<CFTypeRef?>?) -> OSStatus {
    SecItemCall.run("SecItemCopyMatching") { keyring throws(KeyringError) in
        let request = try SecItemRequest(query, role: .search, identity: keyring.identity)
        let shape = request.resultShape
        let matches = try SecItemCall.search(keyring, request)
        result?.pointee = shape.render(matches)
    }
}

/// Changes the attributes (and the secret) of every item matching a query.
///
/// ```swift
/// let status = SecItemUpdate(
///     [kSecClass as String: kSecClassGenericPassword, kSecAttrAccount as String: "me"] as CFDictionary,
///     [kSecValueData as String: Data(newToken.utf8)] as CFDictionary)
/// ```
///
/// - Returns: `errSecSuccess`; `errSecItemNotFound` when nothing matches; `errSecParam` when
///   the attributes contain `kSecClass` or a search key; `errSecDuplicateItem` when the change
///   would make two items share a primary key.
public func SecItemUpdate(_ query: CFDictionary, _ attributesToUpdate: CFDictionary) -> OSStatus {
    SecItemCall.run("SecItemUpdate") { keyring throws(KeyringError) in
        let request = try SecItemRequest(query, role: .updateQuery, identity: keyring.identity)
        guard !request.isIdentity else {
            throw KeyringError(.unimplemented, "updating an identity is not emulated; update its certificate (kSecClassCertificate) or its key (kSecClassKey)")
        }
        let changes = try SecItemRequest(attributesToUpdate, role: .attributesToUpdate(request.itemClass), identity: keyring.identity).changes()
        try SecItemCall.eachClass(of: request) { itemClass throws(KeyringError) in
            try keyring.update(matching: try SecItemCall.query(request, for: itemClass), with: changes)
        }
    }
}

/// Deletes every item matching a query.
///
/// ```swift
/// SecItemDelete([kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: "api"] as CFDictionary)
/// ```
///
/// - Returns: `errSecSuccess`; `errSecItemNotFound` when nothing matches; `errSecParam` for
///   `kSecMatchLimitOne` (delete always removes every match).
public func SecItemDelete(_ query: CFDictionary) -> OSStatus {
    SecItemCall.run("SecItemDelete") { keyring throws(KeyringError) in
        let request = try SecItemRequest(query, role: .delete, identity: keyring.identity)
        if request.isIdentity {
            // Apple: deleting an identity deletes its certificate and its private key.
            let pairs = try keyring.identities(matching: try SecItemCall.query(request, for: .certificate), keys: request.identityKeyQuery, includingSecrets: false)
            guard !pairs.isEmpty else { throw KeyringError(.itemNotFound, "no identity (a certificate with its private key) matches the query") }
            for pair in pairs {
                for item in [pair.certificate, pair.privateKey] {
                    guard let reference = item.persistentReference else { continue }
                    _ = try? keyring.delete(matching: ItemQuery(item.itemClass, accessGroup: item.accessGroup, synchronizable: .any, persistentReference: reference))
                }
            }
            return
        }
        try SecItemCall.eachClass(of: request) { itemClass throws(KeyringError) in
            try keyring.delete(matching: try SecItemCall.query(request, for: itemClass))
        }
    }
}

/// The plumbing shared by the four functions.
enum SecItemCall {
    /// Runs one call as the process keyring and turns its outcome into an `OSStatus`.
    static func run(_ operation: String, _ body: (Keyring) throws(KeyringError) -> Void) -> OSStatus {
        do throws(KeyringError) {
            // An armed failure (KeyringTestSupport) wins, as a device's refusal comes before any work.
            if let failure = ProcessKeyring.takePendingFailure() { throw failure }
            try body(try ProcessKeyring.current())
            return errSecSuccess
        } catch {
            ProcessKeyring.record(KeyringError(error.status, "\(operation): \(error.reason)", underlyingError: error, remedy: error.remedy))
            return error.status.rawValue
        }
    }

    /// Runs `body` for the query's class, or, for a class-less persistent-reference query, for
    /// each class until one finds the item.
    static func eachClass(of request: SecItemRequest, _ body: (ItemClass) throws(KeyringError) -> Void) throws(KeyringError) {
        var notFound: KeyringError?
        for itemClass in request.queryClasses {
            do {
                try body(itemClass)
                return
            } catch where error.status == .itemNotFound {
                notFound = error
            }
        }
        throw notFound ?? KeyringError(.itemNotFound, "no item matches the query")
    }

    /// The request's native query for `itemClass`, narrowed to the item a `kSecValueRef` names.
    static func query(_ request: SecItemRequest, for itemClass: ItemClass) throws(KeyringError) -> ItemQuery {
        var query = request.query(for: itemClass)
        if let object = request.valueReference { try SecItemReferences.narrow(&query, to: object) }
        return query
    }

    /// A key or certificate `item` read again, with its bytes, for use as an object (a Secure
    /// Enclave key's in the clear) and without a prompt: the key's use asks, as on a device.
    static func forKeyUse(_ keyring: Keyring, _ item: KeychainItem) throws(KeyringError) -> KeychainItem {
        guard !item.itemClass.isPassword, let reference = item.persistentReference else { return item }
        let exact = ItemQuery(item.itemClass, accessGroup: item.accessGroup, synchronizable: .any, persistentReference: reference)
        guard let usable = try keyring.itemsForKeyUse(matching: exact, limit: .one).first else {
            throw KeyringError(.itemNotFound, "the \(item.itemClass.rawValue) item was deleted while it was being read")
        }
        return usable
    }

    /// The matches of a search (at least one), honouring `kSecUseAuthenticationUI`, with their
    /// objects when `kSecReturnRef` asks for them.
    /// - Throws: `KeyringStatus.itemNotFound` saying what was searched for, and where.
    static func search(_ keyring: Keyring, _ request: SecItemRequest) throws(KeyringError) -> [SecItemMatch] {
        let shape = request.resultShape
        if request.isIdentity { return try searchIdentities(keyring, request) }
        var searched: [String] = []
        for itemClass in request.queryClasses {
            let query = try query(request, for: itemClass)
            let items: [KeychainItem]
            if shape.data && request.authenticationUI != .allow {
                items = try withoutPrompts(keyring, query, limit: shape.limit, skipping: request.authenticationUI == .skip)
            } else {
                items = try keyring.items(matching: query, limit: shape.limit, includingSecrets: shape.data)
            }
            if !items.isEmpty {
                guard shape.reference, !itemClass.isPassword else { return items.map { SecItemMatch(item: $0) } }
                var matches: [SecItemMatch] = []
                for item in items {
                    matches.append(SecItemMatch(item: item, object: try SecItemReferences.object(for: try forKeyUse(keyring, item))))
                }
                return matches
            }
            searched.append(try keyring.searchDescription(for: query))
        }
        throw KeyringError(.itemNotFound, "nothing matched: searched for \(searched.joined(separator: "; "))")
    }

    /// `kSecClassIdentity`: each stored certificate whose public key hash is a stored private
    /// key's application label, as the certificate item with its key beside it.
    private static func searchIdentities(_ keyring: Keyring, _ request: SecItemRequest) throws(KeyringError) -> [SecItemMatch] {
        let shape = request.resultShape
        let certificates = try query(request, for: .certificate)
        let pairs = try keyring.identities(matching: certificates, keys: request.identityKeyQuery, limit: shape.limit, includingSecrets: shape.data)
        guard !pairs.isEmpty else {
            throw KeyringError(.itemNotFound, "nothing matched: searched for an identity: \(try keyring.searchDescription(for: certificates)) with its private key")
        }
        guard shape.reference else { return pairs.map { SecItemMatch(item: $0.certificate, privateKey: $0.privateKey) } }
        let usable = try keyring.identitiesForKeyUse(matching: certificates, keys: request.identityKeyQuery, limit: shape.limit)
        var matches: [SecItemMatch] = []
        for pair in pairs {
            guard let forUse = usable.first(where: { $0.certificate.persistentReference == pair.certificate.persistentReference }) else { continue }
            matches.append(SecItemMatch(item: pair.certificate, privateKey: pair.privateKey, object: try SecItemReferences.identity(for: forUse)))
        }
        return matches
    }

    /// A search that must not prompt: reads attributes first (which never prompts), then
    /// either fails (`kSecUseAuthenticationUIFail`) or leaves out (`...Skip`) the items that
    /// would need the person, and reads the secrets of the rest by persistent reference.
    private static func withoutPrompts(_ keyring: Keyring, _ query: ItemQuery, limit: MatchLimit, skipping: Bool) throws(KeyringError) -> [KeychainItem] {
        let candidates = try keyring.items(matching: query, limit: skipping ? .all : limit, includingSecrets: false)
        let needPrompt = candidates.filter { $0.accessControl.requiresUserPresence }
        if !needPrompt.isEmpty && !skipping {
            throw KeyringError(.interactionNotAllowed, "a matching item needs user presence and kSecUseAuthenticationUI is kSecUseAuthenticationUIFail")
        }
        if needPrompt.isEmpty && !skipping {
            return try keyring.items(matching: query, limit: limit, includingSecrets: true)
        }
        var allowed = candidates.filter { !$0.accessControl.requiresUserPresence }
        switch limit {
        case .one: allowed = Array(allowed.prefix(1))
        case .count(let count): allowed = Array(allowed.prefix(count))
        case .all: break
        }
        var items: [KeychainItem] = []
        for candidate in allowed {
            guard let reference = candidate.persistentReference else { continue }
            var exact = ItemQuery(candidate.itemClass, synchronizable: .any, persistentReference: reference)
            exact.accessGroup = candidate.accessGroup
            items += try keyring.items(matching: exact, limit: .one, includingSecrets: true)
        }
        return items
    }
}
#endif
