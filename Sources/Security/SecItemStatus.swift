#if !canImport(Darwin)
import Foundation
import Keyring

// The Security framework's result codes as `OSStatus` constants. Each is defined from
// ``KeyringStatus``, the one table of codes, names and messages, so the SecItem surface and the
// native API can never disagree about a value.

/// No error. Value: `0`.
public let errSecSuccess: OSStatus = KeyringStatus.success.rawValue
/// Function or operation not implemented (here: a feature that is not emulated). Value: `-4`.
public let errSecUnimplemented: OSStatus = KeyringStatus.unimplemented.rawValue
/// I/O error. Value: `-36`.
public let errSecIO: OSStatus = KeyringStatus.ioError.rawValue
/// One or more parameters were not valid: a malformed query. Value: `-50`.
public let errSecParam: OSStatus = KeyringStatus.invalidParameter.rawValue
/// Write permission error. Value: `-61`.
public let errSecWrPerm: OSStatus = KeyringStatus.writePermission.rawValue
/// Failed to allocate memory. Value: `-108`.
public let errSecAllocate: OSStatus = KeyringStatus.allocationFailed.rawValue
/// The user canceled the user-presence prompt. Value: `-128`.
public let errSecUserCanceled: OSStatus = KeyringStatus.userCanceled.rawValue
/// No keychain is available: the store cannot be opened. Value: `-25291`.
public let errSecNotAvailable: OSStatus = KeyringStatus.notAvailable.rawValue
/// The keychain cannot be modified. Value: `-25292`.
public let errSecReadOnly: OSStatus = KeyringStatus.readOnly.rawValue
/// Authentication failed (or no biometry/passcode is available). Value: `-25293`.
public let errSecAuthFailed: OSStatus = KeyringStatus.authenticationFailed.rawValue
/// The keychain could not be found. Value: `-25294`.
public let errSecNoSuchKeychain: OSStatus = KeyringStatus.noSuchKeychain.rawValue
/// The keychain is not valid. Value: `-25295`.
public let errSecInvalidKeychain: OSStatus = KeyringStatus.invalidKeychain.rawValue
/// An item with the same primary key already exists. Value: `-25299`.
public let errSecDuplicateItem: OSStatus = KeyringStatus.duplicateItem.rawValue
/// Nothing matched. Value: `-25300`.
public let errSecItemNotFound: OSStatus = KeyringStatus.itemNotFound.rawValue
/// The data is too large. Value: `-25302`.
public let errSecDataTooLarge: OSStatus = KeyringStatus.dataTooLarge.rawValue
/// The attribute does not exist (here: an attribute the item's class does not have). Value: `-25303`.
public let errSecNoSuchAttr: OSStatus = KeyringStatus.noSuchAttribute.rawValue
/// The item's accessibility forbids access in the current lock state, or a prompt was
/// needed under `kSecUseAuthenticationUIFail`. Value: `-25308`.
public let errSecInteractionNotAllowed: OSStatus = KeyringStatus.interactionNotAllowed.rawValue
/// Stored data cannot be decoded: corrupted or tampered. Value: `-26275`.
public let errSecDecode: OSStatus = KeyringStatus.decode.rawValue
/// The access group is not in the caller's entitlements. Value: `-34018`.
public let errSecMissingEntitlement: OSStatus = KeyringStatus.missingEntitlement.rawValue
/// The encoding is not valid. Value: `-67853`.
public let errSecInvalidEncoding: OSStatus = KeyringStatus.invalidEncoding.rawValue

/// The human-readable message for a result code, as Apple's function gives it.
///
/// ```swift
/// let status = SecItemAdd(query as CFDictionary, nil)
/// if status != errSecSuccess {
///     print(SecCopyErrorMessageString(status, nil) as String? ?? "OSStatus \(status)")
/// }
/// ```
///
/// The message is the generic one for the code; why *this* call failed (which group, which
/// key, which limit) is in ``ProcessKeyring/lastError``.
/// - Parameters:
///   - status: Any `OSStatus`; unknown codes get `"OSStatus <n>"`.
///   - reserved: Must be `nil`, as on Apple platforms.
public func SecCopyErrorMessageString(_ status: OSStatus, _ reserved: UnsafeMutableRawPointer?) -> CFString? {
    NSString(string: KeyringStatus(rawValue: status).message)
}
#endif
