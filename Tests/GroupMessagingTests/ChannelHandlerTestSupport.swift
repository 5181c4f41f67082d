@testable import GroupMessaging
import NIOCore
import NIOEmbedded
import SealedStorage
import XCTest

/// The other end of a connection under test, played by hand: its hello, and once it has the
/// tested end's hello, its sealer. Both ends derive the same keys from the same group key.
struct HandPlayedPeer {
    static let group = "group.com.example.msg"
    static let groupKey = try! SymmetricKey(bytes: [UInt8](repeating: 9, count: 32))
    static let keyID: UInt32 = 7

    let hello: ChannelHello
    private(set) var sealer: ChannelSealer?

    /// A peer playing `role`, asking for key `keyID`.
    init(_ role: ChannelHello.Role, keyID: UInt32 = Self.keyID) {
        hello = ChannelHello(role: role, keyID: keyID, nonce: [UInt8](repeating: role == .client ? 1 : 2, count: ChannelHello.nonceLength))
    }

    /// The peer's hello as a whole frame.
    var helloFrame: ByteBuffer { ByteBuffer(bytes: ChannelFrame.encode(hello.encoded)) }

    /// The peer's hello as the decoder hands it on: the frame's body.
    var helloBody: ByteBuffer { ByteBuffer(bytes: hello.encoded) }

    /// Derives the connection's keys once the tested end's hello (`other`) is known.
    mutating func derive(with other: ChannelHello, groupKey: SymmetricKey = Self.groupKey) {
        let (client, server) = hello.role == .client ? (hello, other) : (other, hello)
        sealer = ChannelSealer(keys: ChannelKeys(groupKey: groupKey, group: Self.group, clientHello: client, serverHello: server), role: hello.role)
    }

    /// `envelope` sealed as this peer's next frame, length prefix included.
    mutating func frame(_ envelope: ChannelEnvelope) -> ByteBuffer {
        sealer!.sealedFrame(envelope, allocator: ByteBufferAllocator())
    }

    /// Opens the next frame (length prefix included) the tested end wrote.
    mutating func open(_ frame: ByteBuffer) throws -> ChannelEnvelope {
        var frame = frame
        let body = try XCTUnwrap(frame.readLengthPrefixedSlice(as: UInt32.self))
        XCTAssertEqual(frame.readableBytes, 0, "one frame per write")
        return try ChannelEnvelope(parsing: sealer!.open(body))
    }
}

/// Records what reaches the end of a pipeline under test: envelopes, user events, errors.
final class PipelineEndRecorder: ChannelInboundHandler {
    typealias InboundIn = ChannelEnvelope

    private(set) var envelopes: [ChannelEnvelope] = []
    private(set) var completed: [ChannelHandshakeHandler.Completed] = []
    private(set) var errors: [any Error] = []

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        envelopes.append(unwrapInboundIn(data))
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if let event = event as? ChannelHandshakeHandler.Completed { completed.append(event) }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        errors.append(error)
    }

    /// The kinds of the protocol errors recorded, in order.
    var errorKinds: [ChannelProtocolError.Kind] { errors.compactMap { ($0 as? ChannelProtocolError)?.kind } }
}

extension EmbeddedChannel {
    /// Every frame written so far, in order.
    func writtenFrames() throws -> [ByteBuffer] {
        var frames: [ByteBuffer] = []
        while let frame = try readOutbound(as: ByteBuffer.self) { frames.append(frame) }
        return frames
    }

    /// Makes the channel active, as a connected socket is.
    func activate() throws {
        try connect(to: SocketAddress(unixDomainSocketPath: "/tmp/x")).wait()
    }
}

extension ByteBuffer {
    /// The body of a whole frame (length prefix removed).
    var frameBody: ByteBuffer {
        var frame = self
        return frame.readLengthPrefixedSlice(as: UInt32.self)!
    }
}
