/// A keychain operation that did not succeed: a status code that maps 1:1 to Apple's `OSStatus`,
/// and a reason a person can act on.
///
/// The reason names groups, files and limits; it never contains secret bytes.
public struct KeyringError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The `OSStatus`-compatible code: what a SecItem call would return.
    public var status: KeyringStatus
    /// What happened and, where possible, what to do about it.
    public var reason: String

    /// Creates an error with a status and a reason.
    public init(_ status: KeyringStatus, _ reason: String) {
        self.status = status
        self.reason = reason
    }

    /// `errSecItemNotFound (-25300): <reason>`.
    public var description: String { "\(status): \(reason)" }
}
