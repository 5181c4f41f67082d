import CSodium

/// XChaCha20-Poly1305 on memory the caller owns, for a caller that keeps its bytes in its own
/// buffers (the channel's frames live in SwiftNIO's `ByteBuffer`s): sealing works in place and
/// opening writes straight into the destination, so a frame is never copied into an array and
/// back. Same construction, same results as the array-based ``XChaCha20Poly1305/seal(_:using:nonce:authenticating:)``
/// and ``XChaCha20Poly1305/open(_:using:nonce:authenticating:)``.
extension XChaCha20Poly1305 {
    /// Seals the first `message.count - tagByteCount` bytes of `message` in place: they become
    /// the ciphertext, and the last ``tagByteCount`` bytes (whatever they held) the tag.
    /// libsodium encrypts in place (its stream cipher XORs byte by byte, and the tag is computed
    /// over the ciphertext), so no second buffer is needed.
    package static func sealInPlace(
        _ message: UnsafeMutableRawBufferPointer,
        using key: SymmetricKey,
        nonce: Nonce,
        authenticating additionalData: [UInt8]
    ) {
        precondition(message.count >= tagByteCount, "room for the tag is part of the buffer")
        Sodium.ensureInitialized()
        let plaintextCount = message.count - tagByteCount
        let bytes = message.baseAddress!.assumingMemoryBound(to: UInt8.self)
        var outputLength: UInt64 = 0
        let status = key.withUnsafeBytes { keyBytes in
            crypto_aead_xchacha20poly1305_ietf_encrypt(
                bytes, &outputLength,
                bytes, UInt64(plaintextCount),
                additionalData, UInt64(additionalData.count),
                nil, nonce.bytes, keyBytes.baseAddress!.assumingMemoryBound(to: UInt8.self))
        }
        // libsodium's encrypt cannot fail for in-range lengths; a failure is a broken invariant.
        precondition(status == 0 && Int(outputLength) == message.count, "XChaCha20-Poly1305 encryption failed")
    }

    /// Seals `plaintext` into `output`, which must be exactly ``tagByteCount`` bytes longer:
    /// ciphertext, then tag. For a caller whose plaintext is in memory it does not want copied
    /// (a key in guarded memory) or whose output is part of a larger buffer (``SealedBox``).
    package static func seal(
        _ plaintext: UnsafeRawBufferPointer,
        into output: UnsafeMutableRawBufferPointer,
        using key: SymmetricKey,
        nonce: Nonce,
        authenticating additionalData: [UInt8]
    ) {
        precondition(output.count == plaintext.count + tagByteCount, "the output is the ciphertext and its tag")
        Sodium.ensureInitialized()
        var outputLength: UInt64 = 0
        // An empty plaintext may have no address: libsodium then reads nothing, but gets one.
        var empty: UInt8 = 0
        let status = withUnsafeMutablePointer(to: &empty) { emptyAddress in
            key.withUnsafeBytes { keyBytes in
                crypto_aead_xchacha20poly1305_ietf_encrypt(
                    output.baseAddress!.assumingMemoryBound(to: UInt8.self), &outputLength,
                    plaintext.baseAddress?.assumingMemoryBound(to: UInt8.self) ?? UnsafePointer(emptyAddress), UInt64(plaintext.count),
                    additionalData, UInt64(additionalData.count),
                    nil, nonce.bytes, keyBytes.baseAddress!.assumingMemoryBound(to: UInt8.self))
            }
        }
        // libsodium's encrypt cannot fail for in-range lengths; a failure is a broken invariant.
        precondition(status == 0 && Int(outputLength) == output.count, "XChaCha20-Poly1305 encryption failed")
    }

    /// Verifies `ciphertextAndTag` and decrypts it into `plaintext`, which must be exactly
    /// ``tagByteCount`` bytes shorter. Nothing is written unless the tag verifies.
    package static func open(
        _ ciphertextAndTag: UnsafeRawBufferPointer,
        into plaintext: UnsafeMutableRawBufferPointer,
        using key: SymmetricKey,
        nonce: Nonce,
        authenticating additionalData: [UInt8]
    ) throws(CryptoFailure) {
        guard ciphertextAndTag.count >= tagByteCount else {
            throw .ciphertextTooShort(ciphertextAndTag.count)
        }
        precondition(plaintext.count == ciphertextAndTag.count - tagByteCount, "the plaintext is the ciphertext without its tag")
        Sodium.ensureInitialized()
        var outputLength: UInt64 = 0
        // An empty plaintext may have no address: libsodium then writes nothing, but gets one.
        var empty: UInt8 = 0
        let status = withUnsafeMutablePointer(to: &empty) { emptyAddress in
            key.withUnsafeBytes { keyBytes in
                crypto_aead_xchacha20poly1305_ietf_decrypt(
                    plaintext.baseAddress?.assumingMemoryBound(to: UInt8.self) ?? emptyAddress, &outputLength, nil,
                    ciphertextAndTag.baseAddress!.assumingMemoryBound(to: UInt8.self), UInt64(ciphertextAndTag.count),
                    additionalData, UInt64(additionalData.count),
                    nonce.bytes, keyBytes.baseAddress!.assumingMemoryBound(to: UInt8.self))
            }
        }
        guard status == 0 else { throw .authenticationFailed }
    }
}
