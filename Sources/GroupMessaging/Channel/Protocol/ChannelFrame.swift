import NIOCore

/// The framing of the channel: every frame is a 4-byte big-endian length followed by that many
/// bytes of body. The length counts the body only; a body is 1 to ``maximumBodyLength`` bytes.
///
/// One writer and one reader implement it: frames are written with
/// `ByteBuffer.writeChannelFrame(_:)` (NIO's `writeLengthPrefixed`) and cut from the stream by
/// `ChannelFrameDecoder` (NIO's `readLengthPrefixedSlice`), however the stream was split.
public enum ChannelFrame {
    /// Bytes of the length prefix.
    public static let headerLength = 4
    /// The largest frame body: 64 KiB. Bounds the memory a peer can make the other end hold.
    public static let maximumBodyLength = 65_536

    /// `body` with its length prefix, for tests and tools that speak the protocol byte by byte.
    package static func encode(_ body: [UInt8]) -> [UInt8] {
        var buffer = ByteBuffer()
        buffer.writeChannelFrame { $0.writeBytes(body) }
        return Array(buffer.readableBytesView)
    }
}

extension ByteBuffer {
    /// Writes one frame: the length prefix, then the body `writeBody` writes (returning how many
    /// bytes it wrote) straight into this buffer, so a body is never built apart and copied in.
    /// - Precondition: the body is 1 to ``ChannelFrame/maximumBodyLength`` bytes; every sender
    ///   bounds what it puts in a frame before it gets here (``ChannelEnvelope/capacity``).
    @discardableResult
    package mutating func writeChannelFrame(_ writeBody: (inout ByteBuffer) -> Int) -> Int {
        let written: Int
        do {
            written = try writeLengthPrefixed(as: UInt32.self) { body in writeBody(&body) }
        } catch {
            // Thrown only for a body over 4 GiB, which the precondition below excludes anyway.
            preconditionFailure("a frame body does not fit its length prefix: \(error)")
        }
        precondition((1...ChannelFrame.maximumBodyLength).contains(written - ChannelFrame.headerLength), "a frame body is 1...\(ChannelFrame.maximumBodyLength) bytes")
        return written
    }
}
