import CSodium

/// Random bytes and numbers from libsodium's CSPRNG (`getrandom(2)` on Linux).
package enum SecureRandom {
    /// `count` random bytes, for non-secret uses such as temporary file names and ids.
    package static func bytes(count: Int) -> [UInt8] {
        Sodium.ensureInitialized()
        var output = [UInt8](repeating: 0, count: count)
        randombytes_buf(&output, count)
        return output
    }

    /// `count` random bytes as lowercase hexadecimal.
    package static func hex(count: Int) -> String {
        Hex.lowercase(bytes(count: count))
    }
}
