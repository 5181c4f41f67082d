#if !canImport(Darwin)
import Foundation
import Keyring

/// Native results in the shapes Apple code casts them to.
///
/// - no `kSecReturn...` key: nothing (the status alone says whether something matched);
/// - only `kSecReturnData`: `Data`; only `kSecReturnPersistentRef`: `Data` (the reference);
/// - only `kSecReturnRef`: nothing, as on Apple platforms, where a password has no reference
///   object (only keys, certificates and identities do);
/// - `kSecReturnAttributes`, or more than one return key: `[String: Any]`, with the secret
///   under `v_Data` and the reference under `v_PersistentRef` when those are asked for too
///   (`kSecReturnRef` adds no `v_Ref`: there is no reference object);
/// - a limit other than `kSecMatchLimitOne`: an array of those.
///
/// Objects are Foundation's (`NSData`, `NSString`, `NSNumber`, `NSDate`) so that `as? Data`,
/// `as? [String: Any]` and `as? [[String: Any]]` all succeed, as they do on Apple platforms.
struct SecItemResultShape: Equatable {
    var data: Bool
    var attributes: Bool
    var persistentReference: Bool
    /// `kSecReturnRef`: shapes the result (it is a return key) but adds nothing to it.
    var reference: Bool = false
    var limit: MatchLimit

    /// Whether the caller asked for nothing but the status.
    var isEmpty: Bool { !data && !attributes && !persistentReference && !reference }

    /// Whether the only return key is `kSecReturnRef`: the result is then empty, as Apple's is
    /// for a password.
    private var isReferenceOnly: Bool { reference && !data && !attributes && !persistentReference }

    /// The result for `items` (at least one), as a single value or an array by ``limit``.
    func render(_ items: [KeychainItem]) -> CFTypeRef? {
        guard !isEmpty, !isReferenceOnly else { return nil }
        if limit == .one, let first = items.first {
            return render(first)
        }
        return NSArray(array: items.compactMap(render))
    }

    /// The result for one item.
    func render(_ item: KeychainItem) -> CFTypeRef? {
        switch (data, attributes, persistentReference, reference) {
        case (false, false, false, _):
            return nil
        case (true, false, false, false):
            return NSData(data: item.secret)
        case (false, false, true, false):
            return item.persistentReference.map { NSData(data: $0) }
        default:
            let dictionary = attributes ? Self.attributes(of: item) : NSMutableDictionary()
            if data { dictionary[kSecValueData as String] = NSData(data: item.secret) }
            if persistentReference, let reference = item.persistentReference {
                dictionary[kSecValuePersistentRef as String] = NSData(data: reference)
            }
            return dictionary
        }
    }

    /// An item's attributes under Apple's keys. The primary-key attributes of its class are
    /// always present (empty when unset, as a device returns them); others only when set.
    static func attributes(of item: KeychainItem) -> NSMutableDictionary {
        let dictionary = NSMutableDictionary()
        func set(_ key: CFString, _ value: AnyObject?) {
            if let value { dictionary[key as String] = value }
        }
        func string(_ value: String?) -> NSString? { value.map { NSString(string: $0) } }
        set(kSecClass, NSString(string: item.itemClass.rawValue))
        // Apple returns the account in the type it was given; text unless it came as Data.
        if item.accountEncoding == .data {
            set(kSecAttrAccount, NSData(data: Data((item.account ?? "").utf8)))
        } else {
            set(kSecAttrAccount, NSString(string: item.account ?? ""))
        }
        set(kSecAttrAccessGroup, string(item.accessGroup?.rawValue))
        set(kSecAttrSynchronizable, NSNumber(value: item.isSynchronizable))
        set(kSecAttrAccessible, NSString(string: item.accessibility.rawValue))
        if !item.accessControl.isEmpty {
            set(kSecAttrAccessControl, SecAccessControl(protection: item.accessibility, flags: item.accessControl))
        }
        set(kSecAttrLabel, string(item.label))
        set(kSecAttrDescription, string(item.itemDescription))
        set(kSecAttrComment, string(item.comment))
        set(kSecAttrCreationDate, item.creationDate.map { NSDate(timeIntervalSinceReferenceDate: $0.timeIntervalSinceReferenceDate) })
        set(kSecAttrModificationDate, item.modificationDate.map { NSDate(timeIntervalSinceReferenceDate: $0.timeIntervalSinceReferenceDate) })
        set(kSecAttrPersistentReference, item.persistentReference.map { NSData(data: $0) })
        switch item.itemClass {
        case .genericPassword:
            set(kSecAttrService, NSString(string: item.service ?? ""))
            set(kSecAttrGeneric, item.generic.map { NSData(data: $0) })
        case .internetPassword:
            set(kSecAttrServer, NSString(string: item.server ?? ""))
            set(kSecAttrProtocol, string(item.protocol))
            set(kSecAttrPort, NSNumber(value: item.port ?? 0))
            set(kSecAttrPath, NSString(string: item.path ?? ""))
            set(kSecAttrAuthenticationType, string(item.authenticationType))
            set(kSecAttrSecurityDomain, NSString(string: item.securityDomain ?? ""))
        }
        return dictionary
    }
}
#endif
