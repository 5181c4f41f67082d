import NIOCore
import SealedStorage

/// Seals and opens the frames of one connection after the handshake.
///
/// A sealed frame body is `counter (8, big endian) | ciphertext | tag (16)`. Each direction has
/// its own key and its own counter, starting at 0 and going up by one per frame. The nonce is
/// 16 zero bytes followed by the counter (unique, because a key seals one direction of one
/// connection and the counter never repeats), and the additional data is
/// `"GVM1" | direction (C or S) | counter`, so a frame cannot be moved to the other direction,
/// and the receiver accepts exactly the next counter: replayed, reordered or dropped frames are
/// refused.
///
/// It works on `ByteBuffer`s: a frame is sealed in place in the buffer that is sent, and opened
/// from the received slice straight into the plaintext's buffer.
package struct ChannelSealer: Sendable {
    static let counterLength = 8
    /// Bytes a sealed frame adds to its plaintext.
    package static let overhead = counterLength + XChaCha20Poly1305.tagByteCount

    private let sendKey: SymmetricKey
    private let receiveKey: SymmetricKey
    private let sendDirection: ChannelHello.Role
    private var sendCounter: UInt64 = 0
    private var receiveCounter: UInt64 = 0

    /// A sealer for the end playing `role`.
    package init(keys: ChannelKeys, role: ChannelHello.Role) {
        sendDirection = role
        sendKey = role == .client ? keys.clientToServer : keys.serverToClient
        receiveKey = role == .client ? keys.serverToClient : keys.clientToServer
    }

    /// Writes the next sealed frame body at the end of `buffer`: the counter, then the plaintext
    /// `writePlaintext` writes, encrypted where it was written, then the tag. Returns the
    /// body's length (what `ByteBuffer.writeChannelFrame(_:)` takes).
    @discardableResult
    package mutating func seal(into buffer: inout ByteBuffer, writingPlaintext writePlaintext: (inout ByteBuffer) -> Void) -> Int {
        let counter = sendCounter
        sendCounter += 1
        let start = buffer.writerIndex
        buffer.writeInteger(counter, endianness: .big)
        let plaintextOffset = buffer.writerIndex - buffer.readerIndex
        writePlaintext(&buffer)
        buffer.writeRepeatingByte(0, count: XChaCha20Poly1305.tagByteCount)  // the tag's place
        let counterBytes = Self.bigEndian(counter)
        let (key, direction) = (sendKey, sendDirection)
        buffer.withUnsafeMutableReadableBytes { readable in
            XChaCha20Poly1305.sealInPlace(
                UnsafeMutableRawBufferPointer(rebasing: readable[plaintextOffset...]), using: key,
                nonce: Self.nonce(counterBytes), authenticating: Self.additionalData(direction: direction, counterBytes))
        }
        return buffer.writerIndex - start
    }

    /// The plaintext of `body`, the next sealed frame body from the peer, in a new buffer.
    /// - Throws: ``ChannelProtocolError`` (``ChannelProtocolError/Kind/outOfOrder`` for a
    ///   counter other than the next, ``ChannelProtocolError/Kind/authenticationFailed`` when
    ///   the tag does not verify, ``ChannelProtocolError/Kind/malformedMessage`` when too short).
    package mutating func open(_ body: ByteBuffer, allocator: ByteBufferAllocator = ByteBufferAllocator()) throws(ChannelProtocolError) -> ByteBuffer {
        guard body.readableBytes >= Self.overhead, let counter = body.getInteger(at: body.readerIndex, endianness: .big, as: UInt64.self) else {
            throw ChannelProtocolError(.malformedMessage, "a sealed frame is at least \(Self.overhead) bytes, this one \(body.readableBytes)")
        }
        guard counter == receiveCounter else {
            throw ChannelProtocolError(.outOfOrder, "expected frame \(receiveCounter), got frame \(counter): replayed, reordered or dropped")
        }
        let counterBytes = Self.bigEndian(counter)
        let peer: ChannelHello.Role = sendDirection == .client ? .server : .client
        let plaintextCount = body.readableBytes - Self.overhead
        var plaintext = allocator.buffer(capacity: plaintextCount)
        let key = receiveKey
        do {
            _ = try body.withUnsafeReadableBytes { sealed in
                try plaintext.writeWithUnsafeMutableBytes(minimumWritableBytes: plaintextCount) { output in
                    try XChaCha20Poly1305.open(
                        UnsafeRawBufferPointer(rebasing: sealed[Self.counterLength...]),
                        into: UnsafeMutableRawBufferPointer(rebasing: output[..<plaintextCount]), using: key,
                        nonce: Self.nonce(counterBytes), authenticating: Self.additionalData(direction: peer, counterBytes))
                    return plaintextCount
                }
            }
        } catch {
            throw ChannelProtocolError(.authenticationFailed, "frame \(counter) does not authenticate: forged, altered, or sealed without this group's key")
        }
        receiveCounter += 1
        return plaintext
    }

    /// The whole frame (length prefix included) carrying `envelope`, sealed, in one buffer
    /// allocated once at its final size.
    package mutating func sealedFrame(_ envelope: ChannelEnvelope, allocator: ByteBufferAllocator) -> ByteBuffer {
        var buffer = allocator.buffer(capacity: ChannelFrame.headerLength + Self.overhead + envelope.encodedLength)
        buffer.writeChannelFrame { body in seal(into: &body) { envelope.write(to: &$0) } }
        return buffer
    }

    /// The next frame body carrying `plaintext` (for tests and tools that speak the protocol
    /// byte by byte).
    package mutating func seal(_ plaintext: [UInt8]) -> [UInt8] {
        var buffer = ByteBuffer()
        seal(into: &buffer) { $0.writeBytes(plaintext) }
        return Array(buffer.readableBytesView)
    }

    /// The plaintext of the next frame body from the peer (see ``open(_:allocator:)``).
    package mutating func open(_ body: [UInt8]) throws(ChannelProtocolError) -> [UInt8] {
        Array(try open(ByteBuffer(bytes: body)).readableBytesView)
    }

    static func bigEndian(_ value: UInt64) -> [UInt8] {
        (0..<8).map { UInt8(truncatingIfNeeded: value >> (56 - 8 * $0)) }
    }

    static func nonce(_ counterBytes: [UInt8]) -> XChaCha20Poly1305.Nonce {
        try! XChaCha20Poly1305.Nonce(bytes: [UInt8](repeating: 0, count: 16) + counterBytes)  // 24 bytes by construction
    }

    static func additionalData(direction: ChannelHello.Role, _ counterBytes: [UInt8]) -> [UInt8] {
        Array("GVM1".utf8) + [direction.rawValue] + counterBytes
    }
}
