import CSodium

/// XChaCha20-Poly1305 (IETF construction) from libsodium: 256-bit key, 192-bit nonce, 128-bit tag.
///
/// The 192-bit nonce is the reason for this choice: random nonces are safe for any practical
/// number of messages under one key, so writers in different processes need no nonce counter.
package enum XChaCha20Poly1305 {
    /// Nonce size in bytes (`crypto_aead_xchacha20poly1305_ietf_NPUBBYTES`).
    package static let nonceByteCount = 24
    /// Authentication tag size in bytes (`crypto_aead_xchacha20poly1305_ietf_ABYTES`).
    package static let tagByteCount = 16

    /// A 24-byte nonce. Use ``random()`` for every seal; a fixed nonce is for test vectors only.
    package struct Nonce: Sendable, Equatable {
        package let bytes: [UInt8]

        package init<Bytes: Collection<UInt8>>(bytes: Bytes) throws(CryptoFailure) {
            guard bytes.count == XChaCha20Poly1305.nonceByteCount else {
                throw .invalidNonceSize(bytes.count)
            }
            self.bytes = Array(bytes)
        }

        /// Bytes whose count the caller has already checked (a ``SealedBox`` read, whose
        /// length was validated when it was made; a blob header, whose size was). Not generic:
        /// the generic initialiser, called from another module, looked up its type's metadata at
        /// run time, about 9% of opening a synced entry's work outside libsodium.
        package init(validated bytes: ArraySlice<UInt8>) {
            precondition(bytes.count == XChaCha20Poly1305.nonceByteCount, "a validated nonce is 24 bytes")
            self.bytes = Array(bytes)
        }

        /// A fresh nonce from libsodium's CSPRNG.
        package static func random() -> Nonce {
            Sodium.ensureInitialized()
            var bytes = [UInt8](repeating: 0, count: XChaCha20Poly1305.nonceByteCount)
            randombytes_buf(&bytes, bytes.count)
            return Nonce(validated: bytes[...])
        }
    }

    /// Encrypts and authenticates `plaintext`, and authenticates `additionalData` without
    /// encrypting it. Returns ciphertext followed by the 16-byte tag.
    package static func seal(
        _ plaintext: [UInt8],
        using key: SymmetricKey,
        nonce: Nonce,
        authenticating additionalData: [UInt8]
    ) -> [UInt8] {
        Sodium.ensureInitialized()
        var output = [UInt8](repeating: 0, count: plaintext.count + tagByteCount)
        var outputLength: UInt64 = 0
        let status = key.withUnsafeBytes { keyBytes in
            crypto_aead_xchacha20poly1305_ietf_encrypt(
                &output, &outputLength,
                plaintext, UInt64(plaintext.count),
                additionalData, UInt64(additionalData.count),
                nil, nonce.bytes, keyBytes.baseAddress!.assumingMemoryBound(to: UInt8.self))
        }
        // libsodium's encrypt cannot fail for in-range lengths; a failure is a broken invariant.
        precondition(status == 0 && Int(outputLength) == output.count, "XChaCha20-Poly1305 encryption failed")
        return output
    }

    /// Verifies and decrypts `ciphertextAndTag`. Nothing is returned unless the tag verifies
    /// over the ciphertext and exactly the same `additionalData` given to ``seal(_:using:nonce:authenticating:)``.
    package static func open(
        _ ciphertextAndTag: [UInt8],
        using key: SymmetricKey,
        nonce: Nonce,
        authenticating additionalData: [UInt8]
    ) throws(CryptoFailure) -> [UInt8] {
        try open(ciphertextAndTag[...], using: key, nonce: nonce, authenticating: additionalData)
    }

    /// ``open(_:using:nonce:authenticating:)`` of bytes within a larger array (a blob after its
    /// header), read where they are rather than copied out first.
    package static func open(
        _ ciphertextAndTag: ArraySlice<UInt8>,
        using key: SymmetricKey,
        nonce: Nonce,
        authenticating additionalData: [UInt8]
    ) throws(CryptoFailure) -> [UInt8] {
        Sodium.ensureInitialized()
        guard ciphertextAndTag.count >= tagByteCount else {
            throw .ciphertextTooShort(ciphertextAndTag.count)
        }
        var output = [UInt8](repeating: 0, count: ciphertextAndTag.count - tagByteCount)
        var outputLength: UInt64 = 0
        let status = ciphertextAndTag.withUnsafeBufferPointer { sealed in
            key.withUnsafeBytes { keyBytes in
                crypto_aead_xchacha20poly1305_ietf_decrypt(
                    &output, &outputLength, nil,
                    sealed.baseAddress!, UInt64(sealed.count),
                    additionalData, UInt64(additionalData.count),
                    nonce.bytes, keyBytes.baseAddress!.assumingMemoryBound(to: UInt8.self))
            }
        }
        guard status == 0 else { throw .authenticationFailed }
        return output
    }
}
