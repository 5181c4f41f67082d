import FixtureSupport
import Foundation
import GroupMessaging
import Keyring
import SealedStorage

/// `channel-attack --kind K`: a peer that holds the group key, completes the handshake, then
/// breaks the protocol in one way, to show the server refuses it and keeps serving others.
/// Kinds: oversized, truncated, replay, reorder, forge, unknown-type (its name `--type`, by
/// default `evil.type`: a test passes terminal controls there), malformed. Prints
/// `handshaken`, then `closed` when the server has closed the connection. Talks through a
/// blocking socket on purpose: it must be able to write what no correct client would.
enum ChannelAttack {
    static func run(_ options: FixtureOptions) async throws -> Int32 {
        let keyring = try options.keyring()
        let name = try ChannelFixture.socketName(options, keyring)
        let kind = try options.string("kind")
        let socket = try RawSocket(path: name.rawValue)
        let groupKey = try keyring.groupKey(for: name.group)

        let hello = ChannelHello(role: .client, keyID: groupKey.id, nonce: SecureRandom.bytes(count: ChannelHello.nonceLength))
        try socket.write(ChannelFrame.encode(hello.encoded))
        let serverHello = try ChannelHello(parsing: try socket.readFrame(), expecting: .server)
        var sealer = ChannelSealer(
            keys: ChannelKeys(groupKey: groupKey.key, group: name.group.rawValue, clientHello: hello, serverHello: serverHello),
            role: .client)
        _ = try sealer.open(try socket.readFrame())  // the server's ready
        try socket.write(ChannelFrame.encode(sealer.seal(ChannelEnvelope(kind: .ready).encoded)))
        printLine("handshaken")

        func note(_ seq: Int) throws -> [UInt8] {
            try ChannelEnvelope.encoding(FixtureNote(sender: "attacker", seq: seq, padding: ""), kind: .message, id: 0).encoded
        }
        // The server may close after the first bad frame; later writes failing is expected.
        do {
            try attack(kind, type: options.optionalString("type") ?? "evil.type", socket: socket, sealer: &sealer, note: note)
        } catch let error as UsageError {
            throw error
        } catch {
            printLine("write refused: \(error)")
        }
        socket.drainUntilClosed()
        printLine("closed")
        return 0
    }

    private static func attack(_ kind: String, type: String, socket: RawSocket, sealer: inout ChannelSealer, note: (Int) throws -> [UInt8]) throws {
        switch kind {
        case "oversized":
            let length = UInt32(ChannelFrame.maximumBodyLength + 1)
            try socket.write([UInt8(length >> 24), UInt8(length >> 16 & 0xFF), UInt8(length >> 8 & 0xFF), UInt8(length & 0xFF)] + [UInt8](repeating: 0, count: 1000))
        case "truncated":
            let frame = ChannelFrame.encode(sealer.seal(try note(1)))
            try socket.write(Array(frame.prefix(frame.count - 5)))
            socket.shutdownWrite()
        case "replay":
            let frame = ChannelFrame.encode(sealer.seal(try note(1)))
            try socket.write(frame)
            try socket.write(frame)
        case "reorder":
            let first = ChannelFrame.encode(sealer.seal(try note(1)))
            let second = ChannelFrame.encode(sealer.seal(try note(2)))
            try socket.write(second)
            try socket.write(first)
        case "forge":
            var frame = ChannelFrame.encode(sealer.seal(try note(1)))
            frame[frame.count - 1] ^= 0x01
            try socket.write(frame)
        case "unknown-type":
            let envelope = ChannelEnvelope(kind: .message, type: type, body: Array("{}".utf8))
            try socket.write(ChannelFrame.encode(sealer.seal(envelope.encoded)))
        case "malformed":
            let envelope = ChannelEnvelope(kind: .message, type: FixtureNote.messageType, body: Array("{not json".utf8))
            try socket.write(ChannelFrame.encode(sealer.seal(envelope.encoded)))
        default:
            throw UsageError(message: "unknown --kind \(kind)")
        }
    }
}

/// A blocking Unix-socket connection, for the attacker only.
final class RawSocket {
    private let descriptor: Int32

    init(path: String) throws {
        descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: Array(path.utf8).prefix($0.count - 1)) }
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard result == 0 else { throw GroupMessagingError(.notConnected, "connect \(path): errno \(errno)") }
    }

    deinit { close(descriptor) }

    func write(_ bytes: [UInt8]) throws {
        var offset = 0
        while offset < bytes.count {
            let written = bytes[offset...].withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress, $0.count) }
            guard written > 0 else { throw GroupMessagingError(.notConnected, "write: errno \(errno)") }
            offset += written
        }
    }

    func read(_ count: Int) throws -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: count)
        var offset = 0
        while offset < count {
            let got = bytes[offset...].withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress, $0.count) }
            guard got > 0 else { throw GroupMessagingError(.notConnected, "read: connection closed") }
            offset += got
        }
        return bytes
    }

    func readFrame() throws -> [UInt8] {
        let header = try read(4)
        let length = Int(header[0]) << 24 | Int(header[1]) << 16 | Int(header[2]) << 8 | Int(header[3])
        return try read(length)
    }

    func shutdownWrite() { shutdown(descriptor, Int32(SHUT_WR)) }

    func drainUntilClosed() {
        var buffer = [UInt8](repeating: 0, count: 4096)
        while buffer.withUnsafeMutableBytes({ Glibc.read(descriptor, $0.baseAddress, $0.count) }) > 0 {}
    }
}
