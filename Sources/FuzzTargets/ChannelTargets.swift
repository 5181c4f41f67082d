import GroupMessaging
import NIOCore
import SealedStorage

extension FuzzTarget {
    /// GroupMessaging's frame decoder, hello parser and envelope parser on arbitrary bytes.
    ///
    /// The first byte chooses where the stream is cut in two; the decoder, run by NIO's
    /// `NIOSingleStepByteToMessageProcessor` as `ByteToMessageHandler` runs it on a connection,
    /// must give the same frames as a model that reads the stream in one piece (4-byte
    /// big-endian length, body of 1...65536 bytes), and refuse only with badFrameLength. The
    /// decoder a connection uses, which requires the first frame to be a hello's length, reads
    /// the same stream: it must refuse with badHandshake exactly when the first prefix announces
    /// another length, and otherwise agree with the plain decoder. Every frame body is also fed to the hello and
    /// envelope parsers: an accepted hello must encode back to the same bytes.
    static let channelFrames = FuzzTarget(
        name: "channel-frames",
        summary: "ChannelFrameDecoder agrees with the frame format however the stream is cut; hello/envelope parsers never crash",
        run: { input throws(FuzzFinding) in
            guard let cut = input.first else { return .refused }
            let stream = Array(input.dropFirst())
            let split = min(Int(cut), stream.count)
            let model = ChannelFrameModel.frames(stream)
            let (frames, refusal) = read(stream, cutAt: split, with: ChannelFrameDecoder())
            if let refusal {
                try expect(refusal.kind == .badFrameLength, "the decoder refused with \(refusal.kind); only badFrameLength is possible")
                try expect(model.badLength, "the decoder refused a stream whose lengths are all valid")
            } else {
                try expect(!model.badLength, "the decoder accepted a frame length the format forbids")
            }
            try expect(refusal != nil || frames == model.frames, "the decoder gave \(frames.count) frames, the model \(model.frames.count)")
            try checkConnectionReader(on: stream, split: split, plainFrames: refusal == nil ? frames : nil)
            for frame in frames {
                if let hello = try? ChannelHello(parsing: frame, expecting: .client) {
                    try expect(hello.encoded == frame, "a parsed hello does not encode back to its bytes")
                }
                _ = try? ChannelEnvelope(parsing: frame)
            }
            return frames.isEmpty ? .refused : .accepted
        },
        seeds: {
            let hello = ChannelHello(role: .client, keyID: 1, nonce: [UInt8](repeating: 7, count: 32))
            let envelope = ChannelEnvelope(kind: .message, type: "com.example.ping", body: Array("{\"seq\":1}".utf8))
            return [
                "valid-hello": [3] + ChannelFrame.encode(hello.encoded),
                "valid-two-frames-cut-in-header": [6] + ChannelFrame.encode(envelope.encoded) + ChannelFrame.encode([1, 2, 3]),
                "valid-envelope": [200] + ChannelFrame.encode(envelope.encoded),
                "zero-length": [0, 0, 0, 0, 0],
                "over-maximum": [2, 0, 1, 0, 1, 0xAA],
                "unfinished": [1, 0, 0, 0, 9, 1, 2],
                "first-frame-not-a-hello": [2] + ChannelFrame.encode(envelope.encoded),
            ]
        })

    /// Opening sealed frames: with fixed keys, anything but the exact frames sealed by the
    /// other end, in order, must be refused as authenticationFailed, outOfOrder or
    /// malformedMessage; what opens must be what was sealed.
    static let channelSealed = FuzzTarget(
        name: "channel-sealed",
        summary: "ChannelSealer opens only frames sealed with the connection key, in order",
        run: { input throws(FuzzFinding) in
            var receiver = ChannelSealedModel.server()
            let plaintext: [UInt8]
            do throws(ChannelProtocolError) {
                plaintext = try receiver.open(input)
            } catch {
                let allowed: [ChannelProtocolError.Kind] = [.authenticationFailed, .outOfOrder, .malformedMessage]
                try expect(allowed.contains(error.kind), "unexpected refusal \(error.kind)")
                return .refused
            }
            try expect(input == ChannelSealedModel.genuine[0] && plaintext == ChannelSealedModel.plaintext,
                       "a frame the client never sealed as its first was opened")
            return .accepted
        },
        seeds: {
            var flipped = ChannelSealedModel.genuine[0]
            flipped[flipped.count - 1] ^= 1
            return [
                "valid-first-frame": ChannelSealedModel.genuine[0],
                "second-frame-first": ChannelSealedModel.genuine[1],
                "flipped-tag": flipped,
                "short": [0, 0, 0],
            ]
        })
}

/// The frames `decoder` cuts from `stream` given in two pieces, cut at `split`, up to its
/// refusal if it refuses.
private func read(_ stream: [UInt8], cutAt split: Int, with decoder: ChannelFrameDecoder) -> (frames: [[UInt8]], refusal: ChannelProtocolError?) {
    let processor = NIOSingleStepByteToMessageProcessor(decoder)
    var frames: [[UInt8]] = []
    do {
        for piece in [stream[..<split], stream[split...]] {
            try processor.process(buffer: ByteBuffer(bytes: piece)) { frames.append(Array($0.readableBytesView)) }
        }
    } catch let error as ChannelProtocolError {
        return (frames, error)
    } catch {
        // The processor throws only what the decoder throws: it is given no buffer limit.
        preconditionFailure("the frame decoder threw \(error), which is not a ChannelProtocolError")
    }
    return (frames, nil)
}

/// The connection's decoder (first frame: a hello's length) on `stream` cut at `split`, against
/// the plain decoder's result (`plainFrames`, `nil` when it refused).
private func checkConnectionReader(on stream: [UInt8], split: Int, plainFrames: [[UInt8]]?) throws(FuzzFinding) {
    let (frames, refusal) = read(stream, cutAt: split, with: ChannelFrameDecoder(firstFrameLength: ChannelHello.encodedLength))
    let firstLength = stream.count >= 4 ? stream[0..<4].reduce(0) { $0 << 8 | Int($1) } : nil
    if let firstLength, firstLength != ChannelHello.encodedLength {
        try expect(refusal?.kind == .badHandshake, "a first frame of \(firstLength) bytes was not refused as a bad handshake")
        return
    }
    if let plainFrames {
        try expect(refusal == nil && frames == plainFrames, "the connection's decoder disagrees with the plain decoder on a stream that starts with a hello")
    } else {
        try expect(refusal?.kind == .badFrameLength, "the connection's decoder accepted a stream the plain decoder refused, or refused it otherwise")
    }
}

/// The frame format read in one piece, as docs/MESSAGING.md states it.
enum ChannelFrameModel {
    static func frames(_ stream: [UInt8]) -> (frames: [[UInt8]], badLength: Bool) {
        var frames: [[UInt8]] = []
        var offset = 0
        while stream.count - offset >= 4 {
            let length = Int(stream[offset]) << 24 | Int(stream[offset + 1]) << 16 | Int(stream[offset + 2]) << 8 | Int(stream[offset + 3])
            if length == 0 || length > 65_536 { return (frames, true) }
            guard stream.count - offset - 4 >= length else { break }
            frames.append(Array(stream[(offset + 4)..<(offset + 4 + length)]))
            offset += 4 + length
        }
        return (frames, false)
    }
}

/// Fixed keys for ``FuzzTarget/channelSealed``: deterministic, so seeds stay valid.
enum ChannelSealedModel {
    static let plaintext = Array("fuzz".utf8)

    static func keys() -> ChannelKeys {
        let groupKey = try! SymmetricKey(bytes: [UInt8](repeating: 0x42, count: 32))
        return ChannelKeys(
            groupKey: groupKey, group: "group.com.example.fuzz",
            clientHello: ChannelHello(role: .client, keyID: 1, nonce: [UInt8](repeating: 1, count: 32)),
            serverHello: ChannelHello(role: .server, keyID: 1, nonce: [UInt8](repeating: 2, count: 32)))
    }

    static func server() -> ChannelSealer { ChannelSealer(keys: keys(), role: .server) }

    /// The client's first two frames, each carrying ``plaintext``.
    static let genuine: [[UInt8]] = {
        var client = ChannelSealer(keys: keys(), role: .client)
        return [client.seal(plaintext), client.seal(plaintext)]
    }()
}
