import CSodium

/// One guarded buffer into which Poly1305 one-time keys are derived, one at a time, and zeroed
/// after each use (``OneTimeAuthenticator``).
///
/// Why not a ``SymmetricKey`` per tag: its guarded memory is allocated and freed with it
/// (`sodium_malloc`, `sodium_free`: a mapping, guard pages, locking and unmapping), and a
/// GroupSync journal record derives a key for each append. On the 2-core development VM that
/// cost about 250 µs of a write seen on another machine (three records on its path, after an
/// idle pause: Benchmarks/ANALYSIS.md). This buffer is allocated once, stays locked in memory
/// behind guard pages like every key, and is left writable: it holds a key only inside
/// ``withKey(derivedFrom:under:_:)``, which zeroes it before returning.
package final class OneTimeKeyBuffer: @unchecked Sendable {
    // @unchecked: the buffer is only touched under `lock`.
    private let pointer: UnsafeMutableRawPointer
    private let lock = Lock()

    package init() {
        Sodium.ensureInitialized()
        guard let pointer = sodium_malloc(SymmetricKey.byteCount) else {
            // Out of lockable memory: continuing would mean keeping keys in ordinary memory.
            fatalError("sodium_malloc could not allocate \(SymmetricKey.byteCount) guarded bytes")
        }
        self.pointer = pointer
    }

    deinit {
        sodium_free(pointer)
    }

    /// Runs `body` with the key `BLAKE2b-256(message)` keyed with `key` in the buffer, then
    /// zeroes it. Calls are serialized.
    package func withKey<Result>(derivedFrom message: [UInt8], under key: SymmetricKey, _ body: (UnsafeRawBufferPointer) -> Result) -> Result {
        lock.withLock {
            let buffer = UnsafeMutableRawBufferPointer(start: pointer, count: SymmetricKey.byteCount)
            defer { sodium_memzero(pointer, SymmetricKey.byteCount) }
            message.withUnsafeBytes { Digest.keyedBLAKE2b256($0, key: key, into: buffer) }
            return body(UnsafeRawBufferPointer(buffer))
        }
    }
}
