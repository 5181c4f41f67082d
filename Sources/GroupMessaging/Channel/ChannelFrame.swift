/// The framing of the channel: every frame is a 4-byte big-endian length followed by that many
/// bytes of body. The length counts the body only; a body is 1 to ``maximumBodyLength`` bytes.
///
/// A reader must not assume one frame per read: ``ChannelFrameReader`` takes bytes as they come
/// and returns whole frames, however the stream was cut.
public enum ChannelFrame {
    /// Bytes of the length prefix.
    public static let headerLength = 4
    /// The largest frame body: 64 KiB. Bounds the memory a peer can make the other end hold.
    public static let maximumBodyLength = 65_536

    /// `body` with its length prefix.
    package static func encode(_ body: [UInt8]) -> [UInt8] {
        precondition(!body.isEmpty && body.count <= maximumBodyLength, "a frame body is 1...\(maximumBodyLength) bytes")
        let length = UInt32(body.count)
        return [UInt8(length >> 24), UInt8(length >> 16 & 0xFF), UInt8(length >> 8 & 0xFF), UInt8(length & 0xFF)] + body
    }
}

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

/// Cuts a byte stream into frame bodies.
public struct ChannelFrameReader: Sendable {
    private var buffer: [UInt8] = []
    private var start = 0
    /// The exact length the first frame must announce, until it has been cut.
    private var firstFrameLength: Int?

    /// An empty reader.
    public init() {}

    /// An empty reader for a connection, whose first frame is the peer's hello: any other
    /// length in the first prefix is refused at once, so a peer that has not even said hello
    /// cannot make this end wait for (and hold) a frame of up to ``ChannelFrame/maximumBodyLength``.
    public init(firstFrameLength: Int) {
        self.firstFrameLength = firstFrameLength
    }

    /// Bytes received but not yet part of a returned frame.
    public var pendingByteCount: Int { buffer.count - start }

    /// Appends `bytes` and returns every frame body now complete, in order.
    /// - Throws: ``ChannelProtocolError/Kind/badFrameLength`` as soon as a length prefix is
    ///   zero or above the maximum, before its body arrives; ``ChannelProtocolError/Kind/badHandshake``
    ///   as soon as a first frame announces another length than the one required.
    public mutating func append<Bytes: Collection<UInt8>>(_ bytes: Bytes) throws(ChannelProtocolError) -> [[UInt8]] {
        buffer.append(contentsOf: bytes)
        var frames: [[UInt8]] = []
        while buffer.count - start >= ChannelFrame.headerLength {
            let length = Int(buffer[start]) << 24 | Int(buffer[start + 1]) << 16 | Int(buffer[start + 2]) << 8 | Int(buffer[start + 3])
            if let firstFrameLength, length != firstFrameLength {
                throw ChannelProtocolError(.badHandshake, "the first frame is a \(firstFrameLength)-byte hello; this one announced \(length) bytes")
            }
            guard length > 0, length <= ChannelFrame.maximumBodyLength else {
                throw ChannelProtocolError(.badFrameLength, "a frame announced \(length) bytes; frames carry 1 to \(ChannelFrame.maximumBodyLength)")
            }
            guard buffer.count - start >= ChannelFrame.headerLength + length else { break }
            let bodyStart = start + ChannelFrame.headerLength
            frames.append(Array(buffer[bodyStart..<bodyStart + length]))
            start = bodyStart + length
            firstFrameLength = nil
        }
        // Compact once the consumed prefix dominates, so the buffer stays bounded by one frame.
        if start > 0 && start * 2 >= buffer.count {
            buffer.removeFirst(start)
            start = 0
        }
        return frames
    }

    /// Call when the stream ends: throws ``ChannelProtocolError/Kind/truncatedFrame`` if a frame
    /// was left unfinished.
    public func finish() throws(ChannelProtocolError) {
        if pendingByteCount > 0 {
            throw ChannelProtocolError(.truncatedFrame, "the connection ended \(pendingByteCount) bytes into an unfinished frame")
        }
    }
}
