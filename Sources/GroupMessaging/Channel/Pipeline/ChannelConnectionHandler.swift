import NIOCore
import SealedStorage

/// What a ``ChannelConnectionHandler`` reports to its server or client. Called on the
/// connection's event loop, in the order things happen on the connection.
protocol ChannelConnectionDelegate: AnyObject, Sendable {
    /// The group key with `id`, for a server answering a client hello; `nil` refuses.
    func groupKey(id: UInt32) -> SymmetricKey?
    /// Both ends proved they hold the key; `connectionID` is the server-assigned id, and the
    /// peer reads the body formats `peerReads` (bodies written to it use `peerReads.preferred`).
    func established(connectionID: UInt64, channel: any Channel, peerReads: ChannelReadableFormats)
    /// An authentic envelope of kind message, request, response or failure arrived. Throwing
    /// closes the connection with the error as the reason.
    func received(_ envelope: ChannelEnvelope, connectionID: UInt64, channel: any Channel) throws(ChannelProtocolError)
    /// The connection is gone; `reason` says why (a protocol violation, the peer's goodbye, EOF).
    func ended(connectionID: UInt64?, reason: String)
}

/// The last handler of a connection: it tells the server or client (its delegate) what
/// happens on the connection, and applies backpressure to what they send.
///
/// Inbound it takes the envelopes ``ChannelSealingHandler`` opened and the
/// ``ChannelHandshakeHandler/Completed`` event; outbound it takes envelopes and refuses them
/// until the handshake is done. It owns the end of the connection: any error that reaches it
/// (a protocol violation found by a handler before it, or one of the delegate's) is recorded
/// as the reason the connection ended, answered with a goodbye naming it (sealed by the handler
/// before this one; dropped if no keys exist yet), and closes the connection. The reason is
/// recorded before anything is written: a write to a peer that has gone closes the connection
/// at once, and its end must still say why. One bad peer never affects another connection.
final class ChannelConnectionHandler: ChannelDuplexHandler {
    /// The most bytes one connection may have waiting to be written before its peer counts as
    /// not reading and is closed: a thousand near-limit frames, enough for any burst an end
    /// sends faster than a healthy peer reads, and a bound on what a stalled one costs.
    static let maximumPendingBytes = 64 << 20
    /// The write-buffer water marks that make a channel unwritable past ``maximumPendingBytes``.
    static let waterMark = ChannelOptions.Types.WriteBufferWaterMark(low: maximumPendingBytes / 2, high: maximumPendingBytes)

    typealias InboundIn = ChannelEnvelope
    typealias OutboundIn = ChannelEnvelope
    typealias OutboundOut = ChannelEnvelope

    private enum State {
        case handshaking
        case established(connectionID: UInt64, peerReads: ChannelReadableFormats)
        case closed
    }

    private let delegate: any ChannelConnectionDelegate
    /// The id a server gave the connection before its handshake, reported if it ends before
    /// completing it; `nil` on a client, which learns its id from the server's ready.
    private let provisionalID: UInt64?
    /// What this end's ready listed: a body in another format is a violation.
    private let reads: ChannelReadableFormats
    private var state = State.handshaking
    private var connectionID: UInt64?
    private var endReason: String?

    /// The handler of a connection reporting to `delegate`; a server passes the id it gave it.
    /// `reads` is what the handshake's ready listed.
    init(delegate: any ChannelConnectionDelegate, provisionalID: UInt64?, reads: ChannelReadableFormats = .current) {
        self.delegate = delegate
        self.provisionalID = provisionalID
        self.reads = reads
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        guard let completed = event as? ChannelHandshakeHandler.Completed else {
            context.fireUserInboundEventTriggered(event)
            return
        }
        guard case .handshaking = state else { return }
        state = .established(connectionID: completed.connectionID, peerReads: completed.peerReads)
        connectionID = completed.connectionID
        delegate.established(connectionID: completed.connectionID, channel: context.channel, peerReads: completed.peerReads)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        // Envelopes opened after a violation or a goodbye are ignored: the close is under way.
        guard case .established(let connectionID, _) = state else { return }
        let envelope = unwrapInboundIn(data)
        do throws(ChannelProtocolError) {
            guard reads.reads(envelope.bodyFormat) else {
                throw ChannelProtocolError(.malformedMessage, "a \(envelope.kind) with a CBOR body, which this end's ready did not list")
            }
            switch envelope.kind {
            case .ready:
                throw ChannelProtocolError(.unexpectedFrame, "a second ready on an established connection")
            case .goodbye:
                // The peer's words: shown escaped, never as terminal control sequences.
                endReason = "the peer said goodbye: " + UntrustedText.printable(String(decoding: envelope.body, as: UTF8.self), limit: 500)
                state = .closed
                context.close(promise: nil)
            case .message, .request, .response, .failure:
                try delegate.received(envelope, connectionID: connectionID, channel: context.channel)
            }
        } catch {
            end(error.description, context: context)
        }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        if case .closed = state { return }
        if let error = error as? ChannelProtocolError {
            end(error.description, context: context)
        } else {
            if endReason == nil { endReason = "connection error: \(error)" }
            context.close(promise: nil)
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        state = .closed
        delegate.ended(connectionID: connectionID ?? provisionalID, reason: endReason ?? "the peer closed the connection")
        context.fireChannelInactive()
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        guard case .established(_, let peerReads) = state else {
            promise?.fail(GroupMessagingError(.notConnected, "the connection is not established (or already closed)"))
            return
        }
        // Bodies are encoded for the connection their sender saw; one encoded for an earlier
        // connection whose peer read CBOR must not reach a peer that does not.
        let envelope = unwrapOutboundIn(data)
        guard peerReads.reads(envelope.bodyFormat) else {
            promise?.fail(GroupMessagingError(.invalidMessage, "a \(envelope.type) body was encoded as CBOR for an earlier connection; this peer reads only JSON; send it again"))
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
        context.write(data, promise: promise)
    }

    /// Records `reason`, says goodbye with it (sealed by the handler before this one) and closes.
    private func end(_ reason: String, context: ChannelHandlerContext) {
        if endReason == nil { endReason = reason }
        if case .closed = state { return }
        state = .closed
        let goodbye = ChannelEnvelope(kind: .goodbye, body: Array(reason.utf8.prefix(1000)))
        context.writeAndFlush(wrapOutboundOut(goodbye), promise: nil)
        context.close(promise: nil)
    }
}
