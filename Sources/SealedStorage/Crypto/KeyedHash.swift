import CSodium

/// Keyed BLAKE2b-256 (`crypto_generichash` with a key): a MAC-like digest that only holders of
/// the key can compute. GroupMessaging uses it to bind a channel's keys to both ends' nonces.
package enum KeyedHash {
    /// The BLAKE2b-256 digest of `message` under `key`, as a key in guarded memory.
    package static func blake2b256(_ message: [UInt8], key: SymmetricKey) -> SymmetricKey {
        Sodium.ensureInitialized()
        let storage = SecureBytes(count: SymmetricKey.byteCount) { output in
            key.withUnsafeBytes { keyBytes in
                _ = crypto_generichash(
                    output.baseAddress!.assumingMemoryBound(to: UInt8.self), output.count,
                    message, UInt64(message.count),
                    keyBytes.baseAddress!.assumingMemoryBound(to: UInt8.self), keyBytes.count)
            }
        }
        return SymmetricKey(storage: storage)
    }
}
