import Keyring
import SealedStorage

/// Why a GroupMessaging operation failed: a code to branch on, a reason a person can act on,
/// the underlying cause as a value when there is one and, where known, a remedy. Never contains
/// key bytes or message contents.
public struct GroupMessagingError: ChainedError, Sendable, CustomStringConvertible {
    /// What kind of failure this is. A struct with static members (like swift-system's
    /// `Errno`), so a code added later does not break anyone's `switch`.
    public struct Code: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
        /// The code's stable name, e.g. `timedOut`: safe to log and to match in scripts.
        public let rawValue: String
        /// A code by its name.
        public init(rawValue: String) { self.rawValue = rawValue }
        /// The code's name.
        public var description: String { rawValue }

        /// A name is malformed or too long for its kind; the reason says how long and the limit.
        public static let invalidName = Code(rawValue: "invalidName")
        /// The identity is not entitled to the application group.
        public static let notEntitled = Code(rawValue: "notEntitled")
        /// A file, directory, semaphore or socket could not be created, opened or read.
        public static let system = Code(rawValue: "system")
        /// Another server is live on the socket path.
        public static let addressInUse = Code(rawValue: "addressInUse")
        /// No connection to the server (it is not running, or the connection was lost).
        public static let notConnected = Code(rawValue: "notConnected")
        /// A request got no response in time.
        public static let timedOut = Code(rawValue: "timedOut")
        /// The peer broke the protocol (bad frame, failed authentication, unknown message type).
        public static let protocolViolation = Code(rawValue: "protocolViolation")
        /// A message could not be encoded or is larger than a frame may be.
        public static let invalidMessage = Code(rawValue: "invalidMessage")
        /// The server or client was closed.
        public static let closed = Code(rawValue: "closed")
        /// The keyring refused (missing entitlement, locked, corrupted keyset).
        public static let keyring = Code(rawValue: "keyring")
    }

    /// What kind of failure this is.
    public var code: Code
    /// What happened and what to do about it.
    public var reason: String
    /// The error underneath, when there is one (a `KeyringError`, a storage failure with its
    /// `Errno`, a ``ChannelProtocolError``, ...).
    public var underlyingError: (any Error)?
    /// What to do about it, when GroupMessaging knows for certain.
    public var remedy: ErrorRemedy?

    /// An error with a code, a reason, and optionally its cause and a remedy.
    public init(_ code: Code, _ reason: String, underlyingError: (any Error)? = nil, remedy: ErrorRemedy? = nil) {
        self.code = code
        self.reason = reason
        self.underlyingError = underlyingError
        self.remedy = remedy
    }

    /// An error with a code, a reason and an optional cause.
    @available(*, deprecated, renamed: "init(_:_:underlyingError:remedy:)")
    public init(_ code: Code, _ reason: String, underlying: (any Error)?) {
        self.init(code, reason, underlyingError: underlying)
    }

    /// The error underneath: the name every GroupVault error uses is ``underlyingError``.
    @available(*, deprecated, renamed: "underlyingError")
    public var underlying: (any Error)? {
        get { underlyingError }
        set { underlyingError = newValue }
    }

    /// `code: reason`.
    public var description: String { "\(code.rawValue): \(reason)" }

    static func keyring(_ error: KeyringError, while operation: String) -> GroupMessagingError {
        GroupMessagingError(.keyring, "\(operation): \(error)", underlyingError: error, remedy: error.remedy)
    }

    static func storage(_ error: StorageError, while operation: String) -> GroupMessagingError {
        GroupMessagingError(.system, "\(operation): \(error)", underlyingError: error, remedy: error.remedy)
    }
}
