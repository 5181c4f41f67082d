import Keyring
import Vault

/// Why a suite operation refused or failed: a code to switch over, a reason a person can act
/// on, and the Vault error underneath when the sealed storage refused or failed.
///
/// Reasons name keys (escaped), suites, groups and limits; never values.
public struct SharedDefaultsError: ChainedError, Sendable, Equatable, CustomStringConvertible {
    /// A refusal or failure kind; a struct with static members so new codes break no `switch`.
    public struct Code: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
        /// The code's stable name, e.g. `valueTooLarge`.
        public let rawValue: String
        /// A code by its name.
        public init(rawValue: String) { self.rawValue = rawValue }
        /// The code's name.
        public var description: String { rawValue }

        /// The suite name is not usable (empty, too long, not a group when no group is given).
        public static let invalidSuiteName = Code(rawValue: "invalidSuiteName")
        /// The identity is not entitled to the suite's group.
        public static let missingEntitlement = Code(rawValue: "missingEntitlement")
        /// The key is empty or longer than ``SharedDefaults/maximumKeyLength``.
        public static let invalidKey = Code(rawValue: "invalidKey")
        /// The value is not a property-list value (a type `UserDefaults` would refuse, a
        /// non-finite date, a relative URL, nesting deeper than ``SharedDefaults/Value/maximumDepth``).
        public static let unsupportedValue = Code(rawValue: "unsupportedValue")
        /// The encoded value is larger than ``SharedDefaults/maximumValueSize``.
        public static let valueTooLarge = Code(rawValue: "valueTooLarge")
        /// Storing the value would make the suite larger than ``SharedDefaults/maximumSuiteSize``.
        public static let suiteFull = Code(rawValue: "suiteFull")
        /// The sealed entry of the key is present but refused: tampered, rolled back, sealed
        /// with an unknown or retired key, ... ``SharedDefaultsError/vaultError`` says which.
        public static let refused = Code(rawValue: "refused")
        /// The sealed storage failed (keyring, I/O, durability); see ``SharedDefaultsError/vaultError``.
        public static let storage = Code(rawValue: "storage")
        /// A stored value does not decode as the type asked for (``SharedDefaults/decoded(_:forKey:)``).
        public static let typeMismatch = Code(rawValue: "typeMismatch")
        /// A preferences file to import is not a property list this importer accepts.
        public static let malformedPreferences = Code(rawValue: "malformedPreferences")
    }

    /// What kind of refusal or failure.
    public var code: Code
    /// What happened and what to do about it.
    public var reason: String
    /// The error this one was made from (a `VaultError`, whose code, such as `rollback` or
    /// `authenticationFailed`, is the precise reason; a `KeyringError`; a storage failure).
    public var underlyingError: (any Error)?
    /// What to do about it, when SharedDefaults or the layer below knows for certain.
    public var remedy: ErrorRemedy?

    /// The Vault's error, when sealed storage refused an entry or failed: ``underlyingError``
    /// seen as the `VaultError` it is (`nil` for a cause of another type).
    public var vaultError: VaultError? {
        get { underlyingError as? VaultError }
        set { underlyingError = newValue }
    }

    /// Creates an error; a Vault error it was made from lends its remedy.
    public init(_ code: Code, _ reason: String, vaultError: VaultError? = nil) {
        self.code = code
        self.reason = reason
        self.underlyingError = vaultError
        self.remedy = vaultError?.remedy
    }

    /// Creates an error with the error it was made from, of any type, and a remedy.
    public init(_ code: Code, _ reason: String, underlyingError: (any Error)?, remedy: ErrorRemedy? = nil) {
        self.code = code
        self.reason = reason
        self.underlyingError = underlyingError
        self.remedy = remedy
    }

    /// Equal when code, reason and remedy are, and the Vault errors underneath (compared as
    /// `VaultError`s: code, reason and remedy); a cause of another type is not compared.
    public static func == (lhs: SharedDefaultsError, rhs: SharedDefaultsError) -> Bool {
        lhs.code == rhs.code && lhs.reason == rhs.reason && lhs.remedy == rhs.remedy && lhs.vaultError == rhs.vaultError
    }

    /// `refused: <reason>`.
    public var description: String { "\(code): \(reason)" }
}
