/// Results of a pure function of bytes, each remembered with the exact bytes it was computed
/// from, so that the same bytes seen again need not be computed again.
///
/// For checks and digests that a warm read repeats on bytes it has just read and that rarely
/// change: an opened item row's consistency with its columns, a ledger row's tag, a record
/// blob's digest. Sound without any invalidation as long as the function is pure: its result
/// depends on nothing but the input's bytes and on keys fixed for the memo's life, which each
/// user states where it keeps one. The input is compared in full (`memcmp`), both of its parts
/// and where the first ends, so bytes that differ in any way, or the same bytes split
/// elsewhere, are computed afresh. A result is looked up by a key naming where the bytes came
/// from (a row id, a record name), which only narrows the search: it is never trusted.
///
/// Bounded: at most ``capacity`` entries, each of at most ``largestInput`` bytes; the table
/// starts over when full. It keeps copies of the inputs, so a user keeps only bytes that are
/// not secret (sealed bytes, names, digests).
///
/// Inlinable, so each user's module specialises it for its key and result: called through its
/// generic entry points from another module, a lookup cost about 2,000 instructions of
/// metadata and dictionary witnesses, more than the hash it saves. Public rather than
/// `package` for that reason alone: declared `@inlinable package`, the callers' modules still
/// called the unspecialised entry points (Swift 6.3, checked with `nm` on a release build).
/// SealedStorage is no product, so nothing outside this package sees it.
public struct ExactBytesMemo<Key: Hashable & Sendable, Result: Sendable>: Sendable {
    @usableFromInline
    struct Entry: Sendable {
        @usableFromInline var bytes: [UInt8]
        @usableFromInline var firstCount: Int
        @usableFromInline var result: Result

        @inlinable
        init(bytes: [UInt8], firstCount: Int, result: Result) {
            self.bytes = bytes
            self.firstCount = firstCount
            self.result = result
        }
    }

    /// At most this many entries are kept.
    public let capacity: Int
    /// Inputs of more bytes than this are not kept.
    public let largestInput: Int
    @usableFromInline var entries: [Key: Entry] = [:]

    @inlinable
    public init(capacity: Int, largestInput: Int) {
        self.capacity = capacity
        self.largestInput = largestInput
    }

    /// The result remembered under `key` for exactly `first` followed by `second`, if any.
    @inlinable
    public func result(for key: Key, _ first: [UInt8], _ second: [UInt8] = []) -> Result? {
        guard let entry = entries[key], entry.firstCount == first.count, entry.bytes.count == first.count + second.count else { return nil }
        let same = entry.bytes.withUnsafeBytes { bytes in
            first.withUnsafeBytes { haveSameBytes(UnsafeRawBufferPointer(rebasing: bytes.prefix($0.count)), $0) }
                && second.withUnsafeBytes { haveSameBytes(UnsafeRawBufferPointer(rebasing: bytes.dropFirst(first.count)), $0) }
        }
        return same ? entry.result : nil
    }

    /// Remembers `result` under `key` for `first` followed by `second`, replacing what the key
    /// held.
    @inlinable
    public mutating func remember(_ result: Result, for key: Key, _ first: [UInt8], _ second: [UInt8] = []) {
        let count = first.count + second.count
        guard count <= largestInput else { return }
        if entries[key] == nil, entries.count >= capacity { entries.removeAll(keepingCapacity: true) }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(count)
        bytes += first
        bytes += second
        entries[key] = Entry(bytes: bytes, firstCount: first.count, result: result)
    }

    /// How many entries are kept.
    @inlinable
    public var count: Int { entries.count }
}
