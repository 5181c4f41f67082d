import Keyring

/// Why a vault operation refused or failed: a code to switch over, a reason a person can act on,
/// the error underneath as a value and, where known, a remedy.
///
/// Every refusal on the read path has its own code, so a widget can tell tampering from expiry
/// from a missing key. Reasons name records, groups and limits, never plaintext or key bytes.
public struct VaultError: ChainedError, Sendable, Equatable, CustomStringConvertible {
    /// A refusal or failure kind. A struct with static members (like swift-system's `Errno`),
    /// so adding a code later does not break anyone's `switch`.
    public struct Code: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
        /// The code's stable name, e.g. `rollback`: safe to log and to match in scripts.
        public let rawValue: String
        /// A code by its name.
        public init(rawValue: String) { self.rawValue = rawValue }
        /// The code's name.
        public var description: String { rawValue }

        /// No record with that name exists.
        public static let notFound = Code(rawValue: "notFound")
        /// The record name is not allowed (separators, `..`, characters, length).
        public static let invalidName = Code(rawValue: "invalidName")
        /// The identity is not entitled to the group.
        public static let missingEntitlement = Code(rawValue: "missingEntitlement")
        /// The blob's format version or algorithm is not one this reader supports.
        public static let unsupportedFormat = Code(rawValue: "unsupportedFormat")
        /// The blob is not a well-formed blob: empty, truncated, bad magic, bad lengths.
        public static let malformed = Code(rawValue: "malformed")
        /// The blob names a key id its group's keyset does not have.
        public static let unknownKey = Code(rawValue: "unknownKey")
        /// The blob names a key that has been retired.
        public static let retiredKey = Code(rawValue: "retiredKey")
        /// The AEAD tag does not verify: tampered, truncated, moved to another name or group.
        public static let authenticationFailed = Code(rawValue: "authenticationFailed")
        /// The record's schema version is outside what the reader's type supports.
        public static let unsupportedSchema = Code(rawValue: "unsupportedSchema")
        /// The record's sequence is lower than one already trusted: an old file was put back.
        public static let rollback = Code(rawValue: "rollback")
        /// The record's sequence is further past the trusted one (more than 2^32) than any
        /// writer can have gone: a blob forged with the group key to exhaust the sequence space.
        public static let untrustedSequence = Code(rawValue: "untrustedSequence")
        /// The same sequence as a trusted record, with different content.
        public static let conflictingContent = Code(rawValue: "conflictingContent")
        /// The record was deleted by its writer (a sealed tombstone is in its place).
        public static let deleted = Code(rawValue: "deleted")
        /// The record's expiry has passed (beyond the clock-skew allowance).
        public static let expired = Code(rawValue: "expired")
        /// The record claims to be issued in the future (beyond the clock-skew allowance).
        public static let issuedInFuture = Code(rawValue: "issuedInFuture")
        /// The payload does not decode as the requested type, or the type's own validation refused it.
        public static let invalidRecord = Code(rawValue: "invalidRecord")
        /// The encoded record is larger than the limit.
        public static let tooLarge = Code(rawValue: "tooLarge")
        /// The keyring refused or failed (locked device, corrupted keyset, ...).
        public static let keyring = Code(rawValue: "keyring")
        /// A file operation failed (I/O error, disk full, permissions, symbolic link).
        public static let storage = Code(rawValue: "storage")
        /// The write was published (readers see the new version), but a step that makes it last
        /// did not complete: the directory fsync (it may not survive a power loss) or confirming
        /// its announced sequence in the trust ledger. Writing again completes it.
        public static let notDurable = Code(rawValue: "notDurable")
        /// An argument is out of range (e.g. a negative clock-skew allowance, a date that
        /// cannot be represented in a blob header).
        public static let invalidArgument = Code(rawValue: "invalidArgument")
    }

    /// What kind of refusal or failure.
    public var code: Code
    /// What happened and what to do about it.
    public var reason: String
    /// The error this one was made from (a `KeyringError`, a storage failure with its
    /// `Errno`, ...), or `nil` when the vault found the failure itself.
    public var underlyingError: (any Error)?
    /// What to do about it, when the vault knows for certain.
    public var remedy: ErrorRemedy?

    /// Creates an error.
    public init(_ code: Code, _ reason: String) {
        self.code = code
        self.reason = reason
    }

    /// Creates an error with the error it was made from and a remedy.
    public init(_ code: Code, _ reason: String, underlyingError: (any Error)?, remedy: ErrorRemedy? = nil) {
        self.code = code
        self.reason = reason
        self.underlyingError = underlyingError
        self.remedy = remedy
    }

    /// Equal when code, reason and remedy are; the cause is not compared (it has no `==`, and
    /// the reason already names it).
    public static func == (lhs: VaultError, rhs: VaultError) -> Bool {
        lhs.code == rhs.code && lhs.reason == rhs.reason && lhs.remedy == rhs.remedy
    }

    /// `rollback: <reason>`.
    public var description: String { "\(code): \(reason)" }
}
