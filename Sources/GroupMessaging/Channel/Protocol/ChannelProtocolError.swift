/// Why a frame or a handshake message was refused. The reason is for logs and for the peer's
/// goodbye; it never quotes the bytes received beyond their sizes.
public struct ChannelProtocolError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The kinds of protocol violation.
    public enum Kind: String, Sendable, Hashable {
        /// A length prefix above ``ChannelFrame/maximumBodyLength``, or zero.
        case badFrameLength
        /// The connection ended in the middle of a frame.
        case truncatedFrame
        /// A handshake message of the wrong size, magic, version or role.
        case badHandshake
        /// A sealed frame whose counter is not the next one expected (replayed, reordered or dropped).
        case outOfOrder
        /// A sealed frame that does not authenticate: forged, altered, or sealed without the group key.
        case authenticationFailed
        /// An authentic frame whose content is malformed.
        case malformedMessage
        /// A message type the receiver did not register.
        case unknownMessageType
        /// A message type the receiver registered, whose body does not decode as that type.
        case undecodableMessage
        /// The peer sent a frame that is not allowed in the current state.
        case unexpectedFrame
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
