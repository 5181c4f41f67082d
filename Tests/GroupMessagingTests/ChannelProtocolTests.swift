@testable import GroupMessaging
import NIOCore
import SealedStorage
import XCTest

/// The frame format, the hello and the sealing, without sockets.
final class ChannelProtocolTests: XCTestCase {
    private func keys(clientNonce: UInt8 = 1) -> ChannelKeys {
        ChannelKeys(
            groupKey: try! SymmetricKey(bytes: [UInt8](repeating: 9, count: 32)), group: "group.com.example.msg",
            clientHello: ChannelHello(role: .client, keyID: 1, nonce: [UInt8](repeating: clientNonce, count: 32)),
            serverHello: ChannelHello(role: .server, keyID: 1, nonce: [UInt8](repeating: 2, count: 32)))
    }

    func testFramesFedOneByteAtATimeComeOutWhole() throws {
        let bodies: [[UInt8]] = [[1], Array(repeating: 2, count: 300), Array(repeating: 3, count: ChannelFrame.maximumBodyLength)]
        let stream = bodies.flatMap(ChannelFrame.encode)
        let processor = NIOSingleStepByteToMessageProcessor(ChannelFrameDecoder())
        var frames: [[UInt8]] = []
        for byte in stream {
            try processor.process(buffer: ByteBuffer(bytes: [byte])) { frames.append(Array($0.readableBytesView)) }
        }
        XCTAssertEqual(frames, bodies)
        XCTAssertNoThrow(try processor.finishProcessing(seenEOF: true) { _ in XCTFail("no frame is left") })
    }

    func testLengthAboveTheMaximumIsRefusedBeforeItsBodyArrives() {
        let processor = NIOSingleStepByteToMessageProcessor(ChannelFrameDecoder())
        XCTAssertThrowsError(try processor.process(buffer: ByteBuffer(bytes: [0, 1, 0, 1])) { _ in }) { error in
            XCTAssertEqual((error as! ChannelProtocolError).kind, .badFrameLength)
        }
    }

    func testStreamEndingInsideAFrameIsTruncated() throws {
        let processor = NIOSingleStepByteToMessageProcessor(ChannelFrameDecoder())
        try processor.process(buffer: ByteBuffer(bytes: [0, 0, 0, 5, 1, 2])) { _ in XCTFail("the frame is not whole") }
        XCTAssertThrowsError(try processor.finishProcessing(seenEOF: true) { _ in }) {
            XCTAssertEqual(($0 as! ChannelProtocolError).kind, .truncatedFrame)
        }
    }

    func testSealedFrameOpensOnceInOrderAndNeverTwice() throws {
        var client = ChannelSealer(keys: keys(), role: .client)
        var server = ChannelSealer(keys: keys(), role: .server)
        let first = client.seal([1]), second = client.seal([2])
        XCTAssertThrowsError(try server.open(second)) { XCTAssertEqual(($0 as! ChannelProtocolError).kind, .outOfOrder) }
        XCTAssertEqual(try server.open(first), [1])
        XCTAssertThrowsError(try server.open(first)) { XCTAssertEqual(($0 as! ChannelProtocolError).kind, .outOfOrder) }
        XCTAssertEqual(try server.open(second), [2])
    }

    func testFrameSealedForOneDirectionDoesNotOpenInTheOther() throws {
        var client = ChannelSealer(keys: keys(), role: .client)
        var otherClient = ChannelSealer(keys: keys(), role: .client)
        XCTAssertThrowsError(try otherClient.open(client.seal([1]))) {
            XCTAssertEqual(($0 as! ChannelProtocolError).kind, .authenticationFailed)
        }
    }

    func testFrameFromAnotherConnectionDoesNotOpen() throws {
        var oldClient = ChannelSealer(keys: keys(clientNonce: 1), role: .client)
        var newServer = ChannelSealer(keys: keys(clientNonce: 3), role: .server)
        XCTAssertThrowsError(try newServer.open(oldClient.seal([1]))) {
            XCTAssertEqual(($0 as! ChannelProtocolError).kind, .authenticationFailed)
        }
    }

    func testHelloOfTheWrongRoleOrVersionIsRefused() {
        var hello = ChannelHello(role: .server, keyID: 1, nonce: [UInt8](repeating: 0, count: 32)).encoded
        XCTAssertThrowsError(try ChannelHello(parsing: hello, expecting: .client))
        hello[4] = 2
        XCTAssertThrowsError(try ChannelHello(parsing: hello, expecting: .server)) { error in
            XCTAssertTrue((error as! ChannelProtocolError).reason.contains("version 2"))
        }
    }

    func testMessageTooLargeForAFrameIsRefusedWithTheLimit() {
        struct Big: GroupMessage {
            static let messageType = "big"
            var text: String
        }
        XCTAssertThrowsError(try ChannelEnvelope.encoding(Big(text: String(repeating: "x", count: 70_000)), kind: .message, id: 0)) { error in
            XCTAssertEqual((error as! GroupMessagingError).code, .invalidMessage)
            XCTAssertTrue((error as! GroupMessagingError).reason.contains("at most \(ChannelEnvelope.capacity)"))
        }
    }

    func testUnregisteredTypeIsRefusedNamingTheAllowList() {
        struct Ping: GroupMessage { static let messageType = "ping" }
        let types = GroupMessageTypes([Ping.self])
        XCTAssertThrowsError(try types.decode(name: "evil", body: Data("{}".utf8))) { error in
            XCTAssertEqual((error as! ChannelProtocolError).kind, .unknownMessageType)
            XCTAssertTrue((error as! ChannelProtocolError).reason.contains("allowed: ping"))
        }
    }
}
