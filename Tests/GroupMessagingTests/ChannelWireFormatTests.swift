@testable import GroupMessaging
import NIOCore
import SealedStorage
import XCTest

/// The bytes the channel puts on the wire, built here independently from docs/MESSAGING.md
/// ("Sealed frames"), against what the implementation writes: another implementation
/// interoperates only if these stay exactly the same.
final class ChannelWireFormatTests: XCTestCase {
    private let keys = ChannelKeys(
        groupKey: try! SymmetricKey(bytes: [UInt8](repeating: 9, count: 32)), group: "group.com.example.msg",
        clientHello: ChannelHello(role: .client, keyID: 1, nonce: [UInt8](repeating: 1, count: 32)),
        serverHello: ChannelHello(role: .server, keyID: 1, nonce: [UInt8](repeating: 2, count: 32)))

    /// `counter (8, big endian) | XChaCha20-Poly1305(plaintext)` with nonce `16 zero bytes ||
    /// counter` and additional data `"GVM1" || direction || counter`, as documented.
    private func documentedBody(_ plaintext: [UInt8], counter: UInt64, direction: UInt8, key: SymmetricKey) throws -> [UInt8] {
        let counterBytes = withUnsafeBytes(of: counter.bigEndian) { Array($0) }
        let sealed = XChaCha20Poly1305.seal(
            plaintext, using: key, nonce: try XChaCha20Poly1305.Nonce(bytes: [UInt8](repeating: 0, count: 16) + counterBytes),
            authenticating: Array("GVM1".utf8) + [direction] + counterBytes)
        return counterBytes + sealed
    }

    func testClientFramesAreSealedExactlyAsDocumented() throws {
        var sealer = ChannelSealer(keys: keys, role: .client)
        let plaintexts: [[UInt8]] = [[1, 2, 3], Array(repeating: 0x61, count: 1_000)]
        for (counter, plaintext) in plaintexts.enumerated() {
            XCTAssertEqual(sealer.seal(plaintext), try documentedBody(plaintext, counter: UInt64(counter), direction: 0x43, key: keys.clientToServer))
        }
    }

    func testServerFramesAreSealedExactlyAsDocumented() throws {
        var sealer = ChannelSealer(keys: keys, role: .server)
        XCTAssertEqual(sealer.seal([7]), try documentedBody([7], counter: 0, direction: 0x53, key: keys.serverToClient))
    }

    func testWholeSealedFrameIsTheBodyBehindItsLength() throws {
        var sealer = ChannelSealer(keys: keys, role: .client)
        let envelope = ChannelEnvelope(kind: .message, type: "ping", body: Array("{}".utf8))
        var frame = sealer.sealedFrame(envelope, allocator: ByteBufferAllocator())
        let body = try documentedBody(envelope.encoded, counter: 0, direction: 0x43, key: keys.clientToServer)
        XCTAssertEqual(frame.readInteger(as: UInt32.self), UInt32(body.count))
        XCTAssertEqual(Array(frame.readableBytesView), body)
    }

    func testEnvelopeIsKindIDTypeLengthTypeBody() {
        let envelope = ChannelEnvelope(kind: .request, id: 0x0102_0304_0506_0708, type: "ab", body: [0x7B, 0x7D])
        XCTAssertEqual(envelope.encoded, [3, 1, 2, 3, 4, 5, 6, 7, 8, 2, 0x61, 0x62, 0x7B, 0x7D])
        XCTAssertEqual(try ChannelEnvelope(parsing: envelope.encoded), envelope)
    }
}
