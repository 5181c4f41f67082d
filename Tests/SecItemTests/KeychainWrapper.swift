// These tests exercise the Linux emulator; on Apple platforms SecItem is the real framework.
#if !canImport(Darwin)
import Foundation
import Keyring
import Security

/// A keychain wrapper of the shape popular open-source libraries have (set/get/delete/allKeys/
/// clear over the four SecItem functions, with access-group, synchronizable and accessibility
/// options, and `lastResultCode`). Written against Apple's API only: it compiles unchanged with
/// `import Security`, which is the point of this test.
final class KeychainWrapper {
    /// Prepended to every key, so several wrappers can share one service.
    var keyPrefix: String
    /// The keychain access group for every item; `nil` for the default group.
    var accessGroup: String?
    /// Whether items sync through iCloud.
    var synchronizable = false
    /// The status of the last operation.
    private(set) var lastResultCode: OSStatus = errSecSuccess

    init(keyPrefix: String = "") {
        self.keyPrefix = keyPrefix
    }

    @discardableResult
    func set(_ value: String, forKey key: String, withAccess access: CFString = kSecAttrAccessibleWhenUnlocked) -> Bool {
        set(Data(value.utf8), forKey: key, withAccess: access)
    }

    @discardableResult
    func set(_ value: Data, forKey key: String, withAccess access: CFString = kSecAttrAccessibleWhenUnlocked) -> Bool {
        // Delete first so that set() replaces, as these libraries do.
        _ = delete(key)
        var query: [String: Any] = [
            kSecClass as String: kSecClassGenericPassword,
            kSecAttrAccount as String: keyPrefix + key,
            kSecValueData as String: value,
            kSecAttrAccessible as String: access,
        ]
        query = addingOptions(to: query, forAdding: true)
        lastResultCode = SecItemAdd(query as CFDictionary, nil)
        return lastResultCode == errSecSuccess
    }

    @discardableResult
    func set(_ value: Bool, forKey key: String) -> Bool {
        set(Data([value ? 1 : 0]), forKey: key)
    }

    func get(_ key: String) -> String? {
        getData(key).flatMap { String(data: $0, encoding: .utf8) }
    }

    func getBool(_ key: String) -> Bool? {
        guard let data = getData(key), let first = data.first else { return nil }
        return first == 1
    }

    func getData(_ key: String) -> Data? {
        var query: [String: Any] = [
            kSecClass as String: kSecClassGenericPassword,
            kSecAttrAccount as String: keyPrefix + key,
            kSecReturnData as String: kCFBooleanTrue!,
            kSecMatchLimit as String: kSecMatchLimitOne,
        ]
        query = addingOptions(to: query, forAdding: false)
        var result: AnyObject?
        lastResultCode = withUnsafeMutablePointer(to: &result) {
            SecItemCopyMatching(query as CFDictionary, UnsafeMutablePointer($0))
        }
        return lastResultCode == errSecSuccess ? result as? Data : nil
    }

    @discardableResult
    func delete(_ key: String) -> Bool {
        var query: [String: Any] = [
            kSecClass as String: kSecClassGenericPassword,
            kSecAttrAccount as String: keyPrefix + key,
        ]
        query = addingOptions(to: query, forAdding: false)
        lastResultCode = SecItemDelete(query as CFDictionary)
        return lastResultCode == errSecSuccess
    }

    /// Every key (without the prefix) of the items this wrapper can see.
    var allKeys: [String] {
        var query: [String: Any] = [
            kSecClass as String: kSecClassGenericPassword,
            kSecReturnData as String: true,
            kSecReturnAttributes as String: true,
            kSecMatchLimit as String: kSecMatchLimitAll,
        ]
        query = addingOptions(to: query, forAdding: false)
        var result: AnyObject?
        lastResultCode = SecItemCopyMatching(query as CFDictionary, &result)
        guard lastResultCode == errSecSuccess, let items = result as? [[String: Any]] else { return [] }
        return items.compactMap { $0[kSecAttrAccount as String] as? String }
            .filter { $0.hasPrefix(keyPrefix) }
            .map { String($0.dropFirst(keyPrefix.count)) }
    }

    /// Deletes every item this wrapper can see.
    @discardableResult
    func clear() -> Bool {
        var query: [String: Any] = [kSecClass as String: kSecClassGenericPassword]
        query = addingOptions(to: query, forAdding: false)
        lastResultCode = SecItemDelete(query as CFDictionary)
        return lastResultCode == errSecSuccess || lastResultCode == errSecItemNotFound
    }

    private func addingOptions(to query: [String: Any], forAdding: Bool) -> [String: Any] {
        var result = query
        if let accessGroup { result[kSecAttrAccessGroup as String] = accessGroup }
        if synchronizable {
            result[kSecAttrSynchronizable as String] = forAdding ? kCFBooleanTrue! : kSecAttrSynchronizableAny
        }
        return result
    }
}
#endif
