#if !canImport(Darwin)
import Foundation
import Keyring

/// Conditions for using an item, as passed to ``SecAccessControlCreateWithFlags(_:_:_:_:)``.
///
/// The bit values are Apple's, the same as `AccessControlFlags` in the Keyring module. Conditions that need a person
/// (user presence, biometry, passcode) are answered by `UserPresence.response` (Keyring).
public struct SecAccessControlCreateFlags: OptionSet, Sendable, Hashable {
    /// The bits, as `CFOptionFlags`.
    public let rawValue: CFOptionFlags
    /// Wraps raw bits; unknown bits make ``SecAccessControlCreateWithFlags(_:_:_:_:)`` fail.
    public init(rawValue: CFOptionFlags) { self.rawValue = rawValue }

    /// Biometry or the device passcode.
    public static let userPresence = SecAccessControlCreateFlags(rawValue: AccessControlFlags.userPresence.rawValue)
    /// Any enrolled biometry.
    public static let biometryAny = SecAccessControlCreateFlags(rawValue: AccessControlFlags.biometryAny.rawValue)
    /// The biometry enrolled when the item was added.
    public static let biometryCurrentSet = SecAccessControlCreateFlags(rawValue: AccessControlFlags.biometryCurrentSet.rawValue)
    /// The deprecated name of ``biometryAny`` (Touch ID era), still accepted by Apple. Not
    /// marked deprecated here, so code under test compiles without new warnings.
    public static let touchIDAny = biometryAny
    /// The deprecated name of ``biometryCurrentSet``; see ``touchIDAny``.
    public static let touchIDCurrentSet = biometryCurrentSet
    /// The device passcode.
    public static let devicePasscode = SecAccessControlCreateFlags(rawValue: AccessControlFlags.devicePasscode.rawValue)
    /// Any one of the given conditions suffices.
    public static let or = SecAccessControlCreateFlags(rawValue: AccessControlFlags.or.rawValue)
    /// Every given condition is required.
    public static let and = SecAccessControlCreateFlags(rawValue: AccessControlFlags.and.rawValue)
    /// For Secure Enclave private keys; accepted, nothing to emulate for passwords.
    public static let privateKeyUsage = SecAccessControlCreateFlags(rawValue: AccessControlFlags.privateKeyUsage.rawValue)
    /// An application-supplied password; accepted, nothing to emulate.
    public static let applicationPassword = SecAccessControlCreateFlags(rawValue: AccessControlFlags.applicationPassword.rawValue)

    /// Every bit this emulator knows.
    static let known: SecAccessControlCreateFlags = [
        .userPresence, .biometryAny, .biometryCurrentSet, .devicePasscode, .or, .and, .privateKeyUsage, .applicationPassword,
    ]
}

/// An item's access control: its accessibility plus extra conditions, the value of
/// `kSecAttrAccessControl`.
///
/// ```swift
/// var error: Unmanaged<CFError>?
/// guard let access = SecAccessControlCreateWithFlags(
///     kCFAllocatorDefault, kSecAttrAccessibleWhenUnlockedThisDeviceOnly, .userPresence, &error)
/// else { throw error!.takeRetainedValue() as Error }
/// let query: [String: Any] = [kSecClass as String: kSecClassGenericPassword,
///                             kSecAttrAccessControl as String: access, ...]
/// ```
///
/// Reading the secret of such an item asks `UserPresence`: `.deny` gives `errSecUserCanceled`,
/// `.unavailable` gives `errSecAuthFailed`.
///
/// Hashable, as every Core Foundation object is on Apple platforms (code keeps it in
/// `[String: AnyHashable]` queries): two access controls are equal when their protection and
/// flags are.
public final class SecAccessControl: Sendable, Hashable, CustomStringConvertible {
    /// When the item can be read (the `protection` argument).
    package let protection: Accessibility
    /// The conditions beyond accessibility.
    package let flags: AccessControlFlags

    package init(protection: Accessibility, flags: AccessControlFlags) {
        self.protection = protection
        self.flags = flags
    }

    /// Equal protection and flags, as Core Foundation compares two access controls.
    public static func == (lhs: SecAccessControl, rhs: SecAccessControl) -> Bool {
        lhs.protection == rhs.protection && lhs.flags == rhs.flags
    }

    /// Hashes the protection and flags.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(protection)
        hasher.combine(flags)
    }

    /// `SecAccessControl(protection: ak, flags: 0x1)`.
    public var description: String {
        "SecAccessControl(protection: \(protection.rawValue), flags: 0x\(String(flags.rawValue, radix: 16)))"
    }
}

/// Creates an access control object, as on Apple platforms.
///
/// - Parameters:
///   - allocator: Ignored; pass `kCFAllocatorDefault` or `nil`.
///   - protection: One of the `kSecAttrAccessible...` constants.
///   - flags: The extra conditions.
///   - error: Receives an `NSOSStatusErrorDomain` error with code `errSecParam` when
///     `protection` is not an accessibility constant or `flags` holds unknown bits or both
///     `.or` and `.and`.
/// - Returns: The access control, or `nil` on error.
public func SecAccessControlCreateWithFlags(
    _ allocator: CFAllocator?,
    _ protection: CFTypeRef,
    _ flags: SecAccessControlCreateFlags,
    _ error: UnsafeMutablePointer<Unmanaged<CFError>?>?
) -> SecAccessControl? {
    func fail(_ reason: String) -> SecAccessControl? {
        let failure = NSError(domain: NSOSStatusErrorDomain, code: Int(errSecParam), userInfo: [NSLocalizedDescriptionKey: reason])
        error?.pointee = Unmanaged.passRetained(failure)
        return nil
    }
    guard let raw = protection as? String, let accessibility = Accessibility(rawValue: raw) else {
        return fail("SecAccessControlCreateWithFlags: protection must be one of the kSecAttrAccessible constants")
    }
    guard flags.isSubset(of: .known) else {
        return fail("SecAccessControlCreateWithFlags: unknown flag bits 0x\(String(flags.subtracting(.known).rawValue, radix: 16))")
    }
    guard !flags.isSuperset(of: [.or, .and]) else {
        return fail("SecAccessControlCreateWithFlags: .or and .and are mutually exclusive")
    }
    return SecAccessControl(protection: accessibility, flags: AccessControlFlags(rawValue: flags.rawValue))
}
#endif
