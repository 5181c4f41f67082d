import CSodium

/// BLAKE2b-256 (`crypto_generichash`), for fingerprints that must not reveal their input
/// (a record's content, a token) yet let two copies be compared.
package enum Digest {
    /// The 32-byte BLAKE2b digest of `bytes`.
    package static func blake2b256(_ bytes: [UInt8]) -> [UInt8] {
        Sodium.ensureInitialized()
        var output = [UInt8](repeating: 0, count: 32)
        _ = crypto_generichash(&output, output.count, bytes, UInt64(bytes.count), nil, 0)
        return output
    }
}

extension Digest {
    /// Keyed BLAKE2b-256 (`crypto_generichash` with a key): a MAC and a PRF. The keyring uses
    /// it to tag ledger rows and to bind its database to its home.
    package static func keyedBLAKE2b256(_ bytes: [UInt8], key: SymmetricKey) -> [UInt8] {
        Sodium.ensureInitialized()
        var output = [UInt8](repeating: 0, count: 32)
        key.withUnsafeBytes { keyBytes in
            _ = crypto_generichash(
                &output, output.count, bytes, UInt64(bytes.count),
                keyBytes.baseAddress!.assumingMemoryBound(to: UInt8.self), keyBytes.count)
        }
        return output
    }
}
