import Foundation
import Security

/// A keychain wrapper in the style of popular open-source ones, written for Apple platforms
/// and compiled here unchanged: keys are stored as `Data` accounts, the service defaults to
/// the bundle identifier, items can be protected by an access control that is also passed in
/// queries, and reads ask for data, attributes, reference and persistent reference at once.
public struct DataKeyedKeychain {
    /// One stored value with what the keychain says about it.
    public struct Entry {
        /// The secret.
        public let value: Data
        /// The account as the keychain returned it (the key's UTF-8 bytes, as `Data`).
        public let account: Data
        /// The item's persistent reference.
        public let persistentReference: Data
        /// When the item was last changed.
        public let modified: Date?
    }

    /// The `kSecAttrService` of every item.
    public let service: String
    /// The item's access control, also put in every query, as some wrappers do.
    public let accessControl: SecAccessControl?

    /// A keychain for `service`, by default the bundle identifier.
    public init(service: String? = nil, accessControl: SecAccessControl? = nil) {
        self.service = service ?? Bundle.main.bundleIdentifier ?? "unknown-bundle"
        self.accessControl = accessControl
    }

    /// An access control requiring user presence, created the way Apple code does.
    public static func userPresence() throws -> SecAccessControl {
        var error: Unmanaged<CFError>?
        guard let access = SecAccessControlCreateWithFlags(
            kCFAllocatorDefault, kSecAttrAccessibleWhenUnlockedThisDeviceOnly, .userPresence, &error)
        else {
            let failure = error!.takeRetainedValue()
            throw NSError(domain: CFErrorGetDomain(failure) as String, code: CFErrorGetCode(failure),
                          userInfo: CFErrorCopyUserInfo(failure) as? [String: Any])
        }
        return access
    }

    private func query(_ key: String) -> [String: AnyHashable] {
        var query: [String: AnyHashable] = [
            kSecClass as String: kSecClassGenericPassword as String,
            kSecAttrService as String: service,
            kSecAttrAccount as String: Data(key.utf8),
        ]
        if let accessControl { query[kSecAttrAccessControl as String] = accessControl }
        return query
    }

    /// Stores `value` under `key`: adds it, or updates it when it exists.
    public func set(_ value: Data, forKey key: String) throws(KeychainStatus) {
        var add = query(key)
        add[kSecValueData as String] = value
        let status = SecItemAdd(add as CFDictionary, nil)
        if status == errSecDuplicateItem {
            try KeychainStatus.check(SecItemUpdate(query(key) as CFDictionary, [kSecValueData as String: value] as CFDictionary))
        } else {
            try KeychainStatus.check(status)
        }
    }

    /// The entry under `key`, or `nil` when there is none.
    public func entry(forKey key: String) throws(KeychainStatus) -> Entry? {
        var search = query(key)
        search[kSecMatchLimit as String] = kSecMatchLimitOne as String
        search[kSecReturnData as String] = true
        search[kSecReturnAttributes as String] = true
        search[kSecReturnRef as String] = true
        search[kSecReturnPersistentRef as String] = true
        var result: CFTypeRef?
        let status = SecItemCopyMatching(search as CFDictionary, &result)
        if status == errSecItemNotFound { return nil }
        try KeychainStatus.check(status)
        guard let attributes = result as? [String: Any],
            let value = attributes[kSecValueData as String] as? Data,
            let account = attributes[kSecAttrAccount as String] as? Data,
            let reference = attributes[kSecValuePersistentRef as String] as? Data
        else { throw KeychainStatus(errSecDecode) }
        return Entry(value: value, account: account, persistentReference: reference,
                     modified: attributes[kSecAttrModificationDate as String] as? Date)
    }

    /// The value a persistent reference names, or `nil` when it names nothing any more.
    public func value(forPersistentReference reference: Data) throws(KeychainStatus) -> Data? {
        var result: CFTypeRef?
        let status = SecItemCopyMatching([
            kSecValuePersistentRef as String: reference,
            kSecReturnData as String: kCFBooleanTrue!,
        ] as CFDictionary, &result)
        if status == errSecItemNotFound { return nil }
        try KeychainStatus.check(status)
        return result as? Data
    }

    /// Removes the value under `key`; removing a missing key is not an error.
    public func removeValue(forKey key: String) throws(KeychainStatus) {
        let status = SecItemDelete(query(key) as CFDictionary)
        if status == errSecItemNotFound { return }
        try KeychainStatus.check(status)
    }

    /// Removes every item of this service.
    public func removeAll() throws(KeychainStatus) {
        let status = SecItemDelete([kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: service] as CFDictionary)
        if status == errSecItemNotFound { return }
        try KeychainStatus.check(status)
    }
}
