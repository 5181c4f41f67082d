import Keyring

/// Why a group database could not be opened, migrated or watched: a code, a reason a person can
/// act on, the underlying error (GRDB's `DatabaseError`, a storage error) as a value and, where
/// known, a remedy.
public struct GroupDatabaseError: ChainedError, Sendable, CustomStringConvertible {
    /// A failure kind; a struct with static members so new codes break no `switch`.
    public struct Code: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
        /// The code's stable name.
        public let rawValue: String
        /// A code by its name.
        public init(rawValue: String) { self.rawValue = rawValue }
        /// The code's name.
        public var description: String { rawValue }

        /// The database name breaks the naming rules.
        public static let invalidName = Code(rawValue: "invalidName")
        /// The identity is not entitled to the group as an application group.
        public static let missingEntitlement = Code(rawValue: "missingEntitlement")
        /// A file or directory could not be created, vetted (owner, mode, symbolic link) or watched.
        public static let storage = Code(rawValue: "storage")
        /// SQLite refused to open the database or a migration failed; see ``GroupDatabaseError/underlyingError``.
        public static let database = Code(rawValue: "database")
    }

    /// What kind of failure.
    public var code: Code
    /// What happened and what to do about it.
    public var reason: String
    /// The error underneath, if any.
    public var underlyingError: (any Error)?
    /// What to do about it, when GroupDatabase knows for certain.
    public var remedy: ErrorRemedy?

    /// Creates an error, with the error it was made from and a remedy when there are.
    public init(_ code: Code, _ reason: String, underlyingError: (any Error)? = nil, remedy: ErrorRemedy? = nil) {
        self.code = code
        self.reason = reason
        self.underlyingError = underlyingError
        self.remedy = remedy
    }

    /// Creates an error with its cause.
    @available(*, deprecated, renamed: "init(_:_:underlyingError:remedy:)")
    public init(_ code: Code, _ reason: String, cause: (any Error)?) {
        self.init(code, reason, underlyingError: cause)
    }

    /// The underlying error: the name every GroupVault error uses is ``underlyingError``.
    @available(*, deprecated, renamed: "underlyingError")
    public var cause: (any Error)? {
        get { underlyingError }
        set { underlyingError = newValue }
    }

    /// `database: <reason>`.
    public var description: String { "\(code): \(reason)" }
}
