/// A keychain result code, numerically identical to Apple's `OSStatus` values.
///
/// Modelled on swift-system's `Errno`: a struct with documented static members rather than an
/// enum, so a code added later never breaks a `switch` in a user's code.
public struct KeyringStatus: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    /// The `OSStatus` value.
    public let rawValue: Int32

    /// Wraps an `OSStatus` value.
    public init(rawValue: Int32) { self.rawValue = rawValue }

    /// No error (`errSecSuccess`, 0).
    public static let success = KeyringStatus(rawValue: 0)
    /// The feature is not emulated (`errSecUnimplemented`, -4).
    public static let unimplemented = KeyringStatus(rawValue: -4)
    /// An I/O error (`errSecIO`, -36).
    public static let ioError = KeyringStatus(rawValue: -36)
    /// Write permission error (`errSecWrPerm`, -61).
    public static let writePermission = KeyringStatus(rawValue: -61)
    /// A malformed query or parameter (`errSecParam`, -50).
    public static let invalidParameter = KeyringStatus(rawValue: -50)
    /// Memory could not be allocated (`errSecAllocate`, -108).
    public static let allocationFailed = KeyringStatus(rawValue: -108)
    /// The user refused a user-presence prompt (`errSecUserCanceled`, -128).
    public static let userCanceled = KeyringStatus(rawValue: -128)
    /// No keychain is available: the store cannot be opened (`errSecNotAvailable`, -25291).
    public static let notAvailable = KeyringStatus(rawValue: -25291)
    /// The keychain is read-only (`errSecReadOnly`, -25292).
    public static let readOnly = KeyringStatus(rawValue: -25292)
    /// Authentication failed or is not available (`errSecAuthFailed`, -25293).
    public static let authenticationFailed = KeyringStatus(rawValue: -25293)
    /// The keychain does not exist (`errSecNoSuchKeychain`, -25294).
    public static let noSuchKeychain = KeyringStatus(rawValue: -25294)
    /// The keychain is not valid (`errSecInvalidKeychain`, -25295).
    public static let invalidKeychain = KeyringStatus(rawValue: -25295)
    /// An item with the same primary key exists (`errSecDuplicateItem`, -25299).
    public static let duplicateItem = KeyringStatus(rawValue: -25299)
    /// Nothing matched (`errSecItemNotFound`, -25300).
    public static let itemNotFound = KeyringStatus(rawValue: -25300)
    /// The data is too large (`errSecDataTooLarge`, -25302).
    public static let dataTooLarge = KeyringStatus(rawValue: -25302)
    /// The attribute does not exist (`errSecNoSuchAttr`, -25303).
    public static let noSuchAttribute = KeyringStatus(rawValue: -25303)
    /// The item's accessibility forbids access in the current lock state (`errSecInteractionNotAllowed`, -25308).
    public static let interactionNotAllowed = KeyringStatus(rawValue: -25308)
    /// Stored data cannot be decoded: corrupted or tampered (`errSecDecode`, -26275).
    public static let decode = KeyringStatus(rawValue: -26275)
    /// The access group is not in the caller's entitlements (`errSecMissingEntitlement`, -34018).
    public static let missingEntitlement = KeyringStatus(rawValue: -34018)
    /// Invalid encoding (`errSecInvalidEncoding`, -67853).
    public static let invalidEncoding = KeyringStatus(rawValue: -67853)

    private static let names: [Int32: (name: String, message: String)] = [
        0: ("errSecSuccess", "No error."),
        -4: ("errSecUnimplemented", "Function or operation not implemented."),
        -36: ("errSecIO", "I/O error."),
        -50: ("errSecParam", "One or more parameters passed to a function were not valid."),
        -61: ("errSecWrPerm", "Write permissions error."),
        -108: ("errSecAllocate", "Failed to allocate memory."),
        -128: ("errSecUserCanceled", "User canceled the operation."),
        -25291: ("errSecNotAvailable", "No keychain is available. You may need to restart your computer."),
        -25292: ("errSecReadOnly", "This keychain cannot be modified."),
        -25293: ("errSecAuthFailed", "The user name or passphrase you entered is not correct."),
        -25294: ("errSecNoSuchKeychain", "The specified keychain could not be found."),
        -25295: ("errSecInvalidKeychain", "The specified keychain is not a valid keychain file."),
        -25299: ("errSecDuplicateItem", "The specified item already exists in the keychain."),
        -25300: ("errSecItemNotFound", "The specified item could not be found in the keychain."),
        -25302: ("errSecDataTooLarge", "This item contains information which is too large or in a format that cannot be displayed."),
        -25303: ("errSecNoSuchAttr", "The specified attribute does not exist."),
        -25308: ("errSecInteractionNotAllowed", "User interaction is not allowed."),
        -26275: ("errSecDecode", "Unable to decode the provided data."),
        -34018: ("errSecMissingEntitlement", "A required entitlement isn't present."),
        -67853: ("errSecInvalidEncoding", "The encoding was not valid."),
    ]

    /// The C constant's name, e.g. `errSecItemNotFound`, or `OSStatus <n>` for an unknown code.
    public var name: String { Self.names[rawValue]?.name ?? "OSStatus \(rawValue)" }

    /// The human-readable message Apple's `SecCopyErrorMessageString` gives for this code.
    public var message: String { Self.names[rawValue]?.message ?? "OSStatus \(rawValue)" }

    /// Every status code this library produces or documents.
    public static var allKnown: [KeyringStatus] { names.keys.sorted(by: >).map(KeyringStatus.init(rawValue:)) }

    /// `errSecItemNotFound (-25300)`.
    public var description: String { "\(name) (\(rawValue))" }
}
