/// Whether a JSON text names a member twice in one object.
///
/// `JSONDecoder` reads `{"key":"a","key":"b"}` as `"a"` (the first), Python's `json` as `"b"`
/// (the last): two implementations of one format then read one authentic payload as two
/// different values. So GroupSync refuses such a text (docs/SYNC.md, section 5) and checks it
/// here, after `JSONDecoder` accepted it: the scanner walks a text already known to be JSON, and
/// answers `false` for anything it does not expect.
package enum JSONMemberNames {
    /// Deeper nesting than this is refused (the decoder's own limit is of the same order).
    static let maximumDepth = 512

    /// `true` when no object in `json` gives a member name twice. Names are compared after their
    /// escapes are undone, as Swift strings (so canonically equivalent names are one name, as
    /// they are one key to `JSONDecoder`).
    package static func areUnique(in json: [UInt8]) -> Bool {
        var scanner = Scanner(bytes: json)
        // A byte order mark, which `JSONDecoder` skips.
        if json.starts(with: [0xEF, 0xBB, 0xBF]) { scanner.index = 3 }
        guard scanner.value(depth: 0) else { return false }
        scanner.skipWhitespace()
        return scanner.index == json.count
    }

    private struct Scanner {
        let bytes: [UInt8]
        var index = 0

        init(bytes: [UInt8]) { self.bytes = bytes }

        private var current: UInt8? { index < bytes.count ? bytes[index] : nil }

        mutating func skipWhitespace() {
            while let byte = current, byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D { index += 1 }
        }

        mutating func value(depth: Int) -> Bool {
            guard depth < JSONMemberNames.maximumDepth else { return false }
            skipWhitespace()
            switch current {
            case UInt8(ascii: "{"): return object(depth: depth)
            case UInt8(ascii: "["): return array(depth: depth)
            case UInt8(ascii: "\""): return string() != nil
            case nil: return false
            default:
                // A number, `true`, `false` or `null`: up to the next delimiter.
                let start = index
                while let byte = current, !Self.delimiters.contains(byte) { index += 1 }
                return index > start
            }
        }

        private static let delimiters: Set<UInt8> = [0x20, 0x09, 0x0A, 0x0D, UInt8(ascii: ","), UInt8(ascii: "]"), UInt8(ascii: "}")]

        private mutating func object(depth: Int) -> Bool {
            index += 1
            var names = Set<String>()
            skipWhitespace()
            if current == UInt8(ascii: "}") { index += 1; return true }
            while true {
                skipWhitespace()
                guard current == UInt8(ascii: "\""), let name = string(), names.insert(name).inserted else { return false }
                skipWhitespace()
                guard current == UInt8(ascii: ":") else { return false }
                index += 1
                guard value(depth: depth + 1) else { return false }
                skipWhitespace()
                switch current {
                case UInt8(ascii: ","): index += 1
                case UInt8(ascii: "}"): index += 1; return true
                default: return false
                }
            }
        }

        private mutating func array(depth: Int) -> Bool {
            index += 1
            skipWhitespace()
            if current == UInt8(ascii: "]") { index += 1; return true }
            while true {
                guard value(depth: depth + 1) else { return false }
                skipWhitespace()
                switch current {
                case UInt8(ascii: ","): index += 1
                case UInt8(ascii: "]"): index += 1; return true
                default: return false
                }
            }
        }

        /// The string at `index` (a `"`), its escapes undone; `nil` if it does not end.
        private mutating func string() -> String? {
            index += 1
            var utf8: [UInt8] = []
            var pendingHighSurrogate: UInt16?
            func flushSurrogate() {
                // A lone surrogate, which the decoder reads as U+FFFD.
                if pendingHighSurrogate != nil { utf8 += [0xEF, 0xBF, 0xBD] }
                pendingHighSurrogate = nil
            }
            while let byte = current {
                index += 1
                switch byte {
                case UInt8(ascii: "\""):
                    flushSurrogate()
                    return String(decoding: utf8, as: UTF8.self)
                case UInt8(ascii: "\\"):
                    guard let escape = current else { return nil }
                    index += 1
                    if escape == UInt8(ascii: "u") {
                        guard let unit = hexUnit() else { return nil }
                        if let high = pendingHighSurrogate, (0xDC00...0xDFFF).contains(unit) {
                            let scalar = 0x10000 + ((UInt32(high) - 0xD800) << 10) + (UInt32(unit) - 0xDC00)
                            pendingHighSurrogate = nil
                            utf8 += Array(String(Unicode.Scalar(scalar)!).utf8)
                            continue
                        }
                        flushSurrogate()
                        if (0xD800...0xDBFF).contains(unit) { pendingHighSurrogate = unit; continue }
                        utf8 += Array(String(Unicode.Scalar(UInt32(unit)) ?? "\u{FFFD}").utf8)
                        continue
                    }
                    flushSurrogate()
                    switch escape {
                    case UInt8(ascii: "b"): utf8.append(0x08)
                    case UInt8(ascii: "f"): utf8.append(0x0C)
                    case UInt8(ascii: "n"): utf8.append(0x0A)
                    case UInt8(ascii: "r"): utf8.append(0x0D)
                    case UInt8(ascii: "t"): utf8.append(0x09)
                    default: utf8.append(escape)  // `"`, `\` and `/` stand for themselves
                    }
                default:
                    flushSurrogate()
                    utf8.append(byte)
                }
            }
            return nil
        }

        /// The four hexadecimal digits after `\u`.
        private mutating func hexUnit() -> UInt16? {
            guard index + 4 <= bytes.count else { return nil }
            var unit: UInt16 = 0
            for byte in bytes[index..<(index + 4)] {
                guard let digit = Self.hexValue(byte) else { return nil }
                unit = unit << 4 | UInt16(digit)
            }
            index += 4
            return unit
        }

        private static func hexValue(_ byte: UInt8) -> UInt8? {
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
            default: nil
            }
        }
    }
}
