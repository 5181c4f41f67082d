import CSodium

/// Subkeys derived from a master key with libsodium's `crypto_kdf` (BLAKE2b under the hood).
///
/// Each purpose has its own 8-character context and numeric id, so a key derived for one
/// file kind can never open another kind even if both are sealed by the same master secret.
package enum KeyDerivation {
    /// Derives the 256-bit subkey number `id` for `context` (exactly 8 ASCII characters).
    package static func deriveKey(from master: SymmetricKey, context: StaticString, id: UInt64) -> SymmetricKey {
        Sodium.ensureInitialized()
        precondition(context.utf8CodeUnitCount == Int(crypto_kdf_CONTEXTBYTES), "a crypto_kdf context is 8 bytes")
        let storage = SecureBytes(count: SymmetricKey.byteCount) { subkey in
            master.withUnsafeBytes { masterBytes in
                context.withUTF8Buffer { contextBytes in
                    contextBytes.withMemoryRebound(to: CChar.self) { contextChars in
                        _ = crypto_kdf_derive_from_key(
                            subkey.baseAddress!.assumingMemoryBound(to: UInt8.self), subkey.count,
                            id, contextChars.baseAddress!,
                            masterBytes.baseAddress!.assumingMemoryBound(to: UInt8.self))
                    }
                }
            }
        }
        return SymmetricKey(storage: storage)
    }
}
