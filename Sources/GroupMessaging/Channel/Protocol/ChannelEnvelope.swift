import Foundation
import NIOCore

/// The plaintext inside a sealed frame:
/// `kind (1) | id (8, big endian) | type length (1) | type (UTF-8) | body`.
///
/// The kind byte's high bit (0x80) marks a CBOR body; it is allowed on messages, requests and
/// responses only (0x82, 0x83, 0x84), and sent only to a peer whose ready listed CBOR.
package struct ChannelEnvelope: Sendable, Equatable {
    package enum Kind: UInt8, Sendable {
        /// First sealed frame each way. From the server, `id` is the client's connection id.
        case ready = 1
        /// A one-way message; `id` is 0.
        case message = 2
        /// A request; `id` is chosen by the sender, unique on the connection.
        case request = 3
        /// The response to request `id`.
        case response = 4
        /// Request `id` failed; body is a UTF-8 reason.
        case failure = 5
        /// The sender is closing; body is a UTF-8 reason.
        case goodbye = 6
    }

    static let headerLength = 1 + 8 + 1
    /// The most bytes of type name and body one frame can carry.
    static let capacity = ChannelFrame.maximumBodyLength - ChannelSealer.overhead - headerLength

    package var kind: Kind
    /// How the body is written (JSON unless the kind byte's high bit is set).
    package var bodyFormat: ChannelBodyFormat
    package var id: UInt64
    package var type: String
    /// The body as the coders take and give it: a near-limit message is 64 KB, and keeping
    /// it as `Data` spares a copy on each side of the coder.
    package var bodyData: Data

    /// The body's bytes (for the UTF-8 reasons of failures and goodbyes).
    package var body: [UInt8] { Array(bodyData) }

    /// Bytes ``write(to:)`` writes.
    package var encodedLength: Int { Self.headerLength + type.utf8.count + bodyData.count }

    /// Writes the plaintext to seal at the end of `buffer` (the sealer encrypts it there); the
    /// body is copied once, into the buffer that is sent. Returns the bytes written.
    @discardableResult
    package func write(to buffer: inout ByteBuffer) -> Int {
        var written = buffer.writeInteger(kind.rawValue | (bodyFormat == .cbor ? ChannelBodyFormat.cborKindBit : 0))
        written += buffer.writeInteger(id, endianness: .big)
        written += buffer.writeInteger(UInt8(type.utf8.count))
        written += buffer.writeString(type)
        // Through its bytes: a copy in one piece, whatever Data's Sequence conformance offers.
        written += bodyData.withUnsafeBytes { buffer.writeBytes($0) }
        return written
    }

    /// The plaintext to seal, as bytes (for tests and tools that speak the protocol byte by byte).
    package var encoded: [UInt8] {
        var buffer = ByteBuffer()
        buffer.reserveCapacity(encodedLength)
        write(to: &buffer)
        return Array(buffer.readableBytesView)
    }

    package init(kind: Kind, id: UInt64 = 0, type: String = "", body: [UInt8] = [], bodyFormat: ChannelBodyFormat = .json) {
        self.init(kind: kind, id: id, type: type, bodyData: Data(body), bodyFormat: bodyFormat)
    }

    package init(kind: Kind, id: UInt64, type: String, bodyData: Data, bodyFormat: ChannelBodyFormat = .json) {
        self.kind = kind
        self.bodyFormat = bodyFormat
        self.id = id
        self.type = type
        self.bodyData = bodyData
    }

    /// Parses an opened frame's plaintext.
    /// - Throws: ``ChannelProtocolError/Kind/malformedMessage`` naming what is wrong.
    package init(parsing plaintext: ByteBuffer) throws(ChannelProtocolError) {
        var buffer = plaintext
        guard let kindByte = buffer.readInteger(as: UInt8.self),
              let id = buffer.readInteger(endianness: .big, as: UInt64.self),
              let typeLength = buffer.readInteger(as: UInt8.self)
        else {
            throw ChannelProtocolError(.malformedMessage, "a message is at least \(Self.headerLength) bytes, this one \(plaintext.readableBytes)")
        }
        guard let kind = Kind(rawValue: kindByte & ~ChannelBodyFormat.cborKindBit) else {
            throw ChannelProtocolError(.malformedMessage, "unknown message kind \(kindByte)")
        }
        let bodyFormat: ChannelBodyFormat = kindByte & ChannelBodyFormat.cborKindBit == 0 ? .json : .cbor
        guard bodyFormat == .json || [.message, .request, .response].contains(kind) else {
            throw ChannelProtocolError(.malformedMessage, "a \(kind) envelope marked as carrying a CBOR body, which only messages, requests and responses carry")
        }
        guard let typeBytes = buffer.readSlice(length: Int(typeLength)) else {
            throw ChannelProtocolError(.malformedMessage, "the type name runs past the end of the message")
        }
        guard let type = String(validating: typeBytes.readableBytesView, as: UTF8.self) else {
            throw ChannelProtocolError(.malformedMessage, "the type name is not UTF-8")
        }
        self.kind = kind
        self.bodyFormat = bodyFormat
        self.id = id
        self.type = type
        // Both decoders take Data: the one copy of a received body.
        self.bodyData = buffer.withUnsafeReadableBytes { Data($0) }
    }

    /// Parses plaintext given as bytes (the fuzz target's and tests' form).
    package init(parsing bytes: [UInt8]) throws(ChannelProtocolError) {
        try self.init(parsing: ByteBuffer(bytes: bytes))
    }

    /// The envelope of `message` with its body in `format`, refusing one too large for a frame.
    package static func encoding(_ message: any GroupMessage, kind: Kind, id: UInt64, format: ChannelBodyFormat = .json) throws(GroupMessagingError) -> ChannelEnvelope {
        let type = Swift.type(of: message).messageType
        let typeLength = type.utf8.count
        guard (1...255).contains(typeLength) else {
            throw GroupMessagingError(.invalidMessage, "message type names are 1 to 255 bytes; \(type.prefix(40)) is \(typeLength)")
        }
        let body: Data
        do {
            switch format {
            case .json: body = Data(try MessageJSONEncoder.encode(message))
            case .cbor: body = Data(try MessageCBOREncoder.encode(message))
            }
        } catch {
            throw GroupMessagingError(.invalidMessage, "a \(type) message does not encode: \(error)", underlyingError: error)
        }
        guard typeLength + body.count <= capacity else {
            throw GroupMessagingError(.invalidMessage, "a \(type) message encodes to \(body.count) bytes; with its type name a frame carries at most \(capacity); split it or send a reference to shared storage instead")
        }
        return ChannelEnvelope(kind: kind, id: id, type: type, bodyData: body, bodyFormat: format)
    }
}
