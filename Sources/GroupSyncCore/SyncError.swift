import Keyring
import Vault

/// Why a GroupSync operation failed or a value from the server was refused.
///
/// Every error names what to do about it, keeps the error it came from as a value
/// (``underlyingError``), and never contains a password, a key or a value's bytes: connection URLs
/// appear only as ``SyncServerURL/redacted``.
public struct SyncError: ChainedError, Sendable, CustomStringConvertible {
    /// What kind of failure.
    public struct Code: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
        /// The code's name.
        public let rawValue: String
        /// A code with this name.
        public init(rawValue: String) { self.rawValue = rawValue }
        /// The name.
        public var description: String { rawValue }

        /// The configuration (URL, TLS) is invalid.
        public static let configuration = Code(rawValue: "configuration")
        /// The server could not be reached, or failed a query; writes stay pending.
        public static let server = Code(rawValue: "server")
        /// The server's schema is newer than this client understands.
        public static let schema = Code(rawValue: "schema")
        /// A value from the server was refused; ``SyncError/refusal`` says why, in the Vault's words.
        public static let refused = Code(rawValue: "refused")
        /// The process lacks the entitlement the store needs.
        public static let missingEntitlement = Code(rawValue: "missingEntitlement")
        /// One of the key-value store's limits (key length, key count, total size) would be exceeded.
        public static let quota = Code(rawValue: "quota")
        /// A synced record's write lost to another machine's; ``SyncError/reason`` names the winner.
        public static let conflict = Code(rawValue: "conflict")
        /// The group's keys could not be read from the keyring.
        public static let keyring = Code(rawValue: "keyring")
        /// The machine's local sync state could not be read or written.
        public static let storage = Code(rawValue: "storage")
        /// An argument was invalid (a key name, a value that cannot be encoded).
        public static let invalidArgument = Code(rawValue: "invalidArgument")
    }

    /// What kind of failure.
    public var code: Code
    /// What happened and what to do about it.
    public var reason: String
    /// For ``Code/refused``: the Vault's verdict on the value (`rollback`, `authenticationFailed`, ...).
    public var refusal: VaultError.Code?
    /// The error this one came from, when another layer reported it first.
    public var underlyingError: (any Error)?
    /// What to do about it, when GroupSync knows for certain (``ChainedError/nearestRemedy``
    /// also looks at the causes').
    public var remedy: ErrorRemedy?

    /// Creates an error.
    public init(
        _ code: Code, _ reason: String, refusal: VaultError.Code? = nil,
        underlyingError: (any Error)? = nil, remedy: ErrorRemedy? = nil
    ) {
        self.code = code
        self.reason = reason
        self.refusal = refusal
        self.underlyingError = underlyingError
        self.remedy = remedy
    }

    /// Creates an error.
    @available(*, deprecated, renamed: "init(_:_:refusal:underlyingError:remedy:)")
    public init(_ code: Code, _ reason: String, refusal: VaultError.Code? = nil, underlying: (any Error)?) {
        self.init(code, reason, refusal: refusal, underlyingError: underlying)
    }

    /// The error this one came from: the name every GroupVault error uses is ``underlyingError``.
    @available(*, deprecated, renamed: "underlyingError")
    public var underlying: (any Error)? {
        get { underlyingError }
        set { underlyingError = newValue }
    }

    /// `code: reason`, with the refusal's code for a refused value.
    public var description: String {
        if let refusal { return "\(code) (\(refusal)): \(reason)" }
        return "\(code): \(reason)"
    }
}
