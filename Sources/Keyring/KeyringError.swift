/// A keychain operation that did not succeed: a status code that maps 1:1 to Apple's `OSStatus`,
/// a reason a person can act on, the error underneath as a value and, where known, a remedy.
///
/// The reason names groups, files and limits; it never contains secret bytes. The
/// ``underlyingError`` is what the keyring caught (a storage failure with its `Errno`, a
/// ``SQLiteFailure`` with its result code, a nested ``KeyringError``); the reason already
/// describes it in words.
public struct KeyringError: ChainedError, Sendable, Equatable, CustomStringConvertible {
    /// The `OSStatus`-compatible code: what a SecItem call would return.
    public var status: KeyringStatus
    /// What happened and, where possible, what to do about it.
    public var reason: String
    /// The error this one was made from, or `nil` when the keyring found the failure itself.
    public var underlyingError: (any Error)?
    /// What to do about it, when the keyring knows for certain.
    public var remedy: ErrorRemedy?

    /// Creates an error with a status and a reason.
    public init(_ status: KeyringStatus, _ reason: String) {
        self.status = status
        self.reason = reason
    }

    /// Creates an error with a status, a reason, the error it was made from and a remedy.
    public init(_ status: KeyringStatus, _ reason: String, underlyingError: (any Error)?, remedy: ErrorRemedy? = nil) {
        self.status = status
        self.reason = reason
        self.underlyingError = underlyingError
        self.remedy = remedy
    }

    /// Equal when status, reason and remedy are; the cause is not compared (it has no `==`, and
    /// the reason already names it).
    public static func == (lhs: KeyringError, rhs: KeyringError) -> Bool {
        lhs.status == rhs.status && lhs.reason == rhs.reason && lhs.remedy == rhs.remedy
    }

    /// `errSecItemNotFound (-25300): <reason>`.
    public var description: String { "\(status): \(reason)" }
}
