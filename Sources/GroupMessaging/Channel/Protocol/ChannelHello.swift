import NIOCore

/// The one unsealed message each end sends when a connection opens: who it is (client or
/// server), which group key it holds, and a fresh random nonce.
///
/// Layout (42 bytes): magic `GVMC` (4) | version 1 (1) | role `C` or `S` (1) | key id (4, big
/// endian) | nonce (32). Nothing in it is secret; the keys of the connection are derived from
/// both hellos (docs/MESSAGING.md), so a replayed hello only yields keys nobody else holds.
public struct ChannelHello: Sendable, Hashable {
    /// Which end sent the hello.
    public enum Role: UInt8, Sendable, Hashable {
        /// The connecting end.
        case client = 0x43  // "C"
        /// The listening end.
        case server = 0x53  // "S"
    }

    static let magic: [UInt8] = Array("GVMC".utf8)
    /// The protocol version this implementation speaks.
    public static let version: UInt8 = 1
    /// Bytes of the nonce.
    public static let nonceLength = 32
    /// Bytes of an encoded hello.
    public static let encodedLength = 4 + 1 + 1 + 4 + nonceLength

    /// The sender's role.
    public var role: Role
    /// The id of the group key the sender will derive the connection's keys from.
    public var keyID: UInt32
    /// 32 random bytes, fresh for every connection.
    public var nonce: [UInt8]

    /// A hello with the given fields.
    public init(role: Role, keyID: UInt32, nonce: [UInt8]) {
        self.role = role
        self.keyID = keyID
        self.nonce = nonce
    }

    /// The 42 bytes sent on the wire.
    public var encoded: [UInt8] {
        Self.magic + [Self.version, role.rawValue] + [UInt8(keyID >> 24), UInt8(keyID >> 16 & 0xFF), UInt8(keyID >> 8 & 0xFF), UInt8(keyID & 0xFF)] + nonce
    }

    /// Parses a hello frame as the decoder cut it, requiring `role`.
    /// - Throws: ``ChannelProtocolError/Kind/badHandshake`` naming what is wrong.
    package init(parsing frame: ByteBuffer, expecting role: Role) throws(ChannelProtocolError) {
        try self.init(parsing: Array(frame.readableBytesView), expecting: role)  // 42 bytes
    }

    /// Parses a hello frame body, requiring `role`.
    /// - Throws: ``ChannelProtocolError/Kind/badHandshake`` naming what is wrong.
    public init(parsing body: [UInt8], expecting role: Role) throws(ChannelProtocolError) {
        guard body.count == Self.encodedLength else {
            throw ChannelProtocolError(.badHandshake, "a hello is \(Self.encodedLength) bytes, this one \(body.count)")
        }
        guard Array(body[0..<4]) == Self.magic else {
            throw ChannelProtocolError(.badHandshake, "the hello does not start with GVMC: not a GroupMessaging peer")
        }
        guard body[4] == Self.version else {
            throw ChannelProtocolError(.badHandshake, "the peer speaks protocol version \(body[4]); this end speaks \(Self.version)")
        }
        guard let sender = Role(rawValue: body[5]), sender == role else {
            throw ChannelProtocolError(.badHandshake, "expected a \(role) hello, got role byte 0x\(String(body[5], radix: 16))")
        }
        self.role = sender
        self.keyID = UInt32(body[6]) << 24 | UInt32(body[7]) << 16 | UInt32(body[8]) << 8 | UInt32(body[9])
        self.nonce = Array(body[10...])
    }
}
