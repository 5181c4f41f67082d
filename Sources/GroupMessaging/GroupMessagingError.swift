import Keyring
import SealedStorage

/// Why a GroupMessaging operation failed: a code to branch on, a reason a person can act on,
/// and the underlying cause when there is one. Never contains key bytes or message contents.
public struct GroupMessagingError: Error, Sendable, CustomStringConvertible {
    /// What kind of failure this is.
    public enum Code: String, Sendable, Hashable {
        /// A name is malformed or too long for its kind; the reason says how long and the limit.
        case invalidName
        /// The identity is not entitled to the application group.
        case notEntitled
        /// A file, directory, semaphore or socket could not be created, opened or read.
        case system
        /// Another server is live on the socket path.
        case addressInUse
        /// No connection to the server (it is not running, or the connection was lost).
        case notConnected
        /// A request got no response in time.
        case timedOut
        /// The peer broke the protocol (bad frame, failed authentication, unknown message type).
        case protocolViolation
        /// A message could not be encoded or is larger than a frame may be.
        case invalidMessage
        /// The server or client was closed.
        case closed
        /// The keyring refused (missing entitlement, locked, corrupted keyset).
        case keyring
    }

    /// What kind of failure this is.
    public var code: Code
    /// What happened and what to do about it.
    public var reason: String
    /// The error underneath, when there is one (a `KeyringError`, a system error...).
    public var underlying: (any Error & Sendable)?

    /// An error with a code, a reason and an optional cause.
    public init(_ code: Code, _ reason: String, underlying: (any Error & Sendable)? = nil) {
        self.code = code
        self.reason = reason
        self.underlying = underlying
    }

    /// `code: reason`.
    public var description: String { "\(code.rawValue): \(reason)" }

    static func keyring(_ error: KeyringError, while operation: String) -> GroupMessagingError {
        GroupMessagingError(.keyring, "\(operation): \(error)", underlying: error)
    }

    static func storage(_ error: StorageError, while operation: String) -> GroupMessagingError {
        GroupMessagingError(.system, "\(operation): \(error)", underlying: error)
    }
}
