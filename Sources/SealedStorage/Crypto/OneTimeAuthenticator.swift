import CSodium

/// Poly1305 (`crypto_onetimeauth`): a 16-byte authenticator of a message under a key that
/// authenticates that one message and no other.
///
/// Chosen where megabytes are authenticated and checked on every opening: Poly1305 runs at
/// several times the speed of keyed BLAKE2b (over 2.87 MB on the development VM, 0.6 ms against
/// 4.0 ms). Its price is the rule it exists under: a key must never tag two different messages,
/// or whoever sees both tags can forge a third. So no caller passes a long-lived key here; each
/// derives a fresh one-time key from its long-lived key and a random salt stored beside the tag
/// (as ``ReplicaStateFile`` in GroupSync does), the way XChaCha20-Poly1305 derives its one-time
/// key from the nonce.
package enum OneTimeAuthenticator {
    /// The length of a tag.
    package static let tagSize = Int(crypto_onetimeauth_BYTES)

    /// The tag of `message` under `oneTimeKey` (32 bytes, never used for another message).
    package static func tag(_ message: UnsafeRawBufferPointer, oneTimeKey: SymmetricKey) -> [UInt8] {
        oneTimeKey.withUnsafeBytes { tag(message, oneTimeKeyBytes: $0) }
    }

    /// ``tag(_:oneTimeKey:)`` with the key's 32 bytes where they lie (a ``OneTimeKeyBuffer``).
    package static func tag(_ message: UnsafeRawBufferPointer, oneTimeKeyBytes key: UnsafeRawBufferPointer) -> [UInt8] {
        precondition(key.count == SymmetricKey.byteCount, "a one-time key is \(SymmetricKey.byteCount) bytes")
        Sodium.ensureInitialized()
        var tag = [UInt8](repeating: 0, count: tagSize)
        _ = crypto_onetimeauth(
            &tag, message.baseAddress?.assumingMemoryBound(to: UInt8.self), UInt64(message.count),
            key.baseAddress!.assumingMemoryBound(to: UInt8.self))
        return tag
    }

    /// Whether `tag` is the tag of `message` under `oneTimeKey`, compared in constant time
    /// (`crypto_onetimeauth_verify`). A tag of the wrong length is refused.
    package static func isValid(_ tag: some Collection<UInt8>, of message: UnsafeRawBufferPointer, oneTimeKey: SymmetricKey) -> Bool {
        oneTimeKey.withUnsafeBytes { isValid(tag, of: message, oneTimeKeyBytes: $0) }
    }

    /// ``isValid(_:of:oneTimeKey:)`` with the key's 32 bytes where they lie (a
    /// ``OneTimeKeyBuffer``).
    package static func isValid(_ tag: some Collection<UInt8>, of message: UnsafeRawBufferPointer, oneTimeKeyBytes key: UnsafeRawBufferPointer) -> Bool {
        precondition(key.count == SymmetricKey.byteCount, "a one-time key is \(SymmetricKey.byteCount) bytes")
        let tag = Array(tag)
        guard tag.count == tagSize else { return false }
        Sodium.ensureInitialized()
        return crypto_onetimeauth_verify(
            tag, message.baseAddress?.assumingMemoryBound(to: UInt8.self), UInt64(message.count),
            key.baseAddress!.assumingMemoryBound(to: UInt8.self)) == 0
    }
}
