/// Why a frame or a handshake message was refused. The reason is for logs and for the peer's
/// goodbye; it never quotes the bytes received beyond their sizes.
public struct ChannelProtocolError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The kinds of protocol violation. A struct with static members (like swift-system's
    /// `Errno`), so a kind added later does not break anyone's `switch`.
    public struct Kind: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
        /// The kind's stable name, e.g. `outOfOrder`: safe to log and to match in scripts.
        public let rawValue: String
        /// A kind by its name.
        public init(rawValue: String) { self.rawValue = rawValue }
        /// The kind's name.
        public var description: String { rawValue }

        /// A length prefix above ``ChannelFrame/maximumBodyLength``, or zero.
        public static let badFrameLength = Kind(rawValue: "badFrameLength")
        /// The connection ended in the middle of a frame.
        public static let truncatedFrame = Kind(rawValue: "truncatedFrame")
        /// A handshake message of the wrong size, magic, version or role.
        public static let badHandshake = Kind(rawValue: "badHandshake")
        /// A sealed frame whose counter is not the next one expected (replayed, reordered or dropped).
        public static let outOfOrder = Kind(rawValue: "outOfOrder")
        /// A sealed frame that does not authenticate: forged, altered, or sealed without the group key.
        public static let authenticationFailed = Kind(rawValue: "authenticationFailed")
        /// An authentic frame whose content is malformed.
        public static let malformedMessage = Kind(rawValue: "malformedMessage")
        /// A message type the receiver did not register.
        public static let unknownMessageType = Kind(rawValue: "unknownMessageType")
        /// A message type the receiver registered, whose body does not decode as that type.
        public static let undecodableMessage = Kind(rawValue: "undecodableMessage")
        /// The peer sent a frame that is not allowed in the current state.
        public static let unexpectedFrame = Kind(rawValue: "unexpectedFrame")
    }

    /// Which violation.
    public var kind: Kind
    /// What exactly was wrong.
    public var reason: String

    /// A violation with its reason.
    public init(_ kind: Kind, _ reason: String) {
        self.kind = kind
        self.reason = reason
    }

    /// `kind: reason`.
    public var description: String { "\(kind.rawValue): \(reason)" }
}
