import CSodium

/// A 256-bit symmetric key whose bytes live in guarded memory and are never printed.
package struct SymmetricKey: Sendable, CustomStringConvertible, CustomDebugStringConvertible {
    /// Every key in GroupVault is 32 bytes: XChaCha20-Poly1305's and crypto_kdf's key size.
    package static let byteCount = 32

    package let storage: SecureBytes

    /// Generates a fresh key from libsodium's CSPRNG.
    package init() {
        storage = .random(count: Self.byteCount)
    }

    /// Wraps existing key bytes (read from a key file or a keyset).
    /// - Throws: ``CryptoFailure/invalidKeySize(_:)`` unless exactly 32 bytes are given.
    package init<Bytes: Collection<UInt8>>(bytes: Bytes) throws(CryptoFailure) {
        guard bytes.count == Self.byteCount else { throw .invalidKeySize(bytes.count) }
        storage = SecureBytes(copying: bytes)
    }

    package init(storage: SecureBytes) {
        precondition(storage.count == Self.byteCount, "a SymmetricKey is \(Self.byteCount) bytes")
        self.storage = storage
    }

    /// Calls `body` with the key bytes. Do not let the pointer escape.
    package func withUnsafeBytes<Result, Failure: Error>(
        _ body: (UnsafeRawBufferPointer) throws(Failure) -> Result
    ) throws(Failure) -> Result {
        try storage.withUnsafeBytes(body)
    }

    /// Copies the key bytes out of guarded memory: only for writing them to sealed storage or
    /// an explicit export. The caller owns (and should zero) the copy.
    package func exportedBytes() -> [UInt8] {
        storage.withUnsafeBytes { Array($0) }
    }

    /// Constant-time equality, for tests and for checking that two processes agreed on a key.
    package func constantTimeEquals(_ other: SymmetricKey) -> Bool {
        storage.constantTimeEquals(other.storage)
    }

    package var description: String { "SymmetricKey(256 bits, redacted)" }
    package var debugDescription: String { description }
}
