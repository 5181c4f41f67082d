/// Writes a Swift string as a JSON string (RFC 8259) byte for byte as Foundation's `JSONEncoder`
/// writes it: `"` and `\` escaped with a backslash; backspace, form feed, line feed, carriage
/// return and tab as `\b`, `\f`, `\n`, `\r`, `\t`; every other character below U+0020 as `\u00xx`
/// (lowercase hex); `/` as `\/` unless ``Slashes/unescaped`` (`JSONEncoder`'s
/// `.withoutEscapingSlashes`); everything else, DEL and non-ASCII included, as its UTF-8.
///
/// Why one writer below both users: GroupMessaging's channel encoder and GroupSync's state writer
/// each had their own, and they escaped control characters differently; a string's JSON is one
/// concept. Why not `JSONEncoder` itself: it looks at every byte on its own, and both callers
/// write strings on a measured path (a 64 KB message, a 10,000-entry state); this copies the runs
/// between characters that need escaping in bulk, skipping eight bytes at a time.
/// `JSONStringWriterTests` compare it with `JSONEncoder` over every control character, every
/// escape at every offset of a word, and seeded random strings.
package enum JSONStringWriter {
    /// How `/` is written: `JSONEncoder` escapes it unless told `.withoutEscapingSlashes`.
    package enum Slashes: Sendable {
        /// `\/`, as `JSONEncoder` with its default output formatting.
        case escaped
        /// `/`, as `JSONEncoder` with `.withoutEscapingSlashes`.
        case unescaped
    }

    /// Appends `text` as a JSON string, quotation marks included, to `output`.
    package static func write(_ text: String, slashes: Slashes, to output: inout [UInt8]) {
        var text = text
        let escapesSlashes = slashes == .escaped
        output.append(UInt8(ascii: "\""))
        text.withUTF8 { bytes in
            guard let base = bytes.baseAddress else { return }
            var runStart = 0
            var index = 0
            while index < bytes.count {
                // Eight bytes at a time while none of them needs escaping: the common case.
                if index + 8 <= bytes.count,
                   !anyByteNeedsEscaping(UnsafeRawPointer(base + index).loadUnaligned(as: UInt64.self), escapingSlashes: escapesSlashes) {
                    index += 8
                    continue
                }
                let byte = base[index]
                if byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") || (escapesSlashes && byte == UInt8(ascii: "/")) {
                    output.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart..<index]))
                    appendEscape(for: byte, to: &output)
                    runStart = index + 1
                }
                index += 1
            }
            output.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart...]))
        }
        output.append(UInt8(ascii: "\""))
    }

    /// Whether any of the eight bytes in `word` is below 0x20, a quotation mark, a reverse
    /// solidus, or (when escaping slashes) a solidus: the classic "has a zero byte" / "has a byte
    /// less than n" bit tricks, exact for the question "any?"; bytes of 0x80 and above never
    /// match, so multi-byte UTF-8 passes through.
    private static func anyByteNeedsEscaping(_ word: UInt64, escapingSlashes: Bool) -> Bool {
        let ones: UInt64 = 0x0101_0101_0101_0101
        let highBits: UInt64 = 0x8080_8080_8080_8080
        func hasZeroByte(_ value: UInt64) -> Bool { (value &- ones) & ~value & highBits != 0 }
        let belowSpace = (word &- ones &* 0x20) & ~word & highBits != 0
        return belowSpace || hasZeroByte(word ^ (ones &* 0x22)) || hasZeroByte(word ^ (ones &* 0x5C))
            || (escapingSlashes && hasZeroByte(word ^ (ones &* 0x2F)))
    }

    private static func appendEscape(for byte: UInt8, to output: inout [UInt8]) {
        output.append(UInt8(ascii: "\\"))
        switch byte {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): output.append(byte)
        case 0x08: output.append(UInt8(ascii: "b"))
        case 0x0C: output.append(UInt8(ascii: "f"))
        case 0x0A: output.append(UInt8(ascii: "n"))
        case 0x0D: output.append(UInt8(ascii: "r"))
        case 0x09: output.append(UInt8(ascii: "t"))
        default:
            let hex: StaticString = "0123456789abcdef"
            hex.withUTF8Buffer { digits in
                output.append(contentsOf: [UInt8(ascii: "u"), UInt8(ascii: "0"), UInt8(ascii: "0"), digits[Int(byte >> 4)], digits[Int(byte & 0xF)]])
            }
        }
    }
}
