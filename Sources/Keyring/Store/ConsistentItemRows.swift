import SealedStorage

/// The item rows this process has opened and found consistent with their own columns, each
/// remembered by its exact bytes, so that opening the same bytes again can skip recomputing the
/// row's five keyed hashes (about an eighth of a warm lookup's instructions).
///
/// Sound without any invalidation, because what it remembers is a pure function of what it
/// compares: the consistency check (``ItemTable/Hashes/match(_:hasher:)``) depends only on the
/// row's additional data (its format, group, class and stored hashes), its sealed bytes, the
/// key that opened them and the lookup key, and a ``KeyringDatabase`` holds one master secret
/// for its life, so both keys are fixed for the table that holds this. Bytes that differ in
/// any way, a row rewritten, replaced or damaged, are checked in full. It holds no secret:
/// only bytes that rest in the database already, sealed (docs/ARCHITECTURE.md, "An opened
/// row's consistency, remembered by its bytes").
///
/// Only rows sealed under the item sealing key are remembered: the unlock key of a passphrase
/// home is not fixed for the database's life.
struct ConsistentItemRows: Sendable {
    /// At most this many rows are remembered; the table starts over when it is full, so a
    /// process that scans a large keychain keeps at most this many copies of sealed rows.
    static let capacity = 128
    /// Rows larger than this are not remembered: their AEAD and parsing dwarf the hashes.
    static let largestRememberedRow = 4_096

    /// Each row's additional data and sealed bytes, by row id.
    private var rows = ExactBytesMemo<Int64, Void>(capacity: capacity, largestInput: largestRememberedRow)

    /// Whether the row `id` was found consistent with exactly these bytes.
    func contain(id: Int64, additionalData: [UInt8], sealed: [UInt8]) -> Bool {
        rows.result(for: id, additionalData, sealed) != nil
    }

    /// Remembers that the row `id` is consistent with these bytes (replacing what it held for
    /// the row before).
    mutating func insert(id: Int64, additionalData: [UInt8], sealed: [UInt8]) {
        rows.remember((), for: id, additionalData, sealed)
    }

    /// How many rows are remembered (for tests).
    var count: Int { rows.count }
}
