import Foundation
@_spi(Benchmarks) @testable import GroupMessaging
import NIOCore
import NIOEmbedded
import SealedStorage
import XCTest

/// The body formats of the channel (docs/MESSAGING.md, "Body formats"): the readies list what
/// each end reads besides JSON, an end writes CBOR exactly to a peer that listed it, and the
/// kind byte's high bit marks a CBOR body. Real servers and clients are checked against peers
/// played by hand, byte by byte, of this version (ready body 0x01) and of the one before
/// (empty ready body).
final class ChannelBodyNegotiationTests: XCTestCase {
    private var sandbox: MessagingSandbox!

    override func setUpWithError() throws { sandbox = try MessagingSandbox() }
    override func tearDown() { sandbox.remove() }

    /// `{"seq": 41}` and `{"seq": 42}`, written out by hand in CBOR and in JSON.
    private static let cborPing41 = hexBytes("a163736571" + "1829")
    private static let cborPong42 = hexBytes("a163736571" + "182a")
    private static let jsonPing41 = Array(#"{"seq":41}"#.utf8)
    private static let jsonPong42 = Array(#"{"seq":42}"#.utf8)

    private func socket() throws -> GroupIPCName {
        try GroupIPCName(.socket, "n", in: MessagingSandbox.group, keyring: sandbox.keyring)
    }

    /// A server answering each `Ping` with the next `Pong`.
    private func startIncrementingServer() async throws -> GroupChannelServer {
        try await GroupChannelServer.start(
            try socket(), keyring: sandbox.keyring, accepting: GroupMessageTypes([Ping.self]),
            handlers: .init(request: { message, _ in Pong(seq: (message as! Ping).seq + 1) }))
    }

    /// A hand-played client of the real server at ``socket()`` whose ready carries `readyBody`;
    /// returns it and the server's ready body.
    private func handPlayedClient(readyBody: [UInt8]) async throws -> (SocketPlayedPeer, [UInt8]) {
        let path = try socket().rawValue
        let groupKey = try sandbox.keyring.groupKey(for: MessagingSandbox.group)
        return try await offThePool {
            let peer = try SocketPlayedPeer.client(connectingTo: path)
            let serverReady = try peer.handshake(keyID: groupKey.id, groupKey: groupKey.key, group: MessagingSandbox.group.rawValue, readyBody: readyBody)
            return (peer, serverReady)
        }
    }

    /// A real client of a server played by hand whose ready carries `readyBody`; returns the
    /// client, the peer and the client's ready body. The caller closes the client.
    private func handPlayedServer(readyBody: [UInt8]) async throws -> (GroupChannelClient, SocketPlayedPeer, [UInt8]) {
        let name = try socket()
        _ = try sandbox.keyring.containerURL(for: MessagingSandbox.group)
        let groupKey = try sandbox.keyring.groupKey(for: MessagingSandbox.group)
        let listener = Glibc.socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        defer {
            close(listener)
            unlink(name.rawValue)
        }
        XCTAssertEqual(SocketFile.withAddress(of: name.rawValue) { bind(listener, $0, $1) }, 0)
        XCTAssertEqual(listen(listener, 1), 0)
        let client = try GroupChannelClient(name, keyring: sandbox.keyring, accepting: GroupMessageTypes([Pong.self]))
        client.start()
        let (peer, clientReady) = try await offThePool {
            let peer = try SocketPlayedPeer.server(accepting: listener)
            return (peer, try peer.handshake(keyID: groupKey.id, groupKey: groupKey.key, group: MessagingSandbox.group.rawValue, readyBody: readyBody))
        }
        return (client, peer, clientReady)
    }

    /// What the real server answers a hand-played client whose ready carries `readyBody` and
    /// which sends `Ping(seq: 41)` as request 7 with kind byte `kind` and body `body`; and the
    /// server's ready body.
    private func serverAnswer(readyBody: [UInt8], kind: UInt8, body: [UInt8]) async throws -> (answer: [UInt8], serverReady: [UInt8]) {
        let server = try await startIncrementingServer()
        let (peer, serverReady) = try await handPlayedClient(readyBody: readyBody)
        let answer = try await offThePool {
            try peer.writeSealed(envelopeBytes(kind: kind, id: 7, type: Ping.messageType, body: body))
            return try peer.readSealed()
        }
        await server.close()
        return (answer, serverReady)
    }

    func testServerListsCBORInItsReadyAndAnswersACBORRequestInCBOR() async throws {
        let (answer, serverReady) = try await serverAnswer(readyBody: [0x01], kind: 0x83, body: Self.cborPing41)
        XCTAssertEqual(serverReady, [0x01])
        XCTAssertEqual(answer, envelopeBytes(kind: 0x84, id: 7, type: Pong.messageType, body: Self.cborPong42))
    }

    func testServerAnswersAClientWithAnEmptyReadyInJSON() async throws {
        let (answer, _) = try await serverAnswer(readyBody: [], kind: 0x03, body: Self.jsonPing41)
        XCTAssertEqual(answer, envelopeBytes(kind: 0x04, id: 7, type: Pong.messageType, body: Self.jsonPong42))
    }

    func testServerTakesAReadyListingAnUnknownFormatAndIgnoresTheByte() async throws {
        let (answer, _) = try await serverAnswer(readyBody: [0x7F], kind: 0x03, body: Self.jsonPing41)
        XCTAssertEqual(answer, envelopeBytes(kind: 0x04, id: 7, type: Pong.messageType, body: Self.jsonPong42), "answered, in JSON")
    }

    // MARK: The client against servers of this version and the one before

    /// A real client's `Ping(seq: 41)` request to a hand-played server whose ready carries
    /// `readyBody`, answered with `Pong(seq: 42)` written with kind byte `responseKind` and body
    /// `responseBody`: returns the request's plaintext as it arrived, the client's ready body
    /// and what the client's request returned.
    private func clientRequest(
        readyBody: [UInt8], responseKind: UInt8, responseBody: [UInt8]
    ) async throws -> (request: [UInt8], clientReady: [UInt8], response: (any GroupMessage)?) {
        let (client, peer, clientReady) = try await handPlayedServer(readyBody: readyBody)
        async let response = client.request(Ping(seq: 41), timeout: .seconds(60))
        let request = try await offThePool { try peer.readSealed() }
        let id = UInt64(request[1..<9].reduce(0) { $0 << 8 | UInt64($1) })
        try await offThePool { try peer.writeSealed(envelopeBytes(kind: responseKind, id: id, type: Pong.messageType, body: responseBody)) }
        let answer = try await response
        await client.close()
        return (request, clientReady, answer)
    }

    /// The type name and body of a request's plaintext: everything after kind and id.
    private static func typeAndBody(_ body: [UInt8]) -> [UInt8] {
        [UInt8(Ping.messageType.utf8.count)] + Array(Ping.messageType.utf8) + body
    }

    func testClientListsCBORInItsReadyAndSendsCBORToAServerListingIt() async throws {
        let (request, clientReady, response) = try await clientRequest(readyBody: [0x01], responseKind: 0x84, responseBody: Self.cborPong42)
        XCTAssertEqual(clientReady, [0x01])
        XCTAssertEqual(request.first, 0x83)
        XCTAssertEqual(Array(request.dropFirst(9)), Self.typeAndBody(Self.cborPing41))
        XCTAssertEqual((response as? Pong)?.seq, 42, "the CBOR response was read")
    }

    func testClientSendsJSONToAServerWithAnEmptyReadyAndReadsItsJSON() async throws {
        let (request, _, response) = try await clientRequest(readyBody: [], responseKind: 0x04, responseBody: Self.jsonPong42)
        XCTAssertEqual(request.first, 0x03)
        XCTAssertEqual(Array(request.dropFirst(9)), Self.typeAndBody(Self.jsonPing41))
        XCTAssertEqual((response as? Pong)?.seq, 42, "the JSON response was read")
    }

    // MARK: Both ends of this version

    func testAClientAndAServerOfThisVersionExchangeMessagesBothWays() async throws {
        let (messages, received) = AsyncStream.makeStream(of: Int.self)
        let server = try await GroupChannelServer.start(
            try socket(), keyring: sandbox.keyring, accepting: GroupMessageTypes([Ping.self]),
            handlers: .init(message: { message, _ in received.yield((message as! Ping).seq) },
                            request: { message, _ in Pong(seq: (message as! Ping).seq + 1) }))
        let (pushes, pushed) = AsyncStream.makeStream(of: Int.self)
        let client = try GroupChannelClient(
            try socket(), keyring: sandbox.keyring, accepting: GroupMessageTypes([Pong.self]),
            handlers: .init(message: { pushed.yield(($0 as! Pong).seq) }))
        client.start()
        _ = try await client.connected()
        try await client.send(Ping(seq: 1))
        let response = try await client.request(Ping(seq: 2), timeout: .seconds(60))
        let reached = try await server.broadcast(Pong(seq: 9))
        XCTAssertEqual(reached, 1)
        var messageIterator = messages.makeAsyncIterator()
        var pushIterator = pushes.makeAsyncIterator()
        let message = await messageIterator.next()
        let push = await pushIterator.next()
        XCTAssertEqual(message, 1)
        XCTAssertEqual((response as? Pong)?.seq, 3)
        XCTAssertEqual(push, 9)
        await client.close()
        await server.close()
    }

    // MARK: The pipeline: readies, marks and refusals

    /// A server's handshake handler after the hellos, its ready read; the peer is played by hand.
    private func serverAwaitingReady(_ peer: inout HandPlayedPeer) throws -> (EmbeddedChannel, PipelineEndRecorder) {
        let recorder = PipelineEndRecorder()
        let handshake = ChannelHandshakeHandler(
            .server(connectionID: 5, groupKey: { _ in HandPlayedPeer.groupKey }), group: HandPlayedPeer.group, timeout: .seconds(10))
        let channel = EmbeddedChannel(handlers: [handshake, recorder])
        try channel.activate()
        try channel.writeInbound(peer.helloBody)
        let frames = try channel.writtenFrames()
        peer.derive(with: try ChannelHello(parsing: frames[0].frameBody, expecting: .server))
        _ = try peer.open(frames[1])
        return (channel, recorder)
    }

    func testTheFormatsAPeersReadyListsReachTheConnectionAndUnknownBytesAreIgnored() throws {
        let readies: [([UInt8], ChannelReadableFormats)] = [
            ([], .jsonOnly), ([0x01], .current), ([0x7F], .jsonOnly), ([0x7F, 0x01, 0x02], .current),
        ]
        for (body, formats) in readies {
            var peer = HandPlayedPeer(.client)
            let (channel, recorder) = try serverAwaitingReady(&peer)
            try channel.writeInbound(peer.frame(ChannelEnvelope(kind: .ready, body: body)).frameBody)
            XCTAssertEqual(recorder.completed, [.init(connectionID: 5, peerReads: formats)], "\(body)")
            XCTAssertEqual(recorder.errors.count, 0)
        }
    }

    func testTheKindBytesHighBitMarksACBORBody() throws {
        for (kind, byte) in [(ChannelEnvelope.Kind.message, UInt8(0x82)), (.request, 0x83), (.response, 0x84)] {
            let envelope = ChannelEnvelope(kind: kind, id: 1, type: "ab", body: [0xA0], bodyFormat: .cbor)
            XCTAssertEqual(envelope.encoded, [byte, 0, 0, 0, 0, 0, 0, 0, 1, 2, 0x61, 0x62, 0xA0])
            XCTAssertEqual(try ChannelEnvelope(parsing: envelope.encoded), envelope)
        }
    }

    func testAReadyFailureOrGoodbyeMarkedCBORIsMalformed() {
        for byte: UInt8 in [0x81, 0x85, 0x86] {
            XCTAssertThrowsError(try ChannelEnvelope(parsing: [byte, 0, 0, 0, 0, 0, 0, 0, 0, 0])) { error in
                XCTAssertEqual((error as? ChannelProtocolError)?.kind, .malformedMessage, "0x\(String(byte, radix: 16))")
            }
        }
    }

    /// A connection handler (connection 3) established with a peer that reads `peerReads`,
    /// whose own ready listed `reads`.
    private func connection(reads: ChannelReadableFormats, peerReads: ChannelReadableFormats, _ delegate: RecordingConnectionDelegate) throws -> EmbeddedChannel {
        let channel = EmbeddedChannel(handler: ChannelConnectionHandler(delegate: delegate, provisionalID: 3, reads: reads))
        try channel.activate()
        channel.pipeline.fireUserInboundEventTriggered(ChannelHandshakeHandler.Completed(connectionID: 3, peerReads: peerReads))
        return channel
    }

    func testACBORBodyToAnEndWhoseReadyDidNotListCBORIsRefused() throws {
        let delegate = RecordingConnectionDelegate()
        let channel = try connection(reads: .jsonOnly, peerReads: .current, delegate)
        try channel.writeInbound(ChannelEnvelope(kind: .message, type: "note", body: [0xA0], bodyFormat: .cbor))
        XCTAssertEqual(delegate.received.count, 0)
        XCTAssertFalse(channel.isActive)
        XCTAssertTrue(delegate.ended.first?.reason.contains("malformedMessage") ?? false, "\(delegate.ended)")
    }

    func testAnEndWhoseReadyListedCBORReadsJSONBodiesToo() throws {
        let delegate = RecordingConnectionDelegate()
        let channel = try connection(reads: .current, peerReads: .jsonOnly, delegate)
        let json = ChannelEnvelope(kind: .message, type: "note", body: Array("{}".utf8))
        let cbor = ChannelEnvelope(kind: .message, type: "note", body: [0xA0], bodyFormat: .cbor)
        try channel.writeInbound(json)
        try channel.writeInbound(cbor)
        XCTAssertEqual(delegate.received, [json, cbor])
    }

    func testACBORBodyIsNeverWrittenToAPeerWhoseReadyDidNotListCBOR() throws {
        let channel = try connection(reads: .current, peerReads: .jsonOnly, RecordingConnectionDelegate())
        let written = channel.writeAndFlush(ChannelEnvelope(kind: .message, type: "note", body: [0xA0], bodyFormat: .cbor))
        XCTAssertThrowsError(try written.wait()) { error in
            XCTAssertEqual((error as? GroupMessagingError)?.code, .invalidMessage)
        }
        XCTAssertNil(try channel.readOutbound(as: ChannelEnvelope.self))
    }
}
