/// Lowercase hexadecimal, the one encoding used for digests, fingerprints and random names.
package enum Hex {
    private static let digits = Array("0123456789abcdef".utf8)

    /// `bytes` as lowercase hexadecimal, two digits a byte.
    package static func lowercase<Bytes: Sequence<UInt8>>(_ bytes: Bytes) -> String {
        lowercase(Array(bytes))
    }

    /// ``lowercase(_:)`` of a byte array, written straight into the string's storage: every
    /// Vault read turns a blob digest into hexadecimal.
    package static func lowercase(_ bytes: [UInt8]) -> String {
        lowercase(bytes, after: "")
    }

    /// `prefix` followed by ``lowercase(_:)`` of `bytes`, as one string written in place (a
    /// synced entry's record name is `gs-` and its hex name: a first sync makes one per row,
    /// and joining two strings made a third).
    package static func lowercase(_ bytes: [UInt8], after prefix: StaticString) -> String {
        bytes.withUnsafeBytes { bytes in
            String(unsafeUninitializedCapacity: prefix.utf8CodeUnitCount + 2 * bytes.count) { buffer in
                let start = UnsafeBufferPointer(start: prefix.utf8Start, count: prefix.utf8CodeUnitCount)
                _ = buffer.initialize(from: start)
                spell(bytes, into: UnsafeMutableBufferPointer(rebasing: buffer[start.count...]))
                return start.count + 2 * bytes.count
            }
        }
    }

    /// Appends ``lowercase(_:)``'s characters of `bytes` to `characters`, spelt on the stack
    /// and appended in one copy, for a writer that would otherwise make the `String` only to
    /// copy it out again. (A generic version, called from another module, went through a
    /// sequence iterator and two appends a byte: a tenth of the time a first sync spent
    /// applying a row, every entry name of every journal record being written so;
    /// Benchmarks/ANALYSIS.md.)
    package static func appendLowercase(_ bytes: UnsafeRawBufferPointer, to characters: inout [UInt8]) {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 2 * bytes.count) { spelt in
            spell(bytes, into: spelt)
            characters.append(contentsOf: spelt)
        }
    }

    /// Writes the two digits of each byte of `bytes` into `spelt`, which holds twice as many.
    private static func spell(_ bytes: UnsafeRawBufferPointer, into spelt: UnsafeMutableBufferPointer<UInt8>) {
        for (index, byte) in bytes.enumerated() {
            spelt[2 * index] = digits[Int(byte >> 4)]
            spelt[2 * index + 1] = digits[Int(byte & 0x0f)]
        }
    }

    /// The bytes `text` spells in lowercase hexadecimal, two digits a byte; `nil` for an odd
    /// number of digits or any other character (uppercase included: what ``lowercase(_:)``
    /// writes is the only form read back).
    package static func bytes(lowercase text: Substring.UTF8View) -> [UInt8]? {
        guard text.count % 2 == 0 else { return nil }
        func value(_ digit: UInt8) -> UInt8? {
            switch digit {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit - UInt8(ascii: "a") + 10
            default: nil
            }
        }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(text.count / 2)
        var index = text.startIndex
        while index != text.endIndex {
            let next = text.index(after: index)
            guard let high = value(text[index]), let low = value(text[next]) else { return nil }
            bytes.append(high << 4 | low)
            index = text.index(after: next)
        }
        return bytes
    }

    /// ``bytes(lowercase:)`` of a whole string.
    package static func bytes(lowercase text: String) -> [UInt8]? {
        bytes(lowercase: Substring(text).utf8)
    }
}
