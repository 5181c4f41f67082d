import NIOCore
import SealedStorage

/// What a ``ChannelConnectionHandler`` reports to its server or client. Called on the
/// connection's event loop, in the order things happen on the connection.
protocol ChannelConnectionDelegate: AnyObject, Sendable {
    /// The group key with `id`, for a server answering a client hello; `nil` refuses.
    func groupKey(id: UInt32) -> SymmetricKey?
    /// Both ends proved they hold the key; `connectionID` is the server-assigned id.
    func established(connectionID: UInt64, channel: any Channel)
    /// An authentic envelope of kind message, request, response or failure arrived. Throwing
    /// closes the connection with the error as the reason.
    func received(_ envelope: ChannelEnvelope, connectionID: UInt64, channel: any Channel) throws(ChannelProtocolError)
    /// The connection is gone; `reason` says why (a protocol violation, the peer's goodbye, EOF).
    func ended(connectionID: UInt64?, reason: String)
}

/// The protocol of one connection, for either end: hello exchange, key derivation, the
/// ready exchange, then sealed envelopes. Outbound, it takes ``ChannelEnvelope``s and writes
/// sealed frames; inbound, it takes the frames ``ChannelFrameDecoder`` cut (run by NIO's
/// `ByteToMessageHandler` before it), opens them and reports envelopes to its delegate.
///
/// Any violation closes the connection after a sealed goodbye naming the reason (when keys
/// exist), and is reported to the delegate: one bad peer never affects another connection.
final class ChannelConnectionHandler: ChannelDuplexHandler {
    /// The most bytes one connection may have waiting to be written before its peer counts as
    /// not reading and is closed: a thousand near-limit frames, enough for any burst an end
    /// sends faster than a healthy peer reads, and a bound on what a stalled one costs.
    static let maximumPendingBytes = 64 << 20
    /// The write-buffer water marks that make a channel unwritable past ``maximumPendingBytes``.
    static let waterMark = ChannelOptions.Types.WriteBufferWaterMark(low: maximumPendingBytes / 2, high: maximumPendingBytes)

    typealias InboundIn = ByteBuffer
    typealias OutboundIn = ChannelEnvelope
    typealias OutboundOut = ByteBuffer

    private enum State {
        case awaitingHello
        case awaitingReady(ChannelSealer)
        case established(ChannelSealer)
        case closed
    }

    private let role: ChannelHello.Role
    private let delegate: any ChannelConnectionDelegate
    private let group: String
    /// The client's key (id and bytes); the server looks keys up by the client's hello.
    private let clientKey: (id: UInt32, key: SymmetricKey)?
    /// The id the server gives this connection once it is established.
    private let serverConnectionID: UInt64
    /// How long a peer may take to complete the handshake before it is closed.
    private let handshakeTimeout: TimeAmount
    private var state = State.awaitingHello
    private var ownHello: ChannelHello?
    private var connectionID: UInt64?
    private var endReason: String?
    /// Closes the connection if the handshake is not done in time; cancelled once it is, or
    /// once the connection ends, so that the timer does not keep this handler alive.
    private var handshakeTimer: Scheduled<Void>?

    /// A client end holding `key`.
    init(clientKey key: SymmetricKey, keyID: UInt32, group: String, delegate: any ChannelConnectionDelegate) {
        role = .client
        clientKey = (keyID, key)
        serverConnectionID = 0
        handshakeTimeout = .seconds(30)
        self.group = group
        self.delegate = delegate
    }

    /// A server end; the connection becomes `connectionID` once the client proves its key.
    init(serverConnectionID: UInt64, group: String, handshakeTimeout: TimeAmount, delegate: any ChannelConnectionDelegate) {
        role = .server
        clientKey = nil
        self.serverConnectionID = serverConnectionID
        self.handshakeTimeout = handshakeTimeout
        self.group = group
        self.delegate = delegate
    }

    func channelActive(context: ChannelHandlerContext) {
        if role == .client, let clientKey {
            let hello = ChannelHello(role: .client, keyID: clientKey.id, nonce: SecureRandom.bytes(count: ChannelHello.nonceLength))
            ownHello = hello
            writeFrame(hello.encoded, context: context)
        }
        // A peer that connects and stays silent must not hold a connection (and its memory)
        // forever: whoever has not proved the key in time is closed.
        let loopBoundSelf = NIOLoopBound(self, eventLoop: context.eventLoop)
        let loopBoundContext = NIOLoopBound(context, eventLoop: context.eventLoop)
        handshakeTimer = context.eventLoop.scheduleTask(in: handshakeTimeout) {
            let handler = loopBoundSelf.value
            switch handler.state {
            case .awaitingHello, .awaitingReady:
                handler.fail(ChannelProtocolError(.badHandshake, "no handshake within \(handler.handshakeTimeout)"), context: loopBoundContext.value)
            case .established, .closed:
                break
            }
        }
        context.fireChannelActive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        // Frames that arrive after a violation or a goodbye are ignored: the close is under way.
        if case .closed = state { return }
        do {
            try handle(unwrapInboundIn(data), context: context)
        } catch {
            fail(error, context: context)
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        state = .closed
        handshakeTimer?.cancel()
        handshakeTimer = nil
        delegate.ended(connectionID: connectionID ?? (role == .server ? serverConnectionID : nil), reason: endReason ?? "the peer closed the connection")
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        // The decoder's refusals (a bad length, a stream ending inside a frame) are the peer's
        // violations, answered like the others.
        if let error = error as? ChannelProtocolError {
            if case .closed = state { return }
            fail(error, context: context)
            return
        }
        if endReason == nil { endReason = "connection error: \(error)" }
        context.close(promise: nil)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        let envelope = unwrapOutboundIn(data)
        guard case .established(var sealer) = state else {
            promise?.fail(GroupMessagingError(.notConnected, "the connection is not established (or already closed)"))
            return
        }
        // Broadcasts and responses are written without waiting for the peer: one that stops
        // reading would make this end hold everything sent to it. Past the limit it is closed
        // (its messages are lost, as for any connection that dies) instead.
        guard context.channel.isWritable else {
            promise?.fail(GroupMessagingError(.notConnected, "the peer is not reading; the connection is closed"))
            end("the peer is not reading: more than \(Self.maximumPendingBytes >> 20) MiB wait to be written to it", context: context)
            return
        }
        let frame = sealer.sealedFrame(envelope, allocator: context.channel.allocator)
        state = .established(sealer)
        context.write(wrapOutboundOut(frame), promise: promise)
    }

    // MARK: Protocol

    private func handle(_ frame: ByteBuffer, context: ChannelHandlerContext) throws(ChannelProtocolError) {
        switch state {
        case .awaitingHello:
            try handleHello(frame, context: context)
        case .awaitingReady(var sealer):
            let envelope = try ChannelEnvelope(parsing: sealer.open(frame, allocator: context.channel.allocator))
            guard envelope.kind == .ready else {
                throw ChannelProtocolError(.unexpectedFrame, "expected the peer's ready, got a \(envelope.kind) envelope")
            }
            state = .established(sealer)
            handshakeTimer?.cancel()
            handshakeTimer = nil
            let id = role == .server ? serverConnectionID : envelope.id
            connectionID = id
            delegate.established(connectionID: id, channel: context.channel)
        case .established(var sealer):
            let envelope = try ChannelEnvelope(parsing: sealer.open(frame, allocator: context.channel.allocator))
            state = .established(sealer)
            switch envelope.kind {
            case .ready:
                throw ChannelProtocolError(.unexpectedFrame, "a second ready on an established connection")
            case .goodbye:
                // The peer's words: shown escaped, never as terminal control sequences.
                endReason = "the peer said goodbye: " + UntrustedText.printable(String(decoding: envelope.body, as: UTF8.self), limit: 500)
                state = .closed
                context.close(promise: nil)
            case .message, .request, .response, .failure:
                try delegate.received(envelope, connectionID: connectionID ?? 0, channel: context.channel)
            }
        case .closed:
            return
        }
    }

    private func handleHello(_ frame: ByteBuffer, context: ChannelHandlerContext) throws(ChannelProtocolError) {
        let keys: ChannelKeys
        switch role {
        case .server:
            let clientHello = try ChannelHello(parsing: frame, expecting: .client)
            guard let key = delegate.groupKey(id: clientHello.keyID) else {
                throw ChannelProtocolError(.badHandshake, "the client asks for group key #\(clientHello.keyID), which this server cannot open")
            }
            let serverHello = ChannelHello(role: .server, keyID: clientHello.keyID, nonce: SecureRandom.bytes(count: ChannelHello.nonceLength))
            writeFrame(serverHello.encoded, context: context)
            keys = ChannelKeys(groupKey: key, group: group, clientHello: clientHello, serverHello: serverHello)
        case .client:
            let serverHello = try ChannelHello(parsing: frame, expecting: .server)
            guard let clientKey, let ownHello, serverHello.keyID == clientKey.id else {
                throw ChannelProtocolError(.badHandshake, "the server answered with key #\(serverHello.keyID), not the key this client asked for")
            }
            keys = ChannelKeys(groupKey: clientKey.key, group: group, clientHello: ownHello, serverHello: serverHello)
        }
        var sealer = ChannelSealer(keys: keys, role: role)
        let ready = ChannelEnvelope(kind: .ready, id: role == .server ? serverConnectionID : 0)
        writeFrame(sealer.sealedFrame(ready, allocator: context.channel.allocator), context: context)
        state = .awaitingReady(sealer)
    }

    /// Says goodbye with the reason (sealed, when keys exist) and closes.
    private func fail(_ error: ChannelProtocolError, context: ChannelHandlerContext) {
        end(error.description, context: context)
    }

    /// Says goodbye with `reason` (sealed, when keys exist) and closes.
    private func end(_ reason: String, context: ChannelHandlerContext) {
        endReason = reason
        switch state {
        case .awaitingReady(var sealer), .established(var sealer):
            let goodbye = ChannelEnvelope(kind: .goodbye, body: Array(reason.utf8.prefix(1000)))
            writeFrame(sealer.sealedFrame(goodbye, allocator: context.channel.allocator), context: context)
        case .awaitingHello, .closed:
            break
        }
        state = .closed
        context.close(promise: nil)
    }

    private func writeFrame(_ body: [UInt8], context: ChannelHandlerContext) {
        context.writeAndFlush(wrapOutboundOut(Self.frame(body, allocator: context.channel.allocator)), promise: nil)
    }

    private func writeFrame(_ frame: ByteBuffer, context: ChannelHandlerContext) {
        context.writeAndFlush(wrapOutboundOut(frame), promise: nil)
    }

    static func frame(_ body: [UInt8], allocator: ByteBufferAllocator) -> ByteBuffer {
        var buffer = allocator.buffer(capacity: ChannelFrame.headerLength + body.count)
        buffer.writeChannelFrame { $0.writeBytes(body) }
        return buffer
    }
}
