@testable import GroupMessaging
import NIOCore
import NIOEmbedded
import SealedStorage
import XCTest

/// Records what a ``ChannelConnectionHandler`` tells its server or client.
final class RecordingConnectionDelegate: ChannelConnectionDelegate {
    struct Record {
        var established: [UInt64] = []
        var received: [ChannelEnvelope] = []
        var ended: [(id: UInt64?, reason: String)] = []
    }

    let record = Locked(Record())
    /// Thrown by ``received(_:connectionID:channel:)`` when set, as a server refuses an unknown type.
    let refusal: ChannelProtocolError?
    let groupKey: SymmetricKey?

    init(refusing refusal: ChannelProtocolError? = nil, groupKey: SymmetricKey? = nil) {
        self.refusal = refusal
        self.groupKey = groupKey
    }

    func groupKey(id: UInt32) -> SymmetricKey? { groupKey }
    func established(connectionID: UInt64, channel: any Channel, peerReads: ChannelReadableFormats) {
        record.withLock { $0.established.append(connectionID) }
    }
    func received(_ envelope: ChannelEnvelope, connectionID: UInt64, channel: any Channel) throws(ChannelProtocolError) {
        if let refusal { throw refusal }
        record.withLock { $0.received.append(envelope) }
    }
    func ended(connectionID: UInt64?, reason: String) { record.withLock { $0.ended.append((connectionID, reason)) } }

    var established: [UInt64] { record.withLock { $0.established } }
    var received: [ChannelEnvelope] { record.withLock { $0.received } }
    var ended: [(id: UInt64?, reason: String)] { record.withLock { $0.ended } }
}

/// A socket whose peer has gone: the first write closes the connection at once, as NIO does
/// when `write` fails with `EPIPE`.
private final class PeerGoneOnWrite: ChannelOutboundHandler {
    typealias OutboundIn = ChannelEnvelope

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        promise?.fail(ChannelError.ioOnClosedChannel)
        context.close(promise: nil)
    }
}

/// `ChannelConnectionHandler` alone, as a server's (connection 3): what it tells the delegate,
/// how it ends a connection, and the backpressure on what the server sends.
final class ChannelConnectionHandlerTests: XCTestCase {
    private static let connectionID: UInt64 = 3
    private static let note = ChannelEnvelope(kind: .message, type: "note", body: Array("{}".utf8))

    private func connection(_ delegate: RecordingConnectionDelegate, established: Bool = true) throws -> EmbeddedChannel {
        let channel = EmbeddedChannel(handler: ChannelConnectionHandler(delegate: delegate, provisionalID: Self.connectionID))
        try channel.activate()
        if established {
            channel.pipeline.fireUserInboundEventTriggered(ChannelHandshakeHandler.Completed(connectionID: Self.connectionID))
        }
        return channel
    }

    private func written(_ channel: EmbeddedChannel) throws -> [ChannelEnvelope] {
        var envelopes: [ChannelEnvelope] = []
        while let envelope = try channel.readOutbound(as: ChannelEnvelope.self) { envelopes.append(envelope) }
        return envelopes
    }

    func testCompletedHandshakeIsReportedOnceWithItsConnectionID() throws {
        let delegate = RecordingConnectionDelegate()
        let channel = try connection(delegate)
        channel.pipeline.fireUserInboundEventTriggered(ChannelHandshakeHandler.Completed(connectionID: 9))
        XCTAssertEqual(delegate.established, [Self.connectionID])
    }

    func testEnvelopesWrittenBeforeTheHandshakeCompletesAreRefusedAsNotConnected() throws {
        let channel = try connection(RecordingConnectionDelegate(), established: false)
        XCTAssertThrowsError(try channel.writeAndFlush(Self.note).wait()) {
            XCTAssertEqual(($0 as? GroupMessagingError)?.code, .notConnected)
        }
        XCTAssertEqual(try written(channel), [])
    }

    func testEnvelopesReceivedReachTheDelegateInOrder() throws {
        let delegate = RecordingConnectionDelegate()
        let channel = try connection(delegate)
        let request = ChannelEnvelope(kind: .request, id: 1, type: "ask", body: Array("{}".utf8))
        try channel.writeInbound(Self.note)
        try channel.writeInbound(request)
        XCTAssertEqual(delegate.received, [Self.note, request])
    }

    func testSecondReadyEndsTheConnectionWithAGoodbyeNamingWhy() throws {
        let delegate = RecordingConnectionDelegate()
        let channel = try connection(delegate)
        try channel.writeInbound(ChannelEnvelope(kind: .ready))
        let goodbye = try XCTUnwrap(try written(channel).first)
        XCTAssertEqual(goodbye.kind, .goodbye)
        XCTAssertTrue(String(decoding: goodbye.body, as: UTF8.self).hasPrefix("unexpectedFrame:"))
        XCTAssertFalse(channel.isActive)
        XCTAssertEqual(delegate.ended.map(\.id), [Self.connectionID])
        XCTAssertTrue(delegate.ended.first?.reason.hasPrefix("unexpectedFrame:") == true)
    }

    func testEnvelopeTheDelegateRefusesEndsTheConnectionWithItsReason() throws {
        let delegate = RecordingConnectionDelegate(refusing: ChannelProtocolError(.unknownMessageType, "type \"x\" is not registered"))
        let channel = try connection(delegate)
        try channel.writeInbound(Self.note)
        XCTAssertEqual(try written(channel).map(\.kind), [.goodbye])
        XCTAssertFalse(channel.isActive)
        XCTAssertTrue(delegate.ended.first?.reason.hasPrefix("unknownMessageType:") == true)
    }

    func testPeersGoodbyeEndsTheConnectionWithItsReasonEscaped() throws {
        let delegate = RecordingConnectionDelegate()
        let channel = try connection(delegate)
        try channel.writeInbound(ChannelEnvelope(kind: .goodbye, body: Array("done\u{1B}[2J".utf8)))
        XCTAssertFalse(channel.isActive)
        XCTAssertEqual(try written(channel), [], "no goodbye answers a goodbye")
        let reason = try XCTUnwrap(delegate.ended.first?.reason)
        XCTAssertTrue(reason.hasPrefix("the peer said goodbye: done"), reason)
        XCTAssertFalse(reason.unicodeScalars.contains("\u{1B}"), reason)
    }

    func testProtocolErrorFromAHandlerBeforeItEndsTheConnectionWithAGoodbye() throws {
        let delegate = RecordingConnectionDelegate()
        let channel = try connection(delegate)
        channel.pipeline.fireErrorCaught(ChannelProtocolError(.outOfOrder, "expected frame 2, got frame 1"))
        let goodbye = try XCTUnwrap(try written(channel).first)
        XCTAssertEqual(String(decoding: goodbye.body, as: UTF8.self), "outOfOrder: expected frame 2, got frame 1")
        XCTAssertFalse(channel.isActive)
        XCTAssertEqual(delegate.ended.first?.reason, "outOfOrder: expected frame 2, got frame 1")
    }

    func testProtocolErrorDuringTheHandshakeEndsTheConnectionWithAGoodbyeNamingIt() throws {
        let delegate = RecordingConnectionDelegate()
        let channel = try connection(delegate, established: false)
        channel.pipeline.fireErrorCaught(ChannelProtocolError(.badHandshake, "no handshake within 10 s"))
        XCTAssertEqual(try written(channel).map { String(decoding: $0.body, as: UTF8.self) }, ["badHandshake: no handshake within 10 s"])
        XCTAssertFalse(channel.isActive)
        XCTAssertEqual(delegate.established, [])
        XCTAssertEqual(delegate.ended.map(\.id), [Self.connectionID])
        XCTAssertEqual(delegate.ended.first?.reason, "badHandshake: no handshake within 10 s")
    }

    func testViolationIsTheReasonEvenWhenWritingTheGoodbyeFindsThePeerGone() throws {
        let delegate = RecordingConnectionDelegate()
        let channel = EmbeddedChannel(handlers: [
            PeerGoneOnWrite(), ChannelConnectionHandler(delegate: delegate, provisionalID: Self.connectionID),
        ])
        try channel.activate()
        channel.pipeline.fireErrorCaught(ChannelProtocolError(.authenticationFailed, "frame 0 does not authenticate"))
        XCTAssertFalse(channel.isActive)
        XCTAssertEqual(delegate.ended.map(\.reason), ["authenticationFailed: frame 0 does not authenticate"])
    }

    func testPeerThatStopsReadingIsClosedAndTheWriteRefused() throws {
        let delegate = RecordingConnectionDelegate()
        let channel = try connection(delegate)
        channel.isWritable = false
        XCTAssertThrowsError(try channel.writeAndFlush(Self.note).wait()) {
            XCTAssertEqual(($0 as? GroupMessagingError)?.code, .notConnected)
        }
        XCTAssertEqual(try written(channel).map(\.kind), [.goodbye])
        XCTAssertFalse(channel.isActive)
        XCTAssertTrue(delegate.ended.first?.reason.contains("not reading") == true)
    }

    func testConnectionClosedByThePeerIsReportedOnce() throws {
        let delegate = RecordingConnectionDelegate()
        let channel = try connection(delegate)
        try channel.close().wait()
        XCTAssertEqual(delegate.ended.map(\.id), [Self.connectionID])
        XCTAssertEqual(delegate.ended.map(\.reason), ["the peer closed the connection"])
    }
}
