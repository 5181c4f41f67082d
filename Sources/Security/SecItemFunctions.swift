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
        let added = try keyring.add(request.itemToAdd())
        result?.pointee = request.resultShape.render(added)
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
        let items = try SecItemCall.search(keyring, request)
        result?.pointee = shape.render(items)
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
        let changes = try SecItemRequest(attributesToUpdate, role: .attributesToUpdate(request.itemClass), identity: keyring.identity).changes()
        try SecItemCall.eachClass(of: request) { itemClass throws(KeyringError) in
            try keyring.update(matching: request.query(for: itemClass), with: changes)
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
        try SecItemCall.eachClass(of: request) { itemClass throws(KeyringError) in
            try keyring.delete(matching: request.query(for: itemClass))
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
            ProcessKeyring.record(KeyringError(error.status, "\(operation): \(error.reason)"))
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

    /// The matches of a search (at least one), honouring `kSecUseAuthenticationUI`.
    /// - Throws: ``KeyringStatus/itemNotFound`` saying what was searched for, and where.
    static func search(_ keyring: Keyring, _ request: SecItemRequest) throws(KeyringError) -> [KeychainItem] {
        let shape = request.resultShape
        var searched: [String] = []
        for itemClass in request.queryClasses {
            let query = request.query(for: itemClass)
            let items: [KeychainItem]
            if shape.data && request.authenticationUI != .allow {
                items = try withoutPrompts(keyring, query, limit: shape.limit, skipping: request.authenticationUI == .skip)
            } else {
                items = try keyring.items(matching: query, limit: shape.limit, includingSecrets: shape.data)
            }
            if !items.isEmpty { return items }
            searched.append(try keyring.searchDescription(for: query))
        }
        throw KeyringError(.itemNotFound, "nothing matched: searched for \(searched.joined(separator: "; "))")
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
