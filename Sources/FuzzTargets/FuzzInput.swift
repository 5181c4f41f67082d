/// Reads structured choices out of a fuzzer's bytes, front to back.
///
/// Past the end every read gives zeros (or nothing), so any input, the empty one included,
/// describes some valid sequence of choices: libFuzzer's mutations then move between choices
/// instead of being rejected up front. Integers are big-endian, matching how a mutation that
/// inserts a dictionary word would lay them out in the formats fuzzed here.
struct FuzzInput {
    private let bytes: [UInt8]
    private var offset = 0

    init(_ bytes: [UInt8]) {
        self.bytes = bytes
    }

    /// Whether every byte has been read.
    var isExhausted: Bool { offset >= bytes.count }

    /// The next byte, or 0 past the end.
    mutating func byte() -> UInt8 {
        guard offset < bytes.count else { return 0 }
        defer { offset += 1 }
        return bytes[offset]
    }

    /// The next `Integer.bitWidth / 8` bytes as a big-endian integer, zero-padded past the end.
    mutating func integer<Integer: FixedWidthInteger>(_ type: Integer.Type = Integer.self) -> Integer {
        var value: Integer = 0
        for _ in 0..<(Integer.bitWidth / 8) {
            value = (value << 8) | Integer(truncatingIfNeeded: byte())
        }
        return value
    }

    mutating func boolean() -> Bool {
        byte() & 1 == 1
    }

    /// Up to `count` next bytes (fewer at the end).
    mutating func bytes(count: Int) -> [UInt8] {
        let end = min(bytes.count, offset + max(0, count))
        defer { offset = max(offset, end) }
        return offset < end ? Array(bytes[offset..<end]) : []
    }

    /// A byte string whose length is the next byte.
    mutating func shortBytes() -> [UInt8] {
        bytes(count: Int(byte()))
    }

    /// Everything not read yet.
    mutating func remainder() -> [UInt8] {
        bytes(count: bytes.count - offset)
    }

    /// One of `options` (which must not be empty), chosen by the next byte.
    mutating func choose<Element>(_ options: [Element]) -> Element {
        options[Int(byte()) % options.count]
    }
}
