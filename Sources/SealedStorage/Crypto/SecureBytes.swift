import CSodium

/// A fixed-size buffer for secret bytes, allocated with libsodium's guarded allocator.
///
/// The pages are locked in memory where the system allows it (not swapped out), surrounded
/// by guard pages, made read-only once filled, and zeroed by `sodium_free` when the last
/// reference goes away. The bytes are never printed: `description` says only the size.
///
/// It is `@unchecked Sendable` because the storage is written once, in `init`, and only read
/// afterwards (the pages are read-only from then on, so a stray write would trap).
package final class SecureBytes: @unchecked Sendable, CustomStringConvertible, CustomDebugStringConvertible {
    private let pointer: UnsafeMutableRawPointer
    /// The number of secret bytes.
    package let count: Int

    /// Allocates `count` bytes and lets `initializer` fill them before they become read-only.
    package init(count: Int, initializer: (UnsafeMutableRawBufferPointer) -> Void) {
        precondition(count > 0, "SecureBytes needs at least one byte")
        Sodium.ensureInitialized()
        guard let pointer = sodium_malloc(count) else {
            // Out of lockable memory: continuing would mean keeping a key in ordinary memory.
            fatalError("sodium_malloc could not allocate \(count) guarded bytes")
        }
        self.pointer = pointer
        self.count = count
        initializer(UnsafeMutableRawBufferPointer(start: pointer, count: count))
        sodium_mprotect_readonly(pointer)
    }

    /// Copies `bytes` into guarded memory. The caller remains responsible for its own copy.
    package convenience init<Bytes: Collection<UInt8>>(copying bytes: Bytes) {
        self.init(count: bytes.count) { buffer in
            _ = buffer.initializeMemory(as: UInt8.self, from: bytes)
        }
    }

    /// Fills a new buffer from libsodium's CSPRNG.
    package static func random(count: Int) -> SecureBytes {
        SecureBytes(count: count) { buffer in
            randombytes_buf(buffer.baseAddress!, buffer.count)
        }
    }

    /// Calls `body` with a read-only view of the secret bytes; do not let the pointer escape.
    package func withUnsafeBytes<Result, Failure: Error>(
        _ body: (UnsafeRawBufferPointer) throws(Failure) -> Result
    ) throws(Failure) -> Result {
        try body(UnsafeRawBufferPointer(start: pointer, count: count))
    }

    /// Compares in constant time (`sodium_memcmp`), so timing does not reveal a common prefix.
    package func constantTimeEquals(_ other: SecureBytes) -> Bool {
        guard count == other.count else { return false }
        return sodium_memcmp(pointer, other.pointer, count) == 0
    }

    package var description: String { "SecureBytes(\(count) bytes, redacted)" }
    package var debugDescription: String { description }

    deinit {
        // sodium_free makes the pages writable, zeroes them, and unmaps them with their guards.
        sodium_free(pointer)
    }
}
