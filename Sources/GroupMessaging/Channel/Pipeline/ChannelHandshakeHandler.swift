import NIOCore
import SealedStorage

/// The handshake of one connection, for either end: the hello exchange, the derivation of the
/// connection's keys, and the ready exchange (docs/MESSAGING.md, "Handshake").
///
/// Inbound it takes the frames ``ChannelFrameDecoder`` cuts; it writes whole frames. Once it
/// has opened the peer's ready it puts a ``ChannelSealingHandler`` holding the connection's
/// keys in its own place, tells the handlers after it with a ``Completed`` event, and removes
/// itself: the rest of the connection never passes through handshake code again.
///
/// A violation is passed on as an error, for ``ChannelConnectionHandler`` to record as the
/// reason and close the connection after a goodbye, which this handler seals once keys exist
/// (after the hellos) and drops before. A peer that has not completed the handshake within its
/// time is closed the same way.
final class ChannelHandshakeHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundIn = ChannelEnvelope
    typealias OutboundOut = ByteBuffer

    /// Sent to the handlers after this one once the connection is established.
    struct Completed: Sendable, Hashable {
        /// The id the server gave the connection (in its ready).
        let connectionID: UInt64
        /// The body formats the peer's ready listed: what this end may write to it.
        let peerReads: ChannelReadableFormats

        init(connectionID: UInt64, peerReads: ChannelReadableFormats = .jsonOnly) {
            self.connectionID = connectionID
            self.peerReads = peerReads
        }
    }

    /// Which end, with what it needs for the handshake.
    enum End {
        /// The connecting end, holding the group key `key` with id `keyID`.
        case client(keyID: UInt32, key: SymmetricKey)
        /// The listening end: gives the connection `connectionID` and looks up the key the
        /// client's hello names (`nil` refuses it).
        case server(connectionID: UInt64, groupKey: (UInt32) -> SymmetricKey?)
    }

    private enum State {
        case awaitingHello(own: ChannelHello?)
        case awaitingReady(ChannelSealer)
        /// Completed, or failed: later frames and errors are not this handler's.
        case finished
    }

    private let end: End
    private let group: String
    /// What this end's ready lists.
    private let reads: ChannelReadableFormats
    private let timeout: TimeAmount
    private var state = State.awaitingHello(own: nil)
    private var started = false
    /// Closes the connection if the handshake is not done in time; cancelled once it is, or
    /// once this handler leaves, so that the timer does not keep it alive.
    private var timer: Scheduled<Void>?

    /// The handshake of `end` in the application group `group`, to be done within `timeout`;
    /// its ready lists `reads` (what this version reads unless a test plays an older end).
    init(_ end: End, group: String, timeout: TimeAmount, reads: ChannelReadableFormats = .current) {
        self.end = end
        self.group = group
        self.reads = reads
        self.timeout = timeout
    }

    private var role: ChannelHello.Role {
        if case .client = end { return .client }
        return .server
    }

    func handlerAdded(context: ChannelHandlerContext) {
        if context.channel.isActive { begin(context: context) }
    }

    func channelActive(context: ChannelHandlerContext) {
        begin(context: context)
        context.fireChannelActive()
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        timer?.cancel()
        timer = nil
    }

    func channelInactive(context: ChannelHandlerContext) {
        timer?.cancel()
        timer = nil
        context.fireChannelInactive()
    }

    /// Sends the client's hello and starts the clock, once, when the connection is up.
    private func begin(context: ChannelHandlerContext) {
        guard !started else { return }
        started = true
        if case .client(let keyID, _) = end {
            let hello = ChannelHello(role: .client, keyID: keyID, nonce: SecureRandom.bytes(count: ChannelHello.nonceLength))
            state = .awaitingHello(own: hello)
            writeFrame(hello.encoded, context: context)
        }
        // A peer that connects and stays silent must not hold a connection (and its memory)
        // forever: whoever has not proved the key in time is closed.
        let handler = NIOLoopBound(self, eventLoop: context.eventLoop)
        let boundContext = NIOLoopBound(context, eventLoop: context.eventLoop)
        timer = context.eventLoop.scheduleTask(in: timeout) {
            let handler = handler.value
            if case .finished = handler.state { return }
            handler.fail(ChannelProtocolError(.badHandshake, "no handshake within \(handler.timeout)"), context: boundContext.value)
        }
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let frame = unwrapInboundIn(data)
        do throws(ChannelProtocolError) {
            switch state {
            case .awaitingHello(let own):
                try receiveHello(frame, own: own, context: context)
            case .awaitingReady(var sealer):
                let envelope = try ChannelEnvelope(parsing: sealer.open(frame, allocator: context.channel.allocator))
                guard envelope.kind == .ready else {
                    throw ChannelProtocolError(.unexpectedFrame, "expected the peer's ready, got a \(envelope.kind) envelope")
                }
                let connectionID: UInt64
                switch end {
                case .server(let id, _): connectionID = id
                case .client: connectionID = envelope.id
                }
                // The ready's type is ignored, as it always was; its body lists what the peer reads.
                complete(sealer: sealer, completed: Completed(connectionID: connectionID, peerReads: ChannelReadableFormats(readyBody: envelope.body)), context: context)
            case .finished:
                return
            }
        } catch {
            fail(error, context: context)
        }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        guard let error = error as? ChannelProtocolError else {
            context.fireErrorCaught(error)
            return
        }
        fail(error, context: context)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        // Only the connection handler's goodbye comes here: it refuses every other envelope
        // until the handshake has completed, and this handler is gone by then.
        let envelope = unwrapOutboundIn(data)
        guard envelope.kind == .goodbye, case .awaitingReady(var sealer) = state else {
            promise?.fail(GroupMessagingError(.notConnected, "the connection is not established; before the hellos nothing can be sealed"))
            return
        }
        let frame = sealer.sealedFrame(envelope, allocator: context.channel.allocator)
        state = .awaitingReady(sealer)
        context.write(wrapOutboundOut(frame), promise: promise)
    }

    private func receiveHello(_ frame: ByteBuffer, own: ChannelHello?, context: ChannelHandlerContext) throws(ChannelProtocolError) {
        let keys: ChannelKeys
        let ready: ChannelEnvelope
        switch end {
        case .server(let connectionID, let groupKey):
            let clientHello = try ChannelHello(parsing: frame, expecting: .client)
            guard let key = groupKey(clientHello.keyID) else {
                throw ChannelProtocolError(.badHandshake, "the client asks for group key #\(clientHello.keyID), which this server cannot open")
            }
            let serverHello = ChannelHello(role: .server, keyID: clientHello.keyID, nonce: SecureRandom.bytes(count: ChannelHello.nonceLength))
            writeFrame(serverHello.encoded, context: context)
            keys = ChannelKeys(groupKey: key, group: group, clientHello: clientHello, serverHello: serverHello)
            ready = ChannelEnvelope(kind: .ready, id: connectionID, body: reads.readyBody)
        case .client(let keyID, let key):
            let serverHello = try ChannelHello(parsing: frame, expecting: .server)
            guard let own, serverHello.keyID == keyID else {
                throw ChannelProtocolError(.badHandshake, "the server answered with key #\(serverHello.keyID), not the key this client asked for")
            }
            keys = ChannelKeys(groupKey: key, group: group, clientHello: own, serverHello: serverHello)
            ready = ChannelEnvelope(kind: .ready, id: 0, body: reads.readyBody)
        }
        // Each end sends its ready as soon as it has both hellos, without waiting for the peer's.
        var sealer = ChannelSealer(keys: keys, role: role)
        context.writeAndFlush(wrapOutboundOut(sealer.sealedFrame(ready, allocator: context.channel.allocator)), promise: nil)
        state = .awaitingReady(sealer)
    }

    private func complete(sealer: ChannelSealer, completed: Completed, context: ChannelHandlerContext) {
        state = .finished
        timer?.cancel()
        timer = nil
        do {
            try context.pipeline.syncOperations.addHandler(ChannelSealingHandler(sealer: sealer), position: .after(self))
        } catch {
            // Only a pipeline already torn down refuses a handler: the connection is closing.
            context.fireErrorCaught(error)
            return
        }
        // The event passes the sealing handler on its way: frames read after the ready (in
        // this same read, even) reach the sealing handler, which is in place now.
        context.fireUserInboundEventTriggered(completed)
        context.pipeline.syncOperations.removeHandler(context: context, promise: nil)
    }

    /// Passes the error on, which closes the connection. The keys stay until it returns, so
    /// that the goodbye the connection handler writes on its way out is sealed here.
    private func fail(_ error: ChannelProtocolError, context: ChannelHandlerContext) {
        if case .finished = state { return }
        timer?.cancel()
        timer = nil
        context.fireErrorCaught(error)
        state = .finished
    }

    private func writeFrame(_ body: [UInt8], context: ChannelHandlerContext) {
        var buffer = context.channel.allocator.buffer(capacity: ChannelFrame.headerLength + body.count)
        buffer.writeChannelFrame { $0.writeBytes(body) }
        context.writeAndFlush(wrapOutboundOut(buffer), promise: nil)
    }
}
