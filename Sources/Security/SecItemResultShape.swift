#if !canImport(Darwin)
import Foundation
import Keyring

/// Native results in the shapes Apple code casts them to.
///
/// - no `kSecReturn...` key: nothing (the status alone says whether something matched);
/// - only `kSecReturnData`: `Data`; only `kSecReturnPersistentRef`: `Data` (the reference);
/// - only `kSecReturnRef`: the `SecKey`, `SecCertificate` or `SecIdentity`; nothing for a
///   password, as on Apple platforms, where a password has no reference object;
/// - `kSecReturnAttributes`, or more than one return key: `[String: Any]`, with the secret
///   under `v_Data`, the persistent reference under `v_PersistentRef` and the object under
///   `v_Ref` when those are asked for too (a password has no object, so no `v_Ref`);
/// - a limit other than `kSecMatchLimitOne`: an array of those.
///
/// Objects are Foundation's (`NSData`, `NSString`, `NSNumber`, `NSDate`) so that `as? Data`,
/// `as? [String: Any]` and `as? [[String: Any]]` all succeed, as they do on Apple platforms.
struct SecItemResultShape: Equatable {
    var data: Bool
    var attributes: Bool
    var persistentReference: Bool
    /// `kSecReturnRef`: the key, certificate or identity object (nothing for a password).
    var reference: Bool = false
    var limit: MatchLimit

    /// Whether the caller asked for nothing but the status.
    var isEmpty: Bool { !data && !attributes && !persistentReference && !reference }

    /// Whether the only return key is `kSecReturnRef`.
    private var isReferenceOnly: Bool { reference && !data && !attributes && !persistentReference }

    /// The result for `matches` (at least one), as a single value or an array by ``limit``.
    func render(_ matches: [SecItemMatch]) -> CFTypeRef? {
        guard !isEmpty else { return nil }
        // Only kSecReturnRef on passwords: empty, as Apple's is (a password has no object).
        if isReferenceOnly && matches.allSatisfy({ $0.object == nil }) { return nil }
        if limit == .one, let first = matches.first {
            return render(first)
        }
        return NSArray(array: matches.compactMap(render))
    }

    /// The result for one match.
    func render(_ match: SecItemMatch) -> CFTypeRef? {
        let item = match.item
        switch (data, attributes, persistentReference, reference) {
        case (false, false, false, false):
            return nil
        case (false, false, false, true):
            return match.object
        case (true, false, false, false):
            return NSData(data: item.secret)
        case (false, false, true, false):
            return item.persistentReference.map { NSData(data: $0) }
        default:
            let dictionary = attributes ? Self.attributes(of: item) : NSMutableDictionary()
            if attributes, let privateKey = match.privateKey {
                // An identity's attributes are its certificate's and its key's together.
                let keyAttributes = Self.attributes(of: privateKey)
                for case let name as String in keyAttributes.allKeys where dictionary[name] == nil { dictionary[name] = keyAttributes[name] }
            }
            if data { dictionary[kSecValueData as String] = NSData(data: item.secret) }
            if reference, let object = match.object { dictionary[kSecValueRef as String] = object }
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
        set(kSecAttrAccessGroup, string(item.accessGroup?.rawValue))
        set(kSecAttrSynchronizable, NSNumber(value: item.isSynchronizable))
        set(kSecAttrAccessible, NSString(string: item.accessibility.rawValue))
        if !item.accessControl.isEmpty {
            set(kSecAttrAccessControl, SecAccessControl(protection: item.accessibility, flags: item.accessControl))
        }
        set(kSecAttrLabel, string(item.label))
        set(kSecAttrCreationDate, item.creationDate.map { NSDate(timeIntervalSinceReferenceDate: $0.timeIntervalSinceReferenceDate) })
        set(kSecAttrModificationDate, item.modificationDate.map { NSDate(timeIntervalSinceReferenceDate: $0.timeIntervalSinceReferenceDate) })
        set(kSecAttrPersistentReference, item.persistentReference.map { NSData(data: $0) })
        switch item.itemClass {
        case .genericPassword, .internetPassword:
            setPasswordAttributes(of: item, in: dictionary)
        case .key:
            if let key = item.key { setKeyAttributes(key, in: dictionary) }
        case .certificate:
            if let certificate = item.certificate { setCertificateAttributes(certificate, in: dictionary) }
        }
        return dictionary
    }

    /// A password's own attributes. The primary-key ones are always present (empty when unset,
    /// as a device returns them); the others only when set.
    private static func setPasswordAttributes(of item: KeychainItem, in dictionary: NSMutableDictionary) {
        func set(_ key: CFString, _ value: AnyObject?) {
            if let value { dictionary[key as String] = value }
        }
        func string(_ value: String?) -> NSString? { value.map { NSString(string: $0) } }
        func code(_ value: FourCharacterCode?) -> AnyObject? {
            switch value {
            case .number(let number): NSNumber(value: number)
            case .text(let text): NSString(string: text)
            case nil: nil
            }
        }
        // Apple returns the account in the type it was given; text unless it came as Data.
        if item.accountEncoding == .data {
            set(kSecAttrAccount, NSData(data: Data((item.account ?? "").utf8)))
        } else {
            set(kSecAttrAccount, NSString(string: item.account ?? ""))
        }
        set(kSecAttrDescription, string(item.itemDescription))
        set(kSecAttrComment, string(item.comment))
        set(kSecAttrCreator, code(item.creator))
        set(kSecAttrType, code(item.type))
        set(kSecAttrIsInvisible, item.isInvisible.map { NSNumber(value: $0) })
        set(kSecAttrIsNegative, item.isNegative.map { NSNumber(value: $0) })
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
        case .key, .certificate:
            break
        }
    }

    /// A key's attributes as a device returns them: its class, type and sizes as numbers (the
    /// device's schema stores them as numbers; `kSecAttrKeyTypeEC` compares by its text),
    /// label and tag as `Data` (the tag empty when unset: it is part of the primary key), and
    /// every usage flag.
    private static func setKeyAttributes(_ key: KeyAttributes, in dictionary: NSMutableDictionary) {
        dictionary[kSecAttrKeyClass as String] = NSNumber(value: Int(key.keyClass.rawValue)!)  // "0" or "1"
        dictionary[kSecAttrKeyType as String] = Int(key.keyType).map { NSNumber(value: $0) } ?? NSString(string: key.keyType)
        dictionary[kSecAttrKeySizeInBits as String] = NSNumber(value: key.sizeInBits)
        dictionary[kSecAttrEffectiveKeySize as String] = NSNumber(value: key.effectiveSize)
        dictionary[kSecAttrApplicationLabel as String] = NSData(data: key.applicationLabel)
        dictionary[kSecAttrApplicationTag as String] = NSData(data: key.applicationTag ?? Data())
        dictionary[kSecAttrIsPermanent as String] = NSNumber(value: key.isPermanent)
        if let tokenID = key.tokenID { dictionary[kSecAttrTokenID as String] = NSString(string: tokenID) }
        for usage in SecItemKey.allCases {
            guard let flag = usage.keyUsage else { continue }
            dictionary[usage.name] = NSNumber(value: key.usage.contains(flag))
        }
    }

    /// A certificate's attributes, as read from its DER when it was added.
    private static func setCertificateAttributes(_ certificate: CertificateAttributes, in dictionary: NSMutableDictionary) {
        dictionary[kSecAttrCertificateType as String] = NSNumber(value: certificate.certificateType)
        dictionary[kSecAttrCertificateEncoding as String] = NSNumber(value: certificate.certificateEncoding)
        dictionary[kSecAttrSubject as String] = NSData(data: certificate.subject)
        dictionary[kSecAttrIssuer as String] = NSData(data: certificate.issuer)
        dictionary[kSecAttrSerialNumber as String] = NSData(data: certificate.serialNumber)
        if let subjectKeyID = certificate.subjectKeyID { dictionary[kSecAttrSubjectKeyID as String] = NSData(data: subjectKeyID) }
        dictionary[kSecAttrPublicKeyHash as String] = NSData(data: certificate.publicKeyHash)
    }
}

/// One result of a SecItem call: the item, the private key that completes it (identities), and
/// the object `kSecReturnRef` returns (`nil` for a password).
struct SecItemMatch {
    var item: KeychainItem
    var privateKey: KeychainItem? = nil
    var object: AnyObject? = nil
}
#endif
