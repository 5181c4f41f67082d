// These tests exercise the Linux emulator; on Apple platforms SecItem is the real framework.
#if !canImport(Darwin)
import Foundation
import Keyring
import Security
import XCTest

/// docs/SECITEM.md, "Constants and their string values" and "Status codes": every value
/// as the reference lists it, typed in here from the reference, not from the implementation.
final class SecItemReferenceConstantsTests: XCTestCase {
    func testEveryReferenceConstantHasAppleStringValue() {
        let table: [(String, CFString, String)] = [
            ("kSecClass", kSecClass, "class"), ("kSecClassGenericPassword", kSecClassGenericPassword, "genp"),
            ("kSecClassInternetPassword", kSecClassInternetPassword, "inet"), ("kSecClassKey", kSecClassKey, "keys"),
            ("kSecAttrService", kSecAttrService, "svce"), ("kSecAttrAccount", kSecAttrAccount, "acct"),
            ("kSecAttrAccessGroup", kSecAttrAccessGroup, "agrp"), ("kSecAttrLabel", kSecAttrLabel, "labl"),
            ("kSecAttrGeneric", kSecAttrGeneric, "gena"), ("kSecAttrDescription", kSecAttrDescription, "desc"),
            ("kSecAttrComment", kSecAttrComment, "icmt"), ("kSecAttrCreator", kSecAttrCreator, "crtr"),
            ("kSecAttrType", kSecAttrType, "type"), ("kSecAttrCreationDate", kSecAttrCreationDate, "cdat"),
            ("kSecAttrModificationDate", kSecAttrModificationDate, "mdat"), ("kSecAttrIsInvisible", kSecAttrIsInvisible, "invi"),
            ("kSecAttrSynchronizable", kSecAttrSynchronizable, "sync"), ("kSecAttrSynchronizableAny", kSecAttrSynchronizableAny, "syna"),
            ("kSecAttrAccessible", kSecAttrAccessible, "pdmn"), ("kSecAttrAccessControl", kSecAttrAccessControl, "accc"),
            ("kSecAttrAccessibleWhenUnlocked", kSecAttrAccessibleWhenUnlocked, "ak"),
            ("kSecAttrAccessibleWhenUnlockedThisDeviceOnly", kSecAttrAccessibleWhenUnlockedThisDeviceOnly, "aku"),
            ("kSecAttrAccessibleAfterFirstUnlock", kSecAttrAccessibleAfterFirstUnlock, "ck"),
            ("kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly", kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly, "cku"),
            ("kSecAttrAccessibleWhenPasscodeSetThisDeviceOnly", kSecAttrAccessibleWhenPasscodeSetThisDeviceOnly, "akpu"),
            ("kSecAttrAccessibleAlways", kSecAttrAccessibleAlways, "dk"),
            ("kSecAttrAccessibleAlwaysThisDeviceOnly", kSecAttrAccessibleAlwaysThisDeviceOnly, "dku"),
            ("kSecAttrServer", kSecAttrServer, "srvr"),
            ("kSecMatchLimit", kSecMatchLimit, "m_Limit"), ("kSecMatchLimitOne", kSecMatchLimitOne, "m_LimitOne"),
            ("kSecMatchLimitAll", kSecMatchLimitAll, "m_LimitAll"), ("kSecMatchCaseInsensitive", kSecMatchCaseInsensitive, "m_CaseInsensitive"),
            ("kSecReturnData", kSecReturnData, "r_Data"), ("kSecReturnAttributes", kSecReturnAttributes, "r_Attributes"),
            ("kSecReturnRef", kSecReturnRef, "r_Ref"), ("kSecReturnPersistentRef", kSecReturnPersistentRef, "r_PersistentRef"),
            ("kSecValueData", kSecValueData, "v_Data"), ("kSecValueRef", kSecValueRef, "v_Ref"),
            ("kSecValuePersistentRef", kSecValuePersistentRef, "v_PersistentRef"),
            ("kSecUseDataProtectionKeychain", kSecUseDataProtectionKeychain, "nleg"),
            ("kSecUseAuthenticationContext", kSecUseAuthenticationContext, "u_AuthCtx"),
            ("kSecUseAuthenticationUI", kSecUseAuthenticationUI, "u_AuthUI"),
            ("kSecUseOperationPrompt", kSecUseOperationPrompt, "u_OpPrompt"),
            ("kSecUseAuthenticationUIAllow", kSecUseAuthenticationUIAllow, "u_AuthUIA"),
            ("kSecUseAuthenticationUIFail", kSecUseAuthenticationUIFail, "u_AuthUIF"),
            ("kSecUseAuthenticationUISkip", kSecUseAuthenticationUISkip, "u_AuthUIS"),
            ("kSecClassCertificate", kSecClassCertificate, "cert"), ("kSecClassIdentity", kSecClassIdentity, "idnt"),
            ("kSecAttrProtocol", kSecAttrProtocol, "ptcl"), ("kSecAttrPort", kSecAttrPort, "port"),
            ("kSecAttrPath", kSecAttrPath, "path"), ("kSecAttrAuthenticationType", kSecAttrAuthenticationType, "atyp"),
            ("kSecAttrSecurityDomain", kSecAttrSecurityDomain, "sdmn"), ("kSecAttrIsNegative", kSecAttrIsNegative, "nega"),
            ("kSecAttrTokenID", kSecAttrTokenID, "tkid"), ("kSecAttrPersistentReference", kSecAttrPersistentReference, "persistref"),
        ]
        XCTAssertEqual(table.count, 56, "the reference table lists 56 constants")
        for (name, constant, expected) in table {
            XCTAssertEqual(constant as String, expected, name)
        }
    }

    /// Certificate attribute keys, checked against Apple's `SecItemConstants.c`.
    func testCertificateAttributeConstantsHaveAppleStringValues() {
        let table: [(CFString, String)] = [
            (kSecAttrCertificateType, "ctyp"), (kSecAttrCertificateEncoding, "cenc"), (kSecAttrSubject, "subj"),
            (kSecAttrIssuer, "issr"), (kSecAttrSerialNumber, "slnr"), (kSecAttrSubjectKeyID, "skid"),
            (kSecAttrPublicKeyHash, "pkhh"),
        ]
        for (constant, expected) in table {
            XCTAssertEqual(constant as String, expected)
        }
    }

    /// Values beyond the reference table, checked against Apple's `SecItemConstants.c`.
    func testInternetPasswordValueConstantsHaveAppleStringValues() {
        let table: [(CFString, String)] = [
            (kSecAttrProtocolHTTP, "http"), (kSecAttrProtocolHTTPS, "htps"), (kSecAttrProtocolFTP, "ftp "),
            (kSecAttrProtocolSSH, "ssh "), (kSecAttrProtocolSMB, "smb "), (kSecAttrProtocolIMAPS, "imps"),
            (kSecAttrAuthenticationTypeDefault, "dflt"), (kSecAttrAuthenticationTypeHTMLForm, "form"),
            (kSecAttrAuthenticationTypeHTTPBasic, "http"), (kSecAttrAuthenticationTypeHTTPDigest, "httd"),
        ]
        for (constant, expected) in table {
            XCTAssertEqual(constant as String, expected)
        }
    }

    func testAccessibilityConstantsAreTheNativeRawValues() {
        let pairs: [(CFString, Accessibility)] = [
            (kSecAttrAccessibleWhenUnlocked, .whenUnlocked), (kSecAttrAccessibleWhenUnlockedThisDeviceOnly, .whenUnlockedThisDeviceOnly),
            (kSecAttrAccessibleAfterFirstUnlock, .afterFirstUnlock), (kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly, .afterFirstUnlockThisDeviceOnly),
            (kSecAttrAccessibleWhenPasscodeSetThisDeviceOnly, .whenPasscodeSetThisDeviceOnly),
            (kSecAttrAccessibleAlways, .always), (kSecAttrAccessibleAlwaysThisDeviceOnly, .alwaysThisDeviceOnly),
        ]
        for (constant, accessibility) in pairs {
            XCTAssertEqual(Accessibility(rawValue: constant as String), accessibility)
        }
    }

    func testEveryReferenceStatusCodeHasItsValue() {
        let table: [(String, OSStatus, OSStatus)] = [
            ("errSecSuccess", errSecSuccess, 0), ("errSecUnimplemented", errSecUnimplemented, -4),
            ("errSecIO", errSecIO, -36), ("errSecParam", errSecParam, -50), ("errSecAllocate", errSecAllocate, -108),
            ("errSecUserCanceled", errSecUserCanceled, -128), ("errSecNotAvailable", errSecNotAvailable, -25291),
            ("errSecReadOnly", errSecReadOnly, -25292), ("errSecAuthFailed", errSecAuthFailed, -25293),
            ("errSecNoSuchKeychain", errSecNoSuchKeychain, -25294), ("errSecDuplicateItem", errSecDuplicateItem, -25299),
            ("errSecItemNotFound", errSecItemNotFound, -25300), ("errSecDataTooLarge", errSecDataTooLarge, -25302),
            ("errSecInteractionNotAllowed", errSecInteractionNotAllowed, -25308), ("errSecDecode", errSecDecode, -26275),
            ("errSecMissingEntitlement", errSecMissingEntitlement, -34018), ("errSecInvalidEncoding", errSecInvalidEncoding, -67853),
            ("errSecWrPerm", errSecWrPerm, -61), ("errSecInvalidKeychain", errSecInvalidKeychain, -25295),
            ("errSecNoSuchAttr", errSecNoSuchAttr, -25303),
        ]
        XCTAssertEqual(table.count, 20, "the reference lists 20 status codes")
        for (name, constant, expected) in table {
            XCTAssertEqual(constant, expected, name)
            XCTAssertEqual(KeyringStatus(rawValue: constant).name, name)
        }
    }

    /// The messages are Apple's, as its `SecCopyErrorMessageString` gives them (SecBase.h's
    /// comment after each constant).
    func testEveryReferenceStatusCodeHasAppleMessage() {
        let table: [(OSStatus, String)] = [
            (0, "No error."), (-4, "Function or operation not implemented."), (-36, "I/O error."),
            (-50, "One or more parameters passed to a function were not valid."), (-61, "Write permissions error."),
            (-108, "Failed to allocate memory."), (-128, "User canceled the operation."),
            (-25291, "No keychain is available. You may need to restart your computer."),
            (-25292, "This keychain cannot be modified."), (-25293, "The user name or passphrase you entered is not correct."),
            (-25294, "The specified keychain could not be found."), (-25295, "The specified keychain is not a valid keychain file."),
            (-25299, "The specified item already exists in the keychain."),
            (-25300, "The specified item could not be found in the keychain."),
            (-25302, "This item contains information which is too large or in a format that cannot be displayed."),
            (-25303, "The specified attribute does not exist."), (-25308, "User interaction is not allowed."),
            (-26275, "Unable to decode the provided data."), (-34018, "A required entitlement isn't present."),
            (-67853, "The encoding was not valid."),
        ]
        for (status, message) in table {
            XCTAssertEqual(SecCopyErrorMessageString(status, nil) as String?, message, "OSStatus \(status)")
        }
    }

    func testUnknownStatusStillHasAMessage() {
        XCTAssertEqual(SecCopyErrorMessageString(-99_999, nil) as String?, "OSStatus -99999")
    }
}
#endif
