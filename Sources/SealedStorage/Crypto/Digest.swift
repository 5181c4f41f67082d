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

    /// ``keyedBLAKE2b256(_:key:)`` of bytes in memory, written into `output` (32 bytes): for a
    /// hash computed and compared per row, where the two arrays were a measurable part of a
    /// first sync.
    package static func keyedBLAKE2b256(_ bytes: UnsafeRawBufferPointer, key: SymmetricKey, into output: UnsafeMutableRawBufferPointer) {
        precondition(output.count == 32, "a BLAKE2b-256 digest is 32 bytes")
        Sodium.ensureInitialized()
        key.withUnsafeBytes { keyBytes in
            _ = crypto_generichash(
                output.baseAddress!.assumingMemoryBound(to: UInt8.self), output.count,
                bytes.baseAddress?.assumingMemoryBound(to: UInt8.self), UInt64(bytes.count),
                keyBytes.baseAddress!.assumingMemoryBound(to: UInt8.self), keyBytes.count)
        }
    }
}
