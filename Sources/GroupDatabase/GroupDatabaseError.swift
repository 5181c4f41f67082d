/// Why a group database could not be opened, migrated or watched: a code, a reason a person can
/// act on, and the underlying error (GRDB's `DatabaseError`, a storage error) as the cause.
public struct GroupDatabaseError: Error, Sendable, CustomStringConvertible {
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
        /// SQLite refused to open the database or a migration failed; see ``GroupDatabaseError/cause``.
        public static let database = Code(rawValue: "database")
    }

    /// What kind of failure.
    public var code: Code
    /// What happened and what to do about it.
    public var reason: String
    /// The error underneath, if any.
    public var cause: (any Error & Sendable)?

    /// Creates an error.
    public init(_ code: Code, _ reason: String, cause: (any Error & Sendable)? = nil) {
        self.code = code
        self.reason = reason
        self.cause = cause
    }

    /// `database: <reason>`.
    public var description: String { "\(code): \(reason)" }
}
