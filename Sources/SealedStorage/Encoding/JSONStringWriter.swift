/// Writes a Swift string as a JSON string (RFC 8259) byte for byte as Foundation's `JSONEncoder`
/// writes it: `"` and `\` escaped with a backslash; backspace, form feed, line feed, carriage
/// return and tab as `\b`, `\f`, `\n`, `\r`, `\t`; every other character below U+0020 as `\u00xx`
/// (lowercase hex); `/` as `\/` unless ``Slashes/unescaped`` (`JSONEncoder`'s
/// `.withoutEscapingSlashes`); everything else, DEL and non-ASCII included, as its UTF-8.
///
/// Why one writer below both users: GroupMessaging's channel encoder and GroupSync's state writer
/// each had their own, and they escaped control characters differently; a string's JSON is one
/// concept. Why not `JSONEncoder` itself: it looks at every byte on its own, and both callers
/// write strings on a measured path (a 64 KB message, a 10,000-entry state); this skips eight
/// bytes at a time while none needs escaping, copies a string without escapes whole, and writes
/// one with escapes through a table into a buffer sized by a first pass (its stores checked
/// against the buffer's end once a word).
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
            let table = escapesSlashes ? escapesWithSlashes : escapesWithoutSlashes
            table.withUnsafeBufferPointer { table in
                // Two passes: the first finds what the escapes add (eight bytes at a time while
                // none needs one, the common case), so that a string without escapes is one
                // copy, and one with many is written into a buffer of its escaped length, not
                // appended to the array piece by piece.
                let added = addedBytes(bytes, table: table, escapingSlashes: escapesSlashes)
                guard added > 0 else {
                    output.append(contentsOf: bytes)
                    return
                }
                let length = bytes.count + added
                withUnsafeTemporaryAllocation(of: UInt8.self, capacity: length + wordSlack) { buffer in
                    writeEscaped(bytes, table: table, escapingSlashes: escapesSlashes, length: length, into: buffer)
                    output.append(contentsOf: UnsafeBufferPointer(rebasing: buffer[..<length]))
                }
            }
        }
        output.append(UInt8(ascii: "\""))
    }

    /// For each byte: 0 if it is written as itself, `u` for `\u00xx`, or the character that
    /// follows the backslash of its two-byte escape.
    private static let escapesWithoutSlashes: [UInt8] = (0...255).map { byte -> UInt8 in
        switch byte {
        case 0x08: UInt8(ascii: "b")
        case 0x0C: UInt8(ascii: "f")
        case 0x0A: UInt8(ascii: "n")
        case 0x0D: UInt8(ascii: "r")
        case 0x09: UInt8(ascii: "t")
        case 0..<0x20: UInt8(ascii: "u")
        case 0x22, 0x5C: UInt8(byte)
        default: 0
        }
    }

    /// ``escapesWithoutSlashes`` with `/` written as `\/`.
    private static let escapesWithSlashes: [UInt8] = escapesWithoutSlashes.enumerated().map { byte, escape in
        byte == 0x2F ? 0x2F : escape
    }

    /// How many bytes the escapes of `bytes` add: one for a two-byte escape, five for `\u00xx`.
    private static func addedBytes(_ bytes: UnsafeBufferPointer<UInt8>, table: UnsafeBufferPointer<UInt8>, escapingSlashes: Bool) -> Int {
        guard let base = bytes.baseAddress else { return 0 }
        var added = 0
        var index = 0
        while index < bytes.count {
            while index + 8 <= bytes.count,
                  !anyByteNeedsEscaping(UnsafeRawPointer(base + index).loadUnaligned(as: UInt64.self), escapingSlashes: escapingSlashes) {
                index += 8
            }
            // A word with an escape, or the tail: its bytes one by one, without testing the word
            // at each of them again (text dense with escapes has one in nearly every word).
            let wordEnd = min(index + 8, bytes.count)
            while index < wordEnd {
                switch table[Int(base[index])] {
                case 0: break
                case UInt8(ascii: "u"): added += 5
                default: added += 1
                }
                index += 1
            }
        }
        return added
    }

    /// What the buffer holds beyond the escaped length: the most one word can take escaped.
    private static let wordSlack = 8 * 6

    /// Writes `bytes` escaped, `length` bytes as ``addedBytes(_:table:escapingSlashes:)``
    /// counted them, into `buffer`, which holds ``wordSlack`` bytes more.
    private static func writeEscaped(
        _ bytes: UnsafeBufferPointer<UInt8>, table: UnsafeBufferPointer<UInt8>, escapingSlashes: Bool,
        length: Int, into buffer: UnsafeMutableBufferPointer<UInt8>
    ) {
        guard let base = bytes.baseAddress, let start = buffer.baseAddress, buffer.count == length + wordSlack else {
            preconditionFailure("JSONStringWriter: the buffer is not the escaped length and a word's slack")
        }
        var out = start
        // Checked against the buffer's end once a word (a word can take at most the slack): the
        // first pass sized the buffer from the same bytes with the same table, so no check
        // fails, but a miscount must stop the process rather than write past the buffer.
        let bufferEnd = start + buffer.count
        func reserve(_ count: Int) { precondition(bufferEnd - out >= count, "JSONStringWriter: the escaped length was miscounted") }
        let hex: StaticString = "0123456789abcdef"
        let digits = hex.utf8Start
        var index = 0
        while index < bytes.count {
            while index + 8 <= bytes.count {
                let word = UnsafeRawPointer(base + index).loadUnaligned(as: UInt64.self)
                guard !anyByteNeedsEscaping(word, escapingSlashes: escapingSlashes) else { break }
                reserve(8)
                UnsafeMutableRawPointer(out).storeBytes(of: word, as: UInt64.self)
                out += 8
                index += 8
            }
            let wordEnd = min(index + 8, bytes.count)
            reserve(wordSlack)
            while index < wordEnd {
                let byte = base[index]
                switch table[Int(byte)] {
                case 0:
                    out.pointee = byte
                    out += 1
                case UInt8(ascii: "u"):
                    out[0] = UInt8(ascii: "\\")
                    out[1] = UInt8(ascii: "u")
                    out[2] = UInt8(ascii: "0")
                    out[3] = UInt8(ascii: "0")
                    out[4] = digits[Int(byte >> 4)]
                    out[5] = digits[Int(byte & 0xF)]
                    out += 6
                case let escape:
                    out[0] = UInt8(ascii: "\\")
                    out[1] = escape
                    out += 2
                }
                index += 1
            }
        }
        precondition(out == start + length, "JSONStringWriter: the escaped length was miscounted")
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
}
