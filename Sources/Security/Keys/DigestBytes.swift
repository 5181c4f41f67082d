#if !canImport(Darwin)
import Crypto
import Foundation

/// A digest the caller computed (the `...Digest...` algorithms), as the swift-crypto digest type
/// its signing functions take.
///
/// swift-crypto offers no public initializer from bytes: its digests are only ever produced by
/// its own hash functions. Its digest structs are plain tuples of `UInt64` words, so the bytes are
/// laid into such a tuple and reinterpreted; the result is then read back and compared with the
/// input, so a future change of that layout makes every digest algorithm fail with `errSecParam`
/// (and `SecKeyRoundTripTests.testDigestAlgorithmsVerifyTheSignatureOfTheMatchingMessageAlgorithm`
/// fail) instead of signing anything else.
struct DigestBytes {
    private let digest: any Digest

    /// The digest for `bytes`, or nil when they are not `hash.byteCount` long (or for SHA-224).
    init?(_ bytes: Data, hash: SecKeyHash) {
        guard bytes.count == hash.byteCount else { return nil }
        let digest: (any Digest)?
        switch hash {
        case .sha1: digest = Self.reinterpret(bytes, words: (UInt64(0), UInt64(0), UInt64(0)), as: Insecure.SHA1Digest.self)
        case .sha224: digest = nil
        case .sha256: digest = Self.reinterpret(bytes, words: (UInt64(0), UInt64(0), UInt64(0), UInt64(0)), as: SHA256Digest.self)
        case .sha384: digest = Self.reinterpret(bytes, words: (UInt64(0), UInt64(0), UInt64(0), UInt64(0), UInt64(0), UInt64(0)), as: SHA384Digest.self)
        case .sha512:
            digest = Self.reinterpret(
                bytes, words: (UInt64(0), UInt64(0), UInt64(0), UInt64(0), UInt64(0), UInt64(0), UInt64(0), UInt64(0)), as: SHA512Digest.self)
        }
        guard let digest else { return nil }
        self.digest = digest
    }

    /// Calls `body` with the typed digest.
    func withDigest<R>(_ body: (any Digest) throws -> R) rethrows -> R { try body(digest) }

    private static func reinterpret<Words, D: Digest>(_ bytes: Data, words: Words, as type: D.Type) -> D? {
        guard MemoryLayout<Words>.size == MemoryLayout<D>.size, bytes.count <= MemoryLayout<Words>.size else { return nil }
        var words = words
        withUnsafeMutableBytes(of: &words) { $0.copyBytes(from: bytes) }
        let digest = unsafeBitCast(words, to: D.self)
        guard Array(digest) == Array(bytes) else { return nil }
        return digest
    }
}
#endif
