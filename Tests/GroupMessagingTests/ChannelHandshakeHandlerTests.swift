@testable import GroupMessaging
import NIOCore
import NIOEmbedded
import SealedStorage
import XCTest

/// `ChannelHandshakeHandler` alone, against a peer played by hand (docs/MESSAGING.md,
/// "Handshake"): hellos, keys, readies, its timeout, and how it leaves the pipeline.
final class ChannelHandshakeHandlerTests: XCTestCase {
    private static let connectionID: UInt64 = 5

    /// A server end's handshake (connection 5, opening only key #7) followed by a recorder.
    private func server(timeout: TimeAmount = .seconds(10)) throws -> (EmbeddedChannel, PipelineEndRecorder) {
        let recorder = PipelineEndRecorder()
        let handshake = ChannelHandshakeHandler(
            .server(connectionID: Self.connectionID, groupKey: { $0 == HandPlayedPeer.keyID ? HandPlayedPeer.groupKey : nil }),
            group: HandPlayedPeer.group, timeout: timeout)
        let channel = EmbeddedChannel(handlers: [handshake, recorder])
        try channel.activate()
        return (channel, recorder)
    }

    /// A client end's handshake (asking for key #7) followed by a recorder.
    private func client() throws -> (EmbeddedChannel, PipelineEndRecorder) {
        let recorder = PipelineEndRecorder()
        let handshake = ChannelHandshakeHandler(
            .client(keyID: HandPlayedPeer.keyID, key: HandPlayedPeer.groupKey), group: HandPlayedPeer.group, timeout: .seconds(30))
        let channel = EmbeddedChannel(handlers: [handshake, recorder])
        try channel.activate()
        return (channel, recorder)
    }

    /// A server that has exchanged hellos with `peer` and sent its ready (read and checked).
    private func serverAwaitingReady(_ peer: inout HandPlayedPeer) throws -> (EmbeddedChannel, PipelineEndRecorder) {
        let (channel, recorder) = try server()
        try channel.writeInbound(peer.helloBody)
        let frames = try channel.writtenFrames()
        XCTAssertEqual(frames.count, 2, "the server's hello and its ready")
        peer.derive(with: try ChannelHello(parsing: frames[0].frameBody, expecting: .server))
        XCTAssertEqual(try peer.open(frames[1]).kind, .ready)
        return (channel, recorder)
    }

    func testClientSendsItsHelloNamingItsKeyAsSoonAsItIsConnected() throws {
        let (channel, _) = try client()
        let frames = try channel.writtenFrames()
        XCTAssertEqual(frames.count, 1)
        let hello = try ChannelHello(parsing: frames[0].frameBody, expecting: .client)
        XCTAssertEqual(hello.keyID, HandPlayedPeer.keyID)
    }

    func testServerAnswersAClientHelloWithItsHelloForTheSameKeyAndASealedReadyCarryingTheConnectionID() throws {
        let (channel, _) = try server()
        var peer = HandPlayedPeer(.client)
        try channel.writeInbound(peer.helloBody)
        let frames = try channel.writtenFrames()
        XCTAssertEqual(frames.count, 2)
        let serverHello = try ChannelHello(parsing: frames[0].frameBody, expecting: .server)
        XCTAssertEqual(serverHello.keyID, HandPlayedPeer.keyID)
        peer.derive(with: serverHello)
        let ready = try peer.open(frames[1])
        XCTAssertEqual(ready.kind, .ready)
        XCTAssertEqual(ready.id, Self.connectionID)
    }

    func testClientAnswersTheServersHelloWithASealedReady() throws {
        let (channel, _) = try client()
        let clientHello = try ChannelHello(parsing: try channel.writtenFrames()[0].frameBody, expecting: .client)
        var peer = HandPlayedPeer(.server)
        peer.derive(with: clientHello)
        try channel.writeInbound(peer.helloBody)
        let frames = try channel.writtenFrames()
        XCTAssertEqual(frames.count, 1)
        let ready = try peer.open(frames[0])
        XCTAssertEqual(ready.kind, .ready)
        XCTAssertEqual(ready.id, 0)
    }

    func testPeersReadyCompletesTheHandshakeWithTheConnectionID() throws {
        var peer = HandPlayedPeer(.client)
        let (channel, recorder) = try serverAwaitingReady(&peer)
        XCTAssertEqual(recorder.completed, [])
        try channel.writeInbound(peer.frame(ChannelEnvelope(kind: .ready)).frameBody)
        XCTAssertEqual(recorder.completed, [.init(connectionID: Self.connectionID)])
        XCTAssertEqual(recorder.errors.count, 0)
    }

    func testClientTakesItsConnectionIDFromTheServersReady() throws {
        let (channel, recorder) = try client()
        let clientHello = try ChannelHello(parsing: try channel.writtenFrames()[0].frameBody, expecting: .client)
        var peer = HandPlayedPeer(.server)
        peer.derive(with: clientHello)
        try channel.writeInbound(peer.helloBody)
        try channel.writeInbound(peer.frame(ChannelEnvelope(kind: .ready, id: 42)).frameBody)
        XCTAssertEqual(recorder.completed, [.init(connectionID: 42)])
    }

    func testCompletedHandshakeRemovesItselfAndLeavesTheSealingHandlerInItsPlace() throws {
        var peer = HandPlayedPeer(.client)
        let (channel, _) = try serverAwaitingReady(&peer)
        try channel.writeInbound(peer.frame(ChannelEnvelope(kind: .ready)).frameBody)
        XCTAssertThrowsError(try channel.pipeline.syncOperations.handler(type: ChannelHandshakeHandler.self))
        XCTAssertNoThrow(try channel.pipeline.syncOperations.handler(type: ChannelSealingHandler.self))
    }

    func testFramesAfterTheReadyInTheSameReadAreOpenedBySealing() throws {
        let recorder = PipelineEndRecorder()
        let channel = EmbeddedChannel(handlers: [
            ByteToMessageHandler(ChannelFrameDecoder(firstFrameLength: ChannelHello.encodedLength)),
            ChannelHandshakeHandler(
                .server(connectionID: Self.connectionID, groupKey: { _ in HandPlayedPeer.groupKey }), group: HandPlayedPeer.group, timeout: .seconds(10)),
            recorder,
        ])
        try channel.activate()
        var peer = HandPlayedPeer(.client)
        try channel.writeInbound(peer.helloFrame)
        peer.derive(with: try ChannelHello(parsing: try channel.writtenFrames()[0].frameBody, expecting: .server))
        let message = ChannelEnvelope(kind: .message, type: "ping", body: Array("{}".utf8))
        var oneRead = peer.frame(ChannelEnvelope(kind: .ready))
        var second = peer.frame(message)
        oneRead.writeBuffer(&second)
        try channel.writeInbound(oneRead)
        XCTAssertEqual(recorder.completed, [.init(connectionID: Self.connectionID)])
        XCTAssertEqual(recorder.envelopes, [message])
    }

    func testHelloFromAnEndOfTheSameRoleIsRefused() throws {
        let (channel, recorder) = try server()
        try channel.writeInbound(HandPlayedPeer(.server).helloBody)
        XCTAssertEqual(recorder.errorKinds, [.badHandshake])
        XCTAssertEqual(recorder.completed, [])
    }

    func testHelloThatDoesNotStartWithTheMagicIsRefused() throws {
        let (channel, recorder) = try server()
        var hello = HandPlayedPeer(.client).hello.encoded
        hello[0] = UInt8(ascii: "X")
        try channel.writeInbound(ByteBuffer(bytes: hello))
        XCTAssertEqual(recorder.errorKinds, [.badHandshake])
    }

    func testClientHelloNamingAKeyTheServerCannotOpenIsRefusedUnanswered() throws {
        let (channel, recorder) = try server()
        try channel.writeInbound(HandPlayedPeer(.client, keyID: HandPlayedPeer.keyID + 1).helloBody)
        XCTAssertEqual(recorder.errorKinds, [.badHandshake])
        XCTAssertEqual(try channel.writtenFrames().count, 0, "no hello for a client the server cannot serve")
    }

    func testServerHelloNamingAnotherKeyThanTheClientAskedForIsRefused() throws {
        let (channel, recorder) = try client()
        _ = try channel.writtenFrames()
        try channel.writeInbound(HandPlayedPeer(.server, keyID: HandPlayedPeer.keyID + 1).helloBody)
        XCTAssertEqual(recorder.errorKinds, [.badHandshake])
        XCTAssertEqual(try channel.writtenFrames().count, 0, "no ready to a server holding another key")
    }

    func testPeerThatDoesNotCompleteTheHandshakeInTimeIsRefused() throws {
        let (channel, recorder) = try server(timeout: .seconds(10))
        channel.embeddedEventLoop.advanceTime(by: .seconds(9))
        XCTAssertEqual(recorder.errors.count, 0)
        channel.embeddedEventLoop.advanceTime(by: .seconds(1))
        XCTAssertEqual(recorder.errorKinds, [.badHandshake])
        XCTAssertTrue((recorder.errors.first as? ChannelProtocolError)?.reason.contains("no handshake within") == true)
    }

    func testCompletedHandshakeIsNotTimedOutLater() throws {
        var peer = HandPlayedPeer(.client)
        let (channel, recorder) = try serverAwaitingReady(&peer)
        try channel.writeInbound(peer.frame(ChannelEnvelope(kind: .ready)).frameBody)
        channel.embeddedEventLoop.advanceTime(by: .seconds(60))
        XCTAssertEqual(recorder.errors.count, 0)
    }

    func testReadyThatDoesNotOpenIsRefusedAsNotAuthentic() throws {
        var peer = HandPlayedPeer(.client)
        let (channel, recorder) = try serverAwaitingReady(&peer)
        var forged = Array(peer.frame(ChannelEnvelope(kind: .ready)).frameBody.readableBytesView)
        forged[forged.count - 1] ^= 1
        try channel.writeInbound(ByteBuffer(bytes: forged))
        XCTAssertEqual(recorder.errorKinds, [.authenticationFailed])
        XCTAssertEqual(recorder.completed, [])
    }

    func testGoodbyeWrittenOnceTheHellosAreExchangedIsSealedForThePeer() throws {
        var peer = HandPlayedPeer(.client)
        let (channel, _) = try serverAwaitingReady(&peer)
        let goodbye = ChannelEnvelope(kind: .goodbye, body: Array("authenticationFailed: frame 0".utf8))
        try channel.writeAndFlush(goodbye).wait()
        XCTAssertEqual(try channel.writtenFrames().map { try peer.open($0) }, [goodbye])
    }

    func testGoodbyeWrittenBeforeTheHellosIsDroppedForWantOfKeys() throws {
        let (channel, _) = try server()
        XCTAssertThrowsError(try channel.writeAndFlush(ChannelEnvelope(kind: .goodbye)).wait()) {
            XCTAssertEqual(($0 as? GroupMessagingError)?.code, .notConnected)
        }
        XCTAssertEqual(try channel.writtenFrames().count, 0)
    }

    func testFirstSealedFrameOtherThanAReadyIsRefused() throws {
        var peer = HandPlayedPeer(.client)
        let (channel, recorder) = try serverAwaitingReady(&peer)
        try channel.writeInbound(peer.frame(ChannelEnvelope(kind: .message, type: "ping", body: Array("{}".utf8))).frameBody)
        XCTAssertEqual(recorder.errorKinds, [.unexpectedFrame])
        XCTAssertEqual(recorder.completed, [])
    }
}
