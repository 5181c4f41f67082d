import SealedStorage

/// Seals and opens the frames of one connection after the handshake.
///
/// A sealed frame body is `counter (8, big endian) | ciphertext | tag (16)`. Each direction has
/// its own key and its own counter, starting at 0 and going up by one per frame. The nonce is
/// 16 zero bytes followed by the counter (unique, because a key seals one direction of one
/// connection and the counter never repeats), and the additional data is
/// `"GVM1" | direction (C or S) | counter`, so a frame cannot be moved to the other direction,
/// and the receiver accepts exactly the next counter: replayed, reordered or dropped frames are
/// refused.
package struct ChannelSealer: Sendable {
    static let counterLength = 8
    /// Bytes a sealed frame adds to its plaintext.
    package static let overhead = counterLength + XChaCha20Poly1305.tagByteCount

    private let sendKey: SymmetricKey
    private let receiveKey: SymmetricKey
    private let sendDirection: ChannelHello.Role
    private var sendCounter: UInt64 = 0
    private var receiveCounter: UInt64 = 0

    /// A sealer for the end playing `role`.
    package init(keys: ChannelKeys, role: ChannelHello.Role) {
        sendDirection = role
        sendKey = role == .client ? keys.clientToServer : keys.serverToClient
        receiveKey = role == .client ? keys.serverToClient : keys.clientToServer
    }

    /// The next frame body carrying `plaintext`.
    package mutating func seal(_ plaintext: [UInt8]) -> [UInt8] {
        let parts = sealParts(plaintext)
        return parts.counter + parts.ciphertextAndTag
    }

    /// The next frame body carrying `plaintext`, as its two parts: a writer puts them into its
    /// output buffer one after the other instead of joining them first (a copy of up to 64 KiB).
    package mutating func sealParts(_ plaintext: [UInt8]) -> (counter: [UInt8], ciphertextAndTag: [UInt8]) {
        let counter = sendCounter
        sendCounter += 1
        let counterBytes = Self.bigEndian(counter)
        let sealed = XChaCha20Poly1305.seal(
            plaintext, using: sendKey, nonce: Self.nonce(counterBytes),
            authenticating: Self.additionalData(direction: sendDirection, counterBytes))
        return (counterBytes, sealed)
    }

    /// The plaintext of the next frame body from the peer.
    /// - Throws: ``ChannelProtocolError`` (``ChannelProtocolError/Kind/outOfOrder`` for a
    ///   counter other than the next, ``ChannelProtocolError/Kind/authenticationFailed`` when
    ///   the tag does not verify, ``ChannelProtocolError/Kind/malformedMessage`` when too short).
    package mutating func open(_ body: [UInt8]) throws(ChannelProtocolError) -> [UInt8] {
        guard body.count >= Self.overhead else {
            throw ChannelProtocolError(.malformedMessage, "a sealed frame is at least \(Self.overhead) bytes, this one \(body.count)")
        }
        let counterBytes = Array(body[0..<Self.counterLength])
        let counter = counterBytes.reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        guard counter == receiveCounter else {
            throw ChannelProtocolError(.outOfOrder, "expected frame \(receiveCounter), got frame \(counter): replayed, reordered or dropped")
        }
        let peer: ChannelHello.Role = sendDirection == .client ? .server : .client
        do {
            let plaintext = try XChaCha20Poly1305.open(
                Array(body[Self.counterLength...]), using: receiveKey, nonce: Self.nonce(counterBytes),
                authenticating: Self.additionalData(direction: peer, counterBytes))
            receiveCounter += 1
            return plaintext
        } catch {
            throw ChannelProtocolError(.authenticationFailed, "frame \(counter) does not authenticate: forged, altered, or sealed without this group's key")
        }
    }

    static func bigEndian(_ value: UInt64) -> [UInt8] {
        (0..<8).map { UInt8(truncatingIfNeeded: value >> (56 - 8 * $0)) }
    }

    static func nonce(_ counterBytes: [UInt8]) -> XChaCha20Poly1305.Nonce {
        try! XChaCha20Poly1305.Nonce(bytes: [UInt8](repeating: 0, count: 16) + counterBytes)  // 24 bytes by construction
    }

    static func additionalData(direction: ChannelHello.Role, _ counterBytes: [UInt8]) -> [UInt8] {
        Array("GVM1".utf8) + [direction.rawValue] + counterBytes
    }
}
