import CSodium

/// Keyed BLAKE2b-256 (``Digest/keyedBLAKE2b256(_:key:)``) of several messages that start with the
/// same bytes, fed field by field instead of built in one buffer first.
///
/// The keyring hashes five to seven messages per item it looks up (a primary key and the
/// attributes searched by), each starting with the same domain and group. Built as arrays, those
/// messages and their digests were about a sixth of a warm lookup's instructions. Here the key
/// and the shared start are fed once (``markStart()``), every message continues from a copy of
/// that state, and a field is fed from where it lies (a `String`'s UTF-8, a length as four bytes
/// on the stack). libsodium buffers up to two blocks before compressing, so a digest whose key
/// block and message fit in two (any short attribute's) still compresses the key's block
/// at its end: what this saves is the building, not the hashing. The
/// digests are the one-shot function's, byte for byte: BLAKE2b fed in parts is BLAKE2b of the
/// concatenation (`KeyedBLAKE2bHasherTests`).
///
/// The state is derived from the key, so it lives in memory of its own and is zeroed when the
/// hasher ends. Not thread-safe: one hasher per operation.
package struct KeyedBLAKE2bHasher: ~Copyable {
    private static let stateSize = crypto_generichash_blake2b_statebytes()
    /// libsodium declares its state 64-byte aligned, and its compression may rely on it.
    private static let stateAlignment = 64

    /// Two states: the message in progress, then the one saved by ``markStart()``.
    private let states: UnsafeMutableRawPointer
    /// Swift imports libsodium's over-aligned state type as an opaque pointer.
    private var message: OpaquePointer { OpaquePointer(states) }
    private var start: UnsafeMutableRawPointer { states + Self.stateSize }

    /// A hasher keyed with `key` (32 bytes), its first message empty so far.
    package init(key: SymmetricKey) {
        Sodium.ensureInitialized()
        states = UnsafeMutableRawPointer.allocate(byteCount: 2 * Self.stateSize, alignment: Self.stateAlignment)
        key.withUnsafeBytes { keyBytes in
            _ = crypto_generichash_blake2b_init(
                message, keyBytes.baseAddress!.assumingMemoryBound(to: UInt8.self), keyBytes.count, 32)
        }
        (states + Self.stateSize).copyMemory(from: states, byteCount: Self.stateSize)
    }

    deinit {
        sodium_memzero(states, 2 * Self.stateSize)
        states.deallocate()
    }

    /// Feeds `bytes` to the message in progress.
    package func update(_ bytes: UnsafeRawBufferPointer) {
        guard let base = bytes.baseAddress, bytes.count > 0 else { return }
        _ = crypto_generichash_blake2b_update(message, base.assumingMemoryBound(to: UInt8.self), UInt64(bytes.count))
    }

    /// Feeds `value`'s bytes, most significant first.
    package func update<Value: FixedWidthInteger>(bigEndian value: Value) {
        withUnsafeBytes(of: value.bigEndian) { update($0) }
    }

    /// Feeds `bytes` framed as ``Swift/Array/appendLengthPrefixed(_:)`` frames them: the byte
    /// count as a big-endian `UInt32`, then the bytes.
    /// - Precondition: `bytes` has fewer than 2³² bytes.
    package func update(lengthPrefixed bytes: UnsafeRawBufferPointer) {
        update(bigEndian: UInt32(bytes.count))
        update(bytes)
    }

    /// ``update(lengthPrefixed:)`` of `text`'s UTF-8, read where it lies when contiguous.
    package func update(lengthPrefixed text: String) {
        var text = text
        text.withUTF8 { update(lengthPrefixed: UnsafeRawBufferPointer($0)) }
    }

    /// Makes what was fed so far the start of this message and of every later one.
    package func markStart() {
        start.copyMemory(from: states, byteCount: Self.stateSize)
    }

    /// Ends the message in progress: returns its digest (32 bytes), and begins the next message
    /// from the start ``markStart()`` saved (the key alone if it was never called).
    package func finishMessage() -> [UInt8] {
        [UInt8](unsafeUninitializedCapacity: 32) { buffer, count in
            finish(into: buffer.baseAddress!)
            count = 32
        }
    }

    /// Ends the message in progress as ``finishMessage()`` does, and tells whether its digest is
    /// `expected`, without an array for the digest: for checking stored hashes (a slice, since
    /// a row's five are read into one array).
    package func finishMessage(hasDigest expected: ArraySlice<UInt8>) -> Bool {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 32) { digest in
            finish(into: digest.baseAddress!)
            // One memcmp: a generic elementsEqual cost 900 instructions a digest. The stored
            // hashes compared are not secret (whoever reads the database has them), so no
            // constant time.
            return expected.withUnsafeBytes { haveSameBytes($0, UnsafeRawBufferPointer(digest)) }
        }
    }

    private func finish(into digest: UnsafeMutablePointer<UInt8>) {
        _ = crypto_generichash_blake2b_final(message, digest, 32)
        states.copyMemory(from: start, byteCount: Self.stateSize)
    }
}
