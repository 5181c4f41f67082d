import SealedStorage

/// An entry's keyed name (``SyncNaming/name(space:key:)``, 32 bytes) as the local state keys
/// its entries and values: four words, not the 64 hexadecimal characters the state's files and
/// the Vault's record names spell it in.
///
/// Why not the hexadecimal `String`: a first sync makes about fourteen dictionary operations a
/// row, and hashing and comparing 64-character strings, and counting references to them, were
/// the largest part of the time it spent merging rows into its state (Benchmarks/ANALYSIS.md).
struct EntryName: Hashable, Comparable, Sendable, CustomStringConvertible {
    /// The name's bytes, eight at a time, big-endian: so comparing the words compares the bytes,
    /// and the order is the hexadecimal spelling's.
    private let words: (UInt64, UInt64, UInt64, UInt64)

    /// The name `bytes` spells, or `nil` when they are not 32 bytes (a malformed row's).
    init?(_ bytes: some Collection<UInt8>) {
        guard bytes.count == 32 else { return nil }
        let words = bytes.withContiguousStorageIfAvailable(Self.words) ?? Array(bytes).withUnsafeBufferPointer(Self.words)
        self.words = words
    }

    private static func words(_ bytes: UnsafeBufferPointer<UInt8>) -> (UInt64, UInt64, UInt64, UInt64) {
        let raw = UnsafeRawBufferPointer(bytes)
        func word(_ index: Int) -> UInt64 { UInt64(bigEndian: raw.loadUnaligned(fromByteOffset: 8 * index, as: UInt64.self)) }
        return (word(0), word(1), word(2), word(3))
    }

    /// The name spelt in lowercase hexadecimal, or `nil` for anything else.
    init?(hex: String) {
        guard let bytes = Hex.bytes(lowercase: hex) else { return nil }
        self.init(bytes)
    }

    /// The name's 32 bytes.
    var bytes: [UInt8] { withBytes(Array.init) }

    /// `body` with the name's 32 bytes in memory, without an array: a homogeneous tuple is
    /// laid out as its elements in order.
    private func withBytes<Result>(_ body: (UnsafeRawBufferPointer) -> Result) -> Result {
        withUnsafeBytes(of: (words.0.bigEndian, words.1.bigEndian, words.2.bigEndian, words.3.bigEndian), body)
    }

    /// The name in lowercase hexadecimal, as the state's files spell it.
    var hex: String { Hex.lowercase(bytes) }

    /// Appends ``hex`` as the state's body writes a string (a `u32` length, then the
    /// characters), without making the `String`: every entry of every record and snapshot
    /// is written so.
    func appendLengthPrefixedHex(to out: inout [UInt8]) {
        out.appendBigEndian(UInt32(64))
        withBytes { Hex.appendLowercase($0, to: &out) }
    }

    var description: String { hex }

    static func == (lhs: EntryName, rhs: EntryName) -> Bool {
        lhs.words == rhs.words
    }

    func hash(into hasher: inout Hasher) {
        hasher.combine(words.0)
        hasher.combine(words.1)
        hasher.combine(words.2)
        hasher.combine(words.3)
    }

    static func < (lhs: EntryName, rhs: EntryName) -> Bool {
        lhs.words < rhs.words
    }
}

/// Version 1 of the state (JSON) keys its entries by the hexadecimal name: read as before. (A
/// dictionary is `Codable` when its key is; as a key it is written through `codingKey`.)
extension EntryName: Codable, CodingKeyRepresentable {
    init(from decoder: any Decoder) throws {
        let spelt = try decoder.singleValueContainer().decode(String.self)
        guard let name = EntryName(hex: spelt) else {
            throw DecodingError.dataCorrupted(DecodingError.Context(codingPath: decoder.codingPath, debugDescription: "an entry name is not 64 lowercase hexadecimal digits"))
        }
        self = name
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(hex)
    }

    var codingKey: any CodingKey { HexKey(stringValue: hex) }

    init?<T: CodingKey>(codingKey: T) {
        self.init(hex: codingKey.stringValue)
    }

    private struct HexKey: CodingKey {
        let stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }
}
