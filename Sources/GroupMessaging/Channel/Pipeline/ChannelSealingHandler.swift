import NIOCore

/// The sealing of an established connection: inbound, it opens each frame and parses the
/// envelope inside; outbound, it seals each envelope into a whole frame. Put in place by
/// ``ChannelHandshakeHandler`` with the connection's keys and counters once the ready frames
/// have been exchanged.
///
/// A frame that does not open (forged, replayed, reordered, from the other direction) or whose
/// plaintext is no envelope is passed on as an error, which closes the connection; frames
/// after it are not opened.
final class ChannelSealingHandler: ChannelDuplexHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ChannelEnvelope
    typealias OutboundIn = ChannelEnvelope
    typealias OutboundOut = ByteBuffer

    private var sealer: ChannelSealer
    /// Set once a frame was refused: the connection is closing.
    private var refused = false

    /// A handler sealing and opening with `sealer`, as the handshake left it.
    init(sealer: ChannelSealer) {
        self.sealer = sealer
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !refused else { return }
        do {
            let plaintext = try sealer.open(unwrapInboundIn(data), allocator: context.channel.allocator)
            context.fireChannelRead(wrapInboundOut(try ChannelEnvelope(parsing: plaintext)))
        } catch {
            refused = true
            context.fireErrorCaught(error)
        }
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        let frame = sealer.sealedFrame(unwrapOutboundIn(data), allocator: context.channel.allocator)
        context.write(wrapOutboundOut(frame), promise: promise)
    }
}
