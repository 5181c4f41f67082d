#if !canImport(Darwin)
import Foundation
import Keyring

/// Every dictionary key the SecItem functions understand, named once and looked up from the
/// public constants, so the translation cannot drift from the strings Apple code passes.
enum SecItemKey: CaseIterable, Sendable {
    case itemClass
    case service, account, accessGroup, label, generic, itemDescription, comment
    case creator, type, creationDate, modificationDate, isInvisible, isNegative
    case synchronizable, accessible, accessControl
    case server, `protocol`, port, path, authenticationType, securityDomain
    case tokenID, persistentReferenceAttribute
    case matchLimit, matchCaseInsensitive
    case returnData, returnAttributes, returnRef, returnPersistentRef
    case valueData, valueRef, valuePersistentRef
    case useDataProtectionKeychain, useAuthenticationContext, useAuthenticationUI, useOperationPrompt, useNoAuthenticationUI
    // Keys (`kSecAttrKeyType` is `kSecAttrType`'s string: one case, read by class).
    case keyClass, applicationLabel, applicationTag, keySizeInBits, effectiveKeySize, isPermanent, isSensitive, isExtractable
    case canEncrypt, canDecrypt, canDerive, canSign, canVerify, canWrap, canUnwrap
    // Certificates.
    case certificateType, certificateEncoding, subject, issuer, serialNumber, subjectKeyID, publicKeyHash

    /// The key's string, from the public constant.
    var name: String {
        switch self {
        case .itemClass: kSecClass as String
        case .service: kSecAttrService as String
        case .account: kSecAttrAccount as String
        case .accessGroup: kSecAttrAccessGroup as String
        case .label: kSecAttrLabel as String
        case .generic: kSecAttrGeneric as String
        case .itemDescription: kSecAttrDescription as String
        case .comment: kSecAttrComment as String
        case .creator: kSecAttrCreator as String
        case .type: kSecAttrType as String
        case .creationDate: kSecAttrCreationDate as String
        case .modificationDate: kSecAttrModificationDate as String
        case .isInvisible: kSecAttrIsInvisible as String
        case .isNegative: kSecAttrIsNegative as String
        case .synchronizable: kSecAttrSynchronizable as String
        case .accessible: kSecAttrAccessible as String
        case .accessControl: kSecAttrAccessControl as String
        case .server: kSecAttrServer as String
        case .protocol: kSecAttrProtocol as String
        case .port: kSecAttrPort as String
        case .path: kSecAttrPath as String
        case .authenticationType: kSecAttrAuthenticationType as String
        case .securityDomain: kSecAttrSecurityDomain as String
        case .tokenID: kSecAttrTokenID as String
        case .persistentReferenceAttribute: kSecAttrPersistentReference as String
        case .matchLimit: kSecMatchLimit as String
        case .matchCaseInsensitive: kSecMatchCaseInsensitive as String
        case .returnData: kSecReturnData as String
        case .returnAttributes: kSecReturnAttributes as String
        case .returnRef: kSecReturnRef as String
        case .returnPersistentRef: kSecReturnPersistentRef as String
        case .valueData: kSecValueData as String
        case .valueRef: kSecValueRef as String
        case .valuePersistentRef: kSecValuePersistentRef as String
        case .useDataProtectionKeychain: kSecUseDataProtectionKeychain as String
        case .useAuthenticationContext: kSecUseAuthenticationContext as String
        case .useAuthenticationUI: kSecUseAuthenticationUI as String
        case .useOperationPrompt: kSecUseOperationPrompt as String
        case .useNoAuthenticationUI: kSecUseNoAuthenticationUI as String
        case .keyClass: kSecAttrKeyClass as String
        case .applicationLabel: kSecAttrApplicationLabel as String
        case .applicationTag: kSecAttrApplicationTag as String
        case .keySizeInBits: kSecAttrKeySizeInBits as String
        case .effectiveKeySize: kSecAttrEffectiveKeySize as String
        case .isPermanent: kSecAttrIsPermanent as String
        case .isSensitive: kSecAttrIsSensitive as String
        case .isExtractable: kSecAttrIsExtractable as String
        case .canEncrypt: kSecAttrCanEncrypt as String
        case .canDecrypt: kSecAttrCanDecrypt as String
        case .canDerive: kSecAttrCanDerive as String
        case .canSign: kSecAttrCanSign as String
        case .canVerify: kSecAttrCanVerify as String
        case .canWrap: kSecAttrCanWrap as String
        case .canUnwrap: kSecAttrCanUnwrap as String
        case .certificateType: kSecAttrCertificateType as String
        case .certificateEncoding: kSecAttrCertificateEncoding as String
        case .subject: kSecAttrSubject as String
        case .issuer: kSecAttrIssuer as String
        case .serialNumber: kSecAttrSerialNumber as String
        case .subjectKeyID: kSecAttrSubjectKeyID as String
        case .publicKeyHash: kSecAttrPublicKeyHash as String
        }
    }

    private static let byName: [String: SecItemKey] = Dictionary(uniqueKeysWithValues: allCases.map { ($0.name, $0) })

    /// The key named `name`, or `nil` for a key this emulator does not know.
    init?(name: String) {
        guard let key = Self.byName[name] else { return nil }
        self = key
    }

    /// Attributes only internet passwords have (`errSecNoSuchAttr` on a generic password).
    var isInternetOnly: Bool {
        switch self {
        case .server, .protocol, .port, .path, .authenticationType, .securityDomain: true
        default: false
        }
    }

    /// Attributes only generic passwords have (`errSecNoSuchAttr` on an internet password).
    var isGenericOnly: Bool {
        switch self {
        case .service, .generic: true
        default: false
        }
    }

    /// Attributes only passwords have (`errSecNoSuchAttr` on a key or certificate).
    var isPasswordOnly: Bool {
        switch self {
        case .account, .itemDescription, .comment, .creator, .isInvisible, .isNegative: true
        default: isInternetOnly || isGenericOnly
        }
    }

    /// Attributes only keys have (`errSecNoSuchAttr` on a password or certificate; an identity
    /// query accepts them for its private key).
    var isKeyOnly: Bool {
        switch self {
        case .keyClass, .applicationLabel, .applicationTag, .keySizeInBits, .effectiveKeySize, .isPermanent, .isSensitive,
            .isExtractable, .canEncrypt, .canDecrypt, .canDerive, .canSign, .canVerify, .canWrap, .canUnwrap, .tokenID:
            true
        default: false
        }
    }

    /// Attributes only certificates have (an identity query accepts them for its certificate).
    var isCertificateOnly: Bool {
        switch self {
        case .certificateType, .certificateEncoding, .subject, .issuer, .serialNumber, .subjectKeyID, .publicKeyHash: true
        default: false
        }
    }

    /// The usage a `kSecAttrCan...` key stands for.
    var keyUsage: KeyAttributes.Usage? {
        switch self {
        case .canEncrypt: .encrypt
        case .canDecrypt: .decrypt
        case .canDerive: .derive
        case .canSign: .sign
        case .canVerify: .verify
        case .canWrap: .wrap
        case .canUnwrap: .unwrap
        default: nil
        }
    }

    /// Keys that steer a search rather than describe an item: refused in an update dictionary.
    var isSearchControl: Bool {
        switch self {
        case .matchLimit, .matchCaseInsensitive, .returnData, .returnAttributes, .returnRef, .returnPersistentRef,
            .valuePersistentRef, .valueRef, .persistentReferenceAttribute, .useAuthenticationUI, .useAuthenticationContext,
            .useOperationPrompt, .useDataProtectionKeychain, .useNoAuthenticationUI:
            true
        default: false
        }
    }
}
#endif
