/// Extra conditions on using an item (`SecAccessControlCreateFlags`), with Apple's bit values.
///
/// Conditions that need a person (user presence, biometry, passcode) are emulated by
/// ``UserPresence``: a process-wide answer that tests set.
public struct AccessControlFlags: OptionSet, Sendable, Hashable, Codable {
    /// The flags as `SecAccessControlCreateFlags` bits.
    public let rawValue: UInt
    /// Flags from `SecAccessControlCreateFlags` bits.
    public init(rawValue: UInt) { self.rawValue = rawValue }

    /// `.userPresence`: biometry or passcode.
    public static let userPresence = AccessControlFlags(rawValue: 1 << 0)
    /// `.biometryAny`: any enrolled biometry.
    public static let biometryAny = AccessControlFlags(rawValue: 1 << 1)
    /// `.biometryCurrentSet`: the biometry enrolled when the item was added.
    public static let biometryCurrentSet = AccessControlFlags(rawValue: 1 << 3)
    /// `.devicePasscode`.
    public static let devicePasscode = AccessControlFlags(rawValue: 1 << 4)
    /// `.or`: any one of the conditions suffices.
    public static let or = AccessControlFlags(rawValue: 1 << 14)
    /// `.and`: every condition is required.
    public static let and = AccessControlFlags(rawValue: 1 << 15)
    /// `.privateKeyUsage`: for Secure Enclave keys (accepted, nothing to emulate).
    public static let privateKeyUsage = AccessControlFlags(rawValue: 1 << 30)
    /// `.applicationPassword`: an application-supplied password (accepted, nothing to emulate).
    public static let applicationPassword = AccessControlFlags(rawValue: 1 << 31)

    /// Whether using the item needs the emulated person's approval.
    public var requiresUserPresence: Bool {
        !isDisjoint(with: [.userPresence, .biometryAny, .biometryCurrentSet, .devicePasscode])
    }
}
