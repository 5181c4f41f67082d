#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A parser for XML property lists that cannot be driven into deep recursion or unbounded work.
///
/// Why not Foundation's XML scanner: it recurses once per nested element and knows nothing of
/// GroupVault's bounds, so `<array><!--</array>-->` repeated 16,000 times (nesting that hides
/// every closing tag in a comment, invisible to a textual depth check) overflowed the stack and
/// killed any process that loaded the file. An XML property list is a small grammar, so it is
/// parsed here with an explicit stack of open containers: the depth is checked when a container
/// opens, before anything is allocated for it, and the only loops are single forward passes over
/// the bytes, so the work is linear in the input size (itself bounded by the caller).
///
/// Accepted: an optional byte-order mark, the XML declaration and other processing
/// instructions, comments, one `DOCTYPE` (its internal subset skipped, never interpreted, so no
/// entity it declares can expand), an optional `<plist>` root element around exactly one value,
/// and the value elements `dict`, `key`, `array`, `string`, `integer`, `real`, `true`, `false`,
/// `date` and `data`. Text may use CDATA sections, the five predefined entities and numeric
/// character references. Everything else is refused with the line it is on. A dictionary that
/// names the same key twice is refused too: which of two contradictory values a parser keeps
/// differs between parsers, and entitlements are security configuration.
struct XMLPropertyListParser {
    private let bytes: [UInt8]
    private var position = 0
    private var valueCount = 0

    private init(_ bytes: [UInt8]) {
        self.bytes = bytes
    }

    /// Parses `data`, which must be a whole XML property list.
    static func parse(_ data: Data) throws(PropertyListValue.Refusal) -> PropertyListValue {
        var parser = XMLPropertyListParser([UInt8](data))
        return try parser.document()
    }

    // MARK: Document structure

    private mutating func document() throws(PropertyListValue.Refusal) -> PropertyListValue {
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { position = 3 }
        try skipMarkup(doctypeAllowed: true)
        guard position < bytes.count else { throw malformed("there is no value in it") }
        var tag = try self.tag()
        let wrapped = tag.name == "plist"
        if wrapped {
            guard tag.kind == .open else { throw malformed("<plist> holds no value") }
            try skipMarkup(doctypeAllowed: false)
            tag = try self.tag()
        }
        let root = try value(startingWith: tag)
        try skipMarkup(doctypeAllowed: false)
        if wrapped {
            let close = try self.tag()
            guard close.kind == .close, close.name == "plist" else {
                throw malformed("<plist> holds more than one value (found <\(printable(close.name))>)")
            }
            try skipMarkup(doctypeAllowed: false)
        }
        guard position == bytes.count else { throw malformed("there is content after the property list") }
        return root
    }

    /// A container being filled: the explicit stack that replaces recursion.
    private enum OpenContainer {
        case array([PropertyListValue])
        case dictionary([String: PropertyListValue], pendingKey: String?)
    }

    /// Parses one value whose first tag is `first`, with every nested container on an explicit,
    /// depth-bounded stack.
    private mutating func value(startingWith first: Tag) throws(PropertyListValue.Refusal) -> PropertyListValue {
        var stack: [OpenContainer] = []
        var tag = first
        while true {
            var completed: PropertyListValue?
            switch (tag.kind, tag.name) {
            case (.open, "array"), (.open, "dict"):
                // The root value is level 1, as in the binary path's coding-path bound.
                guard stack.count < PropertyListValue.maximumDepth else { throw PropertyListValue.Refusal.tooDeep }
                try countValue()
                stack.append(tag.name == "array" ? .array([]) : .dictionary([:], pendingKey: nil))
            case (.empty, "array"):
                try countValue()
                completed = .array([])
            case (.empty, "dict"):
                try countValue()
                completed = .dictionary([:])
            case (.close, "array"):
                guard case .array(let items)? = stack.last else { throw unexpected(tag) }
                stack.removeLast()
                completed = .array(items)
            case (.close, "dict"):
                guard case .dictionary(let entries, let pendingKey)? = stack.last else { throw unexpected(tag) }
                if let pendingKey { throw malformed("the key \"\(printable(pendingKey))\" has no value") }
                stack.removeLast()
                completed = .dictionary(entries)
            case (.open, "key"), (.empty, "key"):
                guard case .dictionary(let entries, .none)? = stack.last else {
                    throw malformed(stack.last.map { if case .array = $0 { "<key> inside an <array>" } else { "two <key>s in a row" } } ?? "<key> outside a <dict>")
                }
                let key = tag.kind == .open ? try text(closing: "key") : ""
                guard entries[key] == nil else { throw malformed("the key \"\(printable(key))\" appears twice in one dictionary") }
                stack[stack.count - 1] = .dictionary(entries, pendingKey: key)
            default:
                try countValue()
                completed = try scalar(tag)
            }
            if let value = completed {
                guard let container = stack.popLast() else { return value }
                switch container {
                case .array(var items):
                    items.append(value)
                    stack.append(.array(items))
                case .dictionary(var entries, let pendingKey):
                    guard let pendingKey else { throw malformed("a value in a <dict> has no <key> before it") }
                    entries[pendingKey] = value
                    stack.append(.dictionary(entries, pendingKey: nil))
                }
            }
            try skipMarkup(doctypeAllowed: false)
            tag = try self.tag()
        }
    }

    private mutating func countValue() throws(PropertyListValue.Refusal) {
        valueCount += 1
        guard valueCount <= PropertyListValue.maximumValues else { throw PropertyListValue.Refusal.tooManyValues }
    }

    /// The value of a scalar element whose opening (or empty) tag is `tag`.
    private mutating func scalar(_ tag: Tag) throws(PropertyListValue.Refusal) -> PropertyListValue {
        let content = tag.kind == .open ? try text(closing: tag.name) : (tag.kind == .empty ? "" : nil)
        guard let content, ["string", "integer", "real", "true", "false", "date", "data"].contains(tag.name) else {
            throw unexpected(tag)
        }
        let trimmed = content.trimmingWhitespaceAndNewlines()
        switch tag.name {
        case "string":
            return .string(content)
        case "true", "false":
            guard trimmed.isEmpty else { throw malformed("<\(tag.name)> must be empty") }
            return .boolean(tag.name == "true")
        case "integer":
            guard let integer = Self.integer(trimmed) else {
                throw malformed("<integer>\(printable(trimmed))</integer> is not a 64-bit signed integer")
            }
            return .integer(integer)
        case "real":
            guard let real = Self.real(trimmed) else { throw malformed("<real>\(printable(trimmed))</real> is not a number") }
            return .real(real)
        case "date":
            guard let date = Self.date(trimmed) else {
                throw malformed("<date>\(printable(trimmed))</date> is not a date of the form 2024-01-31T12:00:00Z")
            }
            return .date(date)
        default:
            let base64 = content.unicodeScalars.filter { !$0.isWhitespaceOrNewline }
            guard let data = Data(base64Encoded: String(String.UnicodeScalarView(base64))) else { throw malformed("<data> is not base64") }
            return .data(data)
        }
    }

    // MARK: Scalars

    /// Decimal, or hexadecimal after `0x`, with an optional sign, as property lists write integers.
    private static func integer(_ text: String) -> Int64? {
        var digits = Substring(text)
        var sign = ""
        if let first = digits.first, first == "-" || first == "+" {
            sign = first == "-" ? "-" : ""
            digits = digits.dropFirst()
        }
        var radix = 10
        if digits.hasPrefix("0x") || digits.hasPrefix("0X") {
            radix = 16
            digits = digits.dropFirst(2)
        }
        // Int64(_:radix:) accepts its own sign; one sign is all a property list may have.
        guard let first = digits.first, first != "-", first != "+" else { return nil }
        return Int64(sign + digits, radix: radix)
    }

    private static func real(_ text: String) -> Double? {
        switch text.lowercased() {
        case "nan": return .nan
        case "inf", "+inf", "infinity", "+infinity": return .infinity
        case "-inf", "-infinity": return -.infinity
        default: return Double(text)
        }
    }

    /// `YYYY-MM-DDTHH:MM:SSZ` (UTC), the one form property lists write, computed without a
    /// calendar object: days from the civil date, then seconds.
    private static func date(_ text: String) -> Date? {
        let characters = Array(text.utf8)
        guard characters.count == 20, characters[4] == UInt8(ascii: "-"), characters[7] == UInt8(ascii: "-"),
              characters[10] == UInt8(ascii: "T"), characters[13] == UInt8(ascii: ":"),
              characters[16] == UInt8(ascii: ":"), characters[19] == UInt8(ascii: "Z")
        else { return nil }
        func number(_ range: Range<Int>) -> Int? {
            var result = 0
            for byte in characters[range] {
                guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
                result = result * 10 + Int(byte - UInt8(ascii: "0"))
            }
            return result
        }
        guard let year = number(0..<4), let month = number(5..<7), let day = number(8..<10),
              let hour = number(11..<13), let minute = number(14..<16), let second = number(17..<19),
              (1...12).contains(month), hour < 24, minute < 60, second < 60
        else { return nil }
        let isLeap = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
        let monthLengths = [31, isLeap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31]
        guard (1...monthLengths[month - 1]).contains(day) else { return nil }
        // Howard Hinnant's days_from_civil: days since 1970-01-01 in the proleptic Gregorian calendar.
        let shiftedYear = month <= 2 ? year - 1 : year
        let era = (shiftedYear >= 0 ? shiftedYear : shiftedYear - 399) / 400
        let yearOfEra = shiftedYear - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        let days = era * 146_097 + dayOfEra - 719_468
        return Date(timeIntervalSince1970: Double(days * 86_400 + hour * 3_600 + minute * 60 + second))
    }

    // MARK: Markup

    private struct Tag {
        enum Kind { case open, close, empty }
        let kind: Kind
        let name: String
    }

    private static let whitespace: Set<UInt8> = [0x20, 0x09, 0x0A, 0x0D]

    private func at(_ literal: String) -> Bool {
        var index = position
        for byte in literal.utf8 {
            guard index < bytes.count, bytes[index] == byte else { return false }
            index += 1
        }
        return true
    }

    /// Moves past the next occurrence of `terminator`, or throws naming `what` is unterminated.
    private mutating func skip(past terminator: String, _ what: String) throws(PropertyListValue.Refusal) {
        let start = position
        let first = terminator.utf8.first!
        while position < bytes.count {
            if bytes[position] == first, at(terminator) {
                position += terminator.utf8.count
                return
            }
            position += 1
        }
        position = start
        throw malformed("\(what) is not closed with \"\(terminator)\"")
    }

    /// Skips whitespace, comments and processing instructions (and one DOCTYPE where allowed);
    /// stops at the next tag. Text between elements is refused: a property list has none.
    private mutating func skipMarkup(doctypeAllowed: Bool) throws(PropertyListValue.Refusal) {
        var doctypeAllowed = doctypeAllowed
        while position < bytes.count {
            if Self.whitespace.contains(bytes[position]) {
                position += 1
            } else if at("<!--") {
                try skip(past: "-->", "a comment")
            } else if at("<?") {
                try skip(past: "?>", "a processing instruction")
            } else if at("<!DOCTYPE") {
                guard doctypeAllowed else { throw malformed("a DOCTYPE after the root element") }
                doctypeAllowed = false
                try skipDoctype()
            } else if bytes[position] == UInt8(ascii: "<") {
                return
            } else {
                throw malformed("text outside a value element")
            }
        }
    }

    /// Skips `<!DOCTYPE ...>` including an internal subset in `[...]`, whose declarations are
    /// never interpreted: the only entities expanded are XML's five predefined ones.
    private mutating func skipDoctype() throws(PropertyListValue.Refusal) {
        let start = position
        var quote: UInt8?
        var inSubset = false
        position += "<!DOCTYPE".utf8.count
        while position < bytes.count {
            let byte = bytes[position]
            position += 1
            if let open = quote {
                if byte == open { quote = nil }
            } else if byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "'") {
                quote = byte
            } else if byte == UInt8(ascii: "[") {
                inSubset = true
            } else if byte == UInt8(ascii: "]") {
                inSubset = false
            } else if byte == UInt8(ascii: ">"), !inSubset {
                return
            }
        }
        position = start
        throw malformed("the DOCTYPE is not closed with \">\"")
    }

    /// Reads the tag at the current position (which is `<`), attributes skipped.
    private mutating func tag() throws(PropertyListValue.Refusal) -> Tag {
        guard position < bytes.count else { throw malformed("the property list ends before its last element is closed") }
        guard bytes[position] == UInt8(ascii: "<") else { throw malformed("text outside a value element") }
        if at("<![CDATA[") { throw malformed("a CDATA section outside a value element") }
        position += 1
        let closing = position < bytes.count && bytes[position] == UInt8(ascii: "/")
        if closing { position += 1 }
        let name = self.name()
        guard !name.isEmpty else { throw malformed("a \"<\" that does not begin an element") }
        while position < bytes.count {
            let byte = bytes[position]
            if Self.whitespace.contains(byte) {
                position += 1
            } else if byte == UInt8(ascii: ">") {
                position += 1
                return Tag(kind: closing ? .close : .open, name: name)
            } else if byte == UInt8(ascii: "/"), !closing, position + 1 < bytes.count, bytes[position + 1] == UInt8(ascii: ">") {
                position += 2
                return Tag(kind: .empty, name: name)
            } else if !closing, try skipAttribute() {
                continue
            } else {
                break
            }
        }
        throw malformed("the tag <\(closing ? "/" : "")\(printable(name))> is malformed")
    }

    /// An element or attribute name: ASCII letters, digits and `-_.:`.
    private mutating func name() -> String {
        let start = position
        while position < bytes.count {
            let byte = bytes[position]
            let isNameByte = (byte >= 0x61 && byte <= 0x7A) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x30 && byte <= 0x39)
                || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "_") || byte == UInt8(ascii: ".") || byte == UInt8(ascii: ":")
            guard isNameByte, position - start < 64 else { break }
            position += 1
        }
        return String(decoding: bytes[start..<position], as: UTF8.self)
    }

    /// Skips `name="value"` (or single quotes); `false` when what follows is not an attribute.
    private mutating func skipAttribute() throws(PropertyListValue.Refusal) -> Bool {
        guard !name().isEmpty else { return false }
        while position < bytes.count, Self.whitespace.contains(bytes[position]) { position += 1 }
        guard position < bytes.count, bytes[position] == UInt8(ascii: "=") else { return false }
        position += 1
        while position < bytes.count, Self.whitespace.contains(bytes[position]) { position += 1 }
        guard position < bytes.count, bytes[position] == UInt8(ascii: "\"") || bytes[position] == UInt8(ascii: "'") else { return false }
        let quote = bytes[position]
        position += 1
        while position < bytes.count, bytes[position] != quote {
            guard bytes[position] != UInt8(ascii: "<") else { return false }
            position += 1
        }
        guard position < bytes.count else { return false }
        position += 1
        return true
    }

    /// The text content of the element `name`, up to and including its closing tag: character
    /// data, CDATA sections and references, with comments and processing instructions skipped.
    private mutating func text(closing name: String) throws(PropertyListValue.Refusal) -> String {
        var text: [UInt8] = []
        while position < bytes.count {
            let byte = bytes[position]
            if byte == UInt8(ascii: "<") {
                if at("<!--") {
                    try skip(past: "-->", "a comment")
                } else if at("<?") {
                    try skip(past: "?>", "a processing instruction")
                } else if at("<![CDATA[") {
                    position += "<![CDATA[".utf8.count
                    let start = position
                    try skip(past: "]]>", "a CDATA section")
                    appendNormalizingLineEnds(bytes[start..<(position - 3)], to: &text)
                } else if at("</") {
                    let close = try tag()
                    guard close.name == name else {
                        throw malformed("<\(name)> is closed by </\(printable(close.name))>")
                    }
                    return String(decoding: text, as: UTF8.self)
                } else {
                    throw malformed("an element inside <\(name)>, which holds only text")
                }
            } else if byte == UInt8(ascii: "&") {
                try reference(into: &text)
            } else {
                let end = bytes[position...].firstIndex { $0 == UInt8(ascii: "<") || $0 == UInt8(ascii: "&") } ?? bytes.count
                appendNormalizingLineEnds(bytes[position..<end], to: &text)
                position = end
            }
        }
        throw malformed("<\(name)> is not closed")
    }

    /// XML reads `\r\n` and a lone `\r` as `\n`.
    private func appendNormalizingLineEnds(_ slice: ArraySlice<UInt8>, to text: inout [UInt8]) {
        var previousWasReturn = false
        for byte in slice {
            if byte == 0x0D {
                text.append(0x0A)
            } else if !(byte == 0x0A && previousWasReturn) {
                text.append(byte)
            }
            previousWasReturn = byte == 0x0D
        }
    }

    /// Appends the character of the reference at the current position (`&...;`).
    private mutating func reference(into text: inout [UInt8]) throws(PropertyListValue.Refusal) {
        let start = position + 1
        guard let semicolon = bytes[start..<min(bytes.count, start + 12)].firstIndex(of: UInt8(ascii: ";")) else {
            throw malformed("an \"&\" that is not a reference (write &amp;)")
        }
        let reference = String(decoding: bytes[start..<semicolon], as: UTF8.self)
        let scalar: Unicode.Scalar?
        switch reference {
        case "lt": scalar = "<"
        case "gt": scalar = ">"
        case "amp": scalar = "&"
        case "quot": scalar = "\""
        case "apos": scalar = "'"
        default:
            var digits = Substring(reference)
            guard digits.first == "#" else {
                throw malformed("the entity &\(printable(reference)); is not one of &lt; &gt; &amp; &quot; &apos;")
            }
            digits = digits.dropFirst()
            var radix = 10
            if digits.first == "x" {
                radix = 16
                digits = digits.dropFirst()
            }
            let isDigits = !digits.isEmpty && digits.allSatisfy { $0.isASCII && $0.isHexDigit && (radix == 16 || $0.isNumber) }
            scalar = isDigits ? UInt32(digits, radix: radix).flatMap(Unicode.Scalar.init).flatMap { $0.value == 0 ? nil : $0 } : nil
        }
        guard let scalar else { throw malformed("&\(printable(reference)); is not a valid character reference") }
        text.append(contentsOf: Array(String(Character(scalar)).utf8))
        position = semicolon + 1
    }

    // MARK: Refusals

    private func malformed(_ problem: String) -> PropertyListValue.Refusal {
        let line = bytes[..<min(position, bytes.count)].reduce(1) { $1 == 0x0A ? $0 + 1 : $0 }
        return PropertyListValue.Refusal(description: "is not a property list: XML line \(line): \(problem)")
    }

    private func unexpected(_ tag: Tag) -> PropertyListValue.Refusal {
        let shown = "<\(tag.kind == .close ? "/" : "")\(printable(tag.name))\(tag.kind == .empty ? "/" : "")>"
        return malformed("unexpected \(shown)")
    }

    private func printable(_ text: String) -> String {
        GroupIdentifier.printable(text)
    }
}
