import NIOCore

/// Cuts the channel's byte stream into frame bodies (see ``ChannelFrame``), as slices of the
/// bytes received: no frame is copied. Run by NIO's `ByteToMessageHandler` on a connection, and
/// by `NIOSingleStepByteToMessageProcessor` where bytes come from elsewhere (the fuzz target).
///
/// A length prefix is judged as soon as its 4 bytes are there, before any of its body: a peer
/// cannot make this end wait for, and hold, a frame the protocol forbids.
package struct ChannelFrameDecoder: NIOSingleStepByteToMessageDecoder {
    package typealias InboundOut = ByteBuffer

    /// The exact length the first frame must announce, until it has been cut.
    private var firstFrameLength: UInt32?

    /// A decoder for any stream of frames.
    package init() {}

    /// A decoder for a connection, whose first frame is the peer's hello: any other length in
    /// the first prefix is refused at once, so a peer that has not even said hello cannot make
    /// this end wait for (and hold) a frame of up to ``ChannelFrame/maximumBodyLength``.
    package init(firstFrameLength: Int) {
        self.firstFrameLength = UInt32(firstFrameLength)
    }

    /// The next frame body, or `nil` until it has arrived whole.
    /// - Throws: ``ChannelProtocolError/Kind/badFrameLength`` as soon as a length prefix is zero
    ///   or above the maximum; ``ChannelProtocolError/Kind/badHandshake`` as soon as a first
    ///   frame announces another length than the one required.
    package mutating func decode(buffer: inout ByteBuffer) throws(ChannelProtocolError) -> ByteBuffer? {
        guard let length = buffer.getInteger(at: buffer.readerIndex, endianness: .big, as: UInt32.self) else { return nil }
        if let firstFrameLength, length != firstFrameLength {
            throw ChannelProtocolError(.badHandshake, "the first frame is a \(firstFrameLength)-byte hello; this one announced \(length) bytes")
        }
        guard length > 0, length <= ChannelFrame.maximumBodyLength else {
            throw ChannelProtocolError(.badFrameLength, "a frame announced \(length) bytes; frames carry 1 to \(ChannelFrame.maximumBodyLength)")
        }
        guard let frame = buffer.readLengthPrefixedSlice(endianness: .big, as: UInt32.self) else { return nil }
        firstFrameLength = nil
        return frame
    }

    /// As ``decode(buffer:)``; once the stream has ended, bytes that make no whole frame are
    /// ``ChannelProtocolError/Kind/truncatedFrame``.
    package mutating func decodeLast(buffer: inout ByteBuffer, seenEOF: Bool) throws(ChannelProtocolError) -> ByteBuffer? {
        if let frame = try decode(buffer: &buffer) { return frame }
        guard buffer.readableBytes == 0 else {
            throw ChannelProtocolError(.truncatedFrame, "the connection ended \(buffer.readableBytes) bytes into an unfinished frame")
        }
        return nil
    }
}
