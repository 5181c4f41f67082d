import Foundation
@testable import GroupMessaging
import SealedStorage
import XCTest

/// One end of a real channel connection played by hand over a Unix socket, byte by byte as
/// docs/MESSAGING.md describes it: for testing a real server or client against an end of
/// another version. Every call blocks, so tests run it off Swift's pool (``offThePool(_:)``).
final class SocketPlayedPeer: @unchecked Sendable {
    // @unchecked: used by one test at a time, from one thread at a time.
    private let descriptor: Int32
    private let role: ChannelHello.Role
    private var sealer: ChannelSealer?

    private init(descriptor: Int32, role: ChannelHello.Role) {
        self.descriptor = descriptor
        self.role = role
        // A guard against hanging, not a timing requirement.
        var guardTime = timeval(tv_sec: 60, tv_usec: 0)
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &guardTime, socklen_t(MemoryLayout<timeval>.size))
    }

    deinit { close(descriptor) }

    /// A client connected to the server listening at `path`.
    static func client(connectingTo path: String) throws -> SocketPlayedPeer {
        let descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        guard SocketFile.withAddress(of: path, { connect(descriptor, $0, $1) }) == 0 else {
            close(descriptor)
            throw PeerFailure("connect to \(path): errno \(errno)")
        }
        return SocketPlayedPeer(descriptor: descriptor, role: .client)
    }

    /// A server of the one connection accepted on `listener`.
    static func server(accepting listener: Int32) throws -> SocketPlayedPeer {
        let descriptor = accept(listener, nil, nil)
        guard descriptor >= 0 else { throw PeerFailure("accept: errno \(errno)") }
        return SocketPlayedPeer(descriptor: descriptor, role: .server)
    }

    /// Plays the handshake with `groupKey` (id `keyID`) of `group`, sending `readyBody` in its
    /// ready; returns the body of the other end's ready.
    func handshake(keyID: UInt32, groupKey: SymmetricKey, group: String, readyBody: [UInt8]) throws -> [UInt8] {
        let own = ChannelHello(role: role, keyID: keyID, nonce: SecureRandom.bytes(count: ChannelHello.nonceLength))
        let keys: ChannelKeys
        if role == .client {
            try writeFrame(own.encoded)
            let serverHello = try ChannelHello(parsing: readFrame(), expecting: .server)
            keys = ChannelKeys(groupKey: groupKey, group: group, clientHello: own, serverHello: serverHello)
        } else {
            let clientHello = try ChannelHello(parsing: readFrame(), expecting: .client)
            try writeFrame(own.encoded)
            keys = ChannelKeys(groupKey: groupKey, group: group, clientHello: clientHello, serverHello: own)
        }
        sealer = ChannelSealer(keys: keys, role: role)
        try writeSealed(ChannelEnvelope(kind: .ready, id: role == .server ? 1 : 0, body: readyBody).encoded)
        let ready = try readSealed()
        guard ready.first == ChannelEnvelope.Kind.ready.rawValue else { throw PeerFailure("the other end's frame 0 is not a ready") }
        return Array(ready.dropFirst(ChannelEnvelope.headerLength))
    }

    /// Seals `plaintext` (an envelope, written by the test) as the next frame and sends it.
    func writeSealed(_ plaintext: [UInt8]) throws {
        try writeFrame(sealer!.seal(plaintext))
    }

    /// The plaintext of the next frame the other end sent.
    func readSealed() throws -> [UInt8] {
        try sealer!.open(readFrame())
    }

    private func writeFrame(_ body: [UInt8]) throws {
        let frame = ChannelFrame.encode(body)
        guard send(descriptor, frame, frame.count, Int32(MSG_NOSIGNAL)) == frame.count else { throw PeerFailure("send: errno \(errno)") }
    }

    private func readFrame() throws -> [UInt8] {
        let prefix = try read(count: ChannelFrame.headerLength)
        return try read(count: prefix.reduce(0) { $0 << 8 | Int($1) })
    }

    private func read(count: Int) throws -> [UInt8] {
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: count)
        while bytes.count < count {
            let received = recv(descriptor, &buffer, count - bytes.count, 0)
            guard received > 0 else { throw PeerFailure("the other end closed or was silent (recv \(received), errno \(errno))") }
            bytes += buffer[0..<received]
        }
        return bytes
    }
}

/// What went wrong while playing a peer by hand.
struct PeerFailure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// Runs the blocking `body` on a thread of its own, not on one of Swift's pool, which the
/// real end under test needs.
func offThePool<Result: Sendable>(_ body: @escaping @Sendable () throws -> Result) async throws -> Result {
    try await withCheckedThrowingContinuation { continuation in
        Thread { continuation.resume(with: Swift.Result { try body() }) }.start()
    }
}

/// `kind (1) | id (8, big endian) | type length (1) | type | body`, written out by hand as
/// docs/MESSAGING.md gives it.
func envelopeBytes(kind: UInt8, id: UInt64, type: String, body: [UInt8]) -> [UInt8] {
    [kind] + withUnsafeBytes(of: id.bigEndian) { Array($0) } + [UInt8(type.utf8.count)] + Array(type.utf8) + body
}
