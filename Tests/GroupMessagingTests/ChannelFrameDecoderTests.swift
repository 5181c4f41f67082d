@testable import GroupMessaging
import GroupVaultTestKit
import NIOCore
import NIOEmbedded
import XCTest

/// `ChannelFrameDecoder` as a connection runs it: in NIO's `ByteToMessageHandler`, fed the
/// bytes a socket delivers (docs/MESSAGING.md, "Frames").
final class ChannelFrameDecoderTests: XCTestCase {
    private func decoding(firstFrameLength: Int? = nil) -> EmbeddedChannel {
        let decoder = firstFrameLength.map(ChannelFrameDecoder.init(firstFrameLength:)) ?? ChannelFrameDecoder()
        return EmbeddedChannel(handler: ByteToMessageHandler(decoder))
    }

    private func frames(from channel: EmbeddedChannel) throws -> [[UInt8]] {
        var frames: [[UInt8]] = []
        while let frame = try channel.readInbound(as: ByteBuffer.self) { frames.append(Array(frame.readableBytesView)) }
        return frames
    }

    private func refusal(of bytes: [UInt8], by channel: EmbeddedChannel) -> ChannelProtocolError? {
        do {
            try channel.writeInbound(ByteBuffer(bytes: bytes))
            return nil
        } catch {
            return error as? ChannelProtocolError
        }
    }

    func testFramesSplitAnywhereComeOutWholeAndInOrder() throws {
        var random = SeededGenerator()
        let bodies: [[UInt8]] = [[1], random.bytes(count: 300), random.bytes(count: ChannelFrame.maximumBodyLength), [4, 4]]
        let stream = bodies.flatMap(ChannelFrame.encode)
        for _ in 0..<20 {
            let channel = decoding()
            var offset = 0
            while offset < stream.count {
                // Pieces of a few bytes (inside a prefix) and of thousands (several frames).
                let longest = Bool.random(using: &random) ? 8 : 5_000
                let end = min(stream.count, offset + Int.random(in: 1...longest, using: &random))
                try channel.writeInbound(ByteBuffer(bytes: stream[offset..<end]))
                offset = end
            }
            XCTAssertEqual(try frames(from: channel), bodies, random.describe)
            XCTAssertTrue(try channel.finish().isClean, random.describe)
        }
    }

    func testFrameOfExactlyTheMaximumLengthIsCut() throws {
        let channel = decoding()
        let body = [UInt8](repeating: 7, count: ChannelFrame.maximumBodyLength)
        try channel.writeInbound(ByteBuffer(bytes: ChannelFrame.encode(body)))
        XCTAssertEqual(try frames(from: channel), [body])
    }

    func testLengthAboveTheMaximumIsRefusedAtItsPrefixBeforeItsBody() {
        let length = UInt32(ChannelFrame.maximumBodyLength + 1)
        let prefix = (0..<4).map { UInt8(truncatingIfNeeded: length >> (24 - 8 * $0)) }
        XCTAssertEqual(refusal(of: prefix, by: decoding())?.kind, .badFrameLength)
    }

    func testZeroLengthIsRefusedAtItsPrefix() {
        XCTAssertEqual(refusal(of: [0, 0, 0, 0], by: decoding())?.kind, .badFrameLength)
    }

    func testFirstFrameAnnouncingAnythingButAHelloIsRefusedAtItsPrefix() {
        XCTAssertEqual(refusal(of: [0, 0, 0, 43], by: decoding(firstFrameLength: ChannelHello.encodedLength))?.kind, .badHandshake)
    }

    func testAfterAHelloSizedFirstFrameOtherLengthsAreAllowed() throws {
        let channel = decoding(firstFrameLength: ChannelHello.encodedLength)
        let hello = [UInt8](repeating: 1, count: ChannelHello.encodedLength)
        try channel.writeInbound(ByteBuffer(bytes: ChannelFrame.encode(hello) + ChannelFrame.encode([2, 3])))
        XCTAssertEqual(try frames(from: channel), [hello, [2, 3]])
    }

    func testStreamEndingInsideAFrameIsTruncated() throws {
        let channel = decoding()
        try channel.writeInbound(ByteBuffer(bytes: [0, 0, 0, 5, 1, 2]))
        XCTAssertEqual(try frames(from: channel), [])
        XCTAssertThrowsError(try channel.finish()) { XCTAssertEqual(($0 as? ChannelProtocolError)?.kind, .truncatedFrame) }
    }

    func testStreamEndingInsideALengthPrefixIsTruncated() throws {
        let channel = decoding()
        try channel.writeInbound(ByteBuffer(bytes: [0, 0]))
        XCTAssertThrowsError(try channel.finish()) { XCTAssertEqual(($0 as? ChannelProtocolError)?.kind, .truncatedFrame) }
    }

    func testStreamEndingBetweenFramesIsClean() throws {
        let channel = decoding()
        try channel.writeInbound(ByteBuffer(bytes: ChannelFrame.encode([1])))
        XCTAssertEqual(try frames(from: channel), [[1]])
        XCTAssertTrue(try channel.finish().isClean)
    }
}
