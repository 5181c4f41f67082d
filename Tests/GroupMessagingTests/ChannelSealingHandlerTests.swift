@testable import GroupMessaging
import NIOCore
import NIOEmbedded
import XCTest

/// `ChannelSealingHandler` alone, as the server end of an established connection, against a
/// client played by hand (docs/MESSAGING.md, "Sealed frames").
final class ChannelSealingHandlerTests: XCTestCase {
    private var client = HandPlayedPeer(.client)
    /// A copy of the server end's sealer, to forge frames the server itself sealed.
    private var server = HandPlayedPeer(.server)
    private var channel: EmbeddedChannel!
    private var recorder: PipelineEndRecorder!

    override func setUp() {
        super.setUp()
        client.derive(with: server.hello)
        server.derive(with: client.hello)
        recorder = PipelineEndRecorder()
        channel = EmbeddedChannel(handlers: [ChannelSealingHandler(sealer: server.sealer!), recorder])
    }

    private func message(_ number: UInt8) -> ChannelEnvelope {
        ChannelEnvelope(kind: .message, type: "note", body: Array("{\"n\":\(number)}".utf8))
    }

    func testFramesOpenInOrderIntoTheirEnvelopes() throws {
        try channel.writeInbound(client.frame(message(1)).frameBody)
        try channel.writeInbound(client.frame(message(2)).frameBody)
        XCTAssertEqual(recorder.envelopes, [message(1), message(2)])
        XCTAssertEqual(recorder.errors.count, 0)
    }

    func testReplayedFrameIsRefusedAsOutOfOrder() throws {
        let first = client.frame(message(1)).frameBody
        try channel.writeInbound(first)
        try channel.writeInbound(first)
        XCTAssertEqual(recorder.envelopes, [message(1)])
        XCTAssertEqual(recorder.errorKinds, [.outOfOrder])
    }

    func testFrameAheadOfItsTurnIsRefusedAsOutOfOrder() throws {
        _ = client.frame(message(1))
        try channel.writeInbound(client.frame(message(2)).frameBody)
        XCTAssertEqual(recorder.envelopes, [])
        XCTAssertEqual(recorder.errorKinds, [.outOfOrder])
    }

    func testAlteredFrameIsRefusedAsNotAuthentic() throws {
        var altered = Array(client.frame(message(1)).frameBody.readableBytesView)
        altered[ChannelSealer.counterLength] ^= 1
        try channel.writeInbound(ByteBuffer(bytes: altered))
        XCTAssertEqual(recorder.envelopes, [])
        XCTAssertEqual(recorder.errorKinds, [.authenticationFailed])
    }

    func testFrameSealedInTheOtherDirectionIsRefusedAsNotAuthentic() throws {
        try channel.writeInbound(server.frame(message(1)).frameBody)
        XCTAssertEqual(recorder.envelopes, [])
        XCTAssertEqual(recorder.errorKinds, [.authenticationFailed])
    }

    func testAuthenticPlaintextThatIsNoEnvelopeIsRefusedAsMalformed() throws {
        var sealer = client.sealer!
        try channel.writeInbound(ByteBuffer(bytes: sealer.seal([2, 0, 0])))
        XCTAssertEqual(recorder.errorKinds, [.malformedMessage])
    }

    func testFramesAfterARefusedOneAreNotOpened() throws {
        _ = client.frame(message(1))
        try channel.writeInbound(client.frame(message(2)).frameBody)
        try channel.writeInbound(client.frame(message(3)).frameBody)
        XCTAssertEqual(recorder.envelopes, [])
        XCTAssertEqual(recorder.errorKinds, [.outOfOrder], "one refusal; the connection is closing")
    }

    func testEnvelopesWrittenBecomeWholeSealedFramesWithCountersFromZero() throws {
        try channel.writeOutbound(message(1))
        try channel.writeOutbound(message(2))
        let frames = try channel.writtenFrames()
        XCTAssertEqual(frames.map { $0.frameBody.getInteger(at: $0.frameBody.readerIndex, as: UInt64.self) }, [0, 1])
        XCTAssertEqual(try frames.map { try client.open($0) }, [message(1), message(2)])
    }
}
