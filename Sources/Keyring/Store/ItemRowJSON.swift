#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import SealedStorage

/// Reads the JSON an item row holds (``ItemTable``: `JSONEncoder`, sorted keys, dates as
/// seconds since 1970, data as base64) straight into a ``KeychainItem``.
///
/// Why not `JSONDecoder`: on a warm lookup it was the largest single cost (about a fifth of the
/// call: a generic tree, coding paths, boxed keyed containers), for one flat object of known
/// keys. This reader accepts only that flat shape: one object whose values are strings,
/// numbers, booleans or `null`, every key one of the item's, written without escapes, none
/// twice. Anything else (an unknown or escaped key, a nested value, a malformed number or
/// escape, text that is not UTF-8) returns `nil`, and the caller decodes with `JSONDecoder`
/// instead, so every row decodes exactly as before: this is a faster path to the same result,
/// never a second, laxer format. The plaintext it reads has already been authenticated.
///
/// Keys are matched as bytes, and the base64 values (the secret, `generic`, the persistent
/// reference) go to Foundation's decoder as bytes, without a `String` of either in between: on
/// a warm lookup making and comparing those strings was half of this reader's instructions.
struct ItemRowJSON {
    private let bytes: UnsafeBufferPointer<UInt8>
    private var index = 0

    private init(_ bytes: UnsafeBufferPointer<UInt8>) {
        self.bytes = bytes
    }

    /// The item `json` holds, or `nil` when it is not in the flat shape described above.
    static func item(from json: [UInt8]) -> KeychainItem? {
        json.withUnsafeBufferPointer { buffer in
            var reader = ItemRowJSON(buffer)
            return reader.readItem()
        }
    }

    // MARK: The item

    private enum Scalar {
        case string(String)
        case number(String)
        case bool(Bool)
        case null
        /// A string holding base64, already decoded (a ``Field/holdsData`` field's value).
        case data(Data)
    }

    /// The item's fields: one bit each in `seen`, so a key given twice is refused.
    private enum Field: Int {
        case itemClass, service, account, accountEncoding, accessGroup, label, itemDescription, comment
        case generic, isSynchronizable, accessibility, accessControl, server, `protocol`, port, path
        case authenticationType, securityDomain, creationDate, modificationDate, persistentReference, secret
        case creator, type, isInvisible, isNegative

        /// Every field's key, in `rawValue` order.
        private static let names: [[UInt8]] = [
            "itemClass", "service", "account", "accountEncoding", "accessGroup", "label", "itemDescription", "comment",
            "generic", "isSynchronizable", "accessibility", "accessControl", "server", "protocol", "port", "path",
            "authenticationType", "securityDomain", "creationDate", "modificationDate", "persistentReference", "secret",
            "creator", "type", "isInvisible", "isNegative",
        ].map { Array($0.utf8) }

        /// The field whose key is `name`'s bytes.
        init?(_ name: UnsafeBufferPointer<UInt8>) {
            for (rawValue, candidate) in Self.names.enumerated() where candidate.count == name.count {
                let equal = candidate.withUnsafeBufferPointer { $0.elementsEqual(name) }
                if equal {
                    self.init(rawValue: rawValue)
                    return
                }
            }
            return nil
        }

        /// Whether the value is `Data`, which `JSONEncoder` writes as a base64 string.
        var holdsData: Bool { self == .secret || self == .generic || self == .persistentReference }
    }

    private mutating func readItem() -> KeychainItem? {
        var item = KeychainItem(secret: Data())
        // The fields `KeychainItem` requires (not optional): absent, JSONDecoder fails.
        var itemClass: ItemClass?
        var isSynchronizable: Bool?
        var accessibility: Accessibility?
        var accessControl: AccessControlFlags?
        var secret: Data?
        var seen: UInt32 = 0

        skipWhitespace()
        guard consume(UInt8(ascii: "{")) else { return nil }
        skipWhitespace()
        if !consume(UInt8(ascii: "}")) {
            while true {
                skipWhitespace()
                guard let field = readField() else { return nil }
                let bit: UInt32 = 1 << UInt32(field.rawValue)
                guard seen & bit == 0 else { return nil }
                seen |= bit
                skipWhitespace()
                guard consume(UInt8(ascii: ":")) else { return nil }
                skipWhitespace()
                let value: Scalar
                if field.holdsData, index < bytes.count, bytes[index] == UInt8(ascii: "\"") {
                    guard let data = readBase64String() else { return nil }
                    value = .data(data)
                } else {
                    guard let scalar = readScalar() else { return nil }
                    value = scalar
                }
                switch field {
                case .itemClass:
                    guard case .string(let text) = value, let decoded = ItemClass(rawValue: text) else { return nil }
                    itemClass = decoded
                case .isSynchronizable:
                    guard case .bool(let flag) = value else { return nil }
                    isSynchronizable = flag
                case .accessibility:
                    guard case .string(let text) = value, let decoded = Accessibility(rawValue: text) else { return nil }
                    accessibility = decoded
                case .accessControl:
                    guard case .number(let text) = value, let raw = UInt(text) else { return nil }
                    accessControl = AccessControlFlags(rawValue: raw)
                case .secret:
                    guard case .data(let data) = value else { return nil }
                    secret = data
                default:
                    // Optional fields: `null` is absent, as decodeIfPresent reads it.
                    if case .null = value { break }
                    guard Self.assign(value, to: field, of: &item) else { return nil }
                }
                skipWhitespace()
                if consume(UInt8(ascii: ",")) { continue }
                guard consume(UInt8(ascii: "}")) else { return nil }
                break
            }
        }
        skipWhitespace()
        guard index == bytes.count, let itemClass, let isSynchronizable, let accessibility, let accessControl, let secret else {
            return nil
        }
        item.itemClass = itemClass
        item.isSynchronizable = isSynchronizable
        item.accessibility = accessibility
        item.accessControl = accessControl
        item.secret = secret
        return item
    }

    /// Sets one optional field from a non-null value; `false` when the value has the wrong type.
    private static func assign(_ value: Scalar, to field: Field, of item: inout KeychainItem) -> Bool {
        switch (field, value) {
        case (.service, .string(let text)): item.service = text
        case (.account, .string(let text)): item.account = text
        case (.label, .string(let text)): item.label = text
        case (.itemDescription, .string(let text)): item.itemDescription = text
        case (.comment, .string(let text)): item.comment = text
        case (.server, .string(let text)): item.server = text
        case (.protocol, .string(let text)): item.protocol = text
        case (.path, .string(let text)): item.path = text
        case (.authenticationType, .string(let text)): item.authenticationType = text
        case (.securityDomain, .string(let text)): item.securityDomain = text
        case (.accountEncoding, .string(let text)):
            guard let encoding = AttributeEncoding(rawValue: text) else { return false }
            item.accountEncoding = encoding
        case (.accessGroup, .string(let text)):
            guard let group = GroupIdentifier(rawValue: text) else { return false }
            item.accessGroup = group
        case (.generic, .data(let data)): item.generic = data
        case (.persistentReference, .data(let data)): item.persistentReference = data
        case (.port, .number(let text)):
            guard let port = Int(text) else { return false }
            item.port = port
        case (.creationDate, .number(let text)):
            guard let seconds = Double(text) else { return false }
            item.creationDate = Date(timeIntervalSince1970: seconds)
        case (.creator, .number(let text)):
            guard let code = UInt32(text) else { return false }
            item.creator = .number(code)
        case (.creator, .string(let text)): item.creator = .text(text)
        case (.type, .number(let text)):
            guard let code = UInt32(text) else { return false }
            item.type = .number(code)
        case (.type, .string(let text)): item.type = .text(text)
        case (.isInvisible, .bool(let flag)): item.isInvisible = flag
        case (.isNegative, .bool(let flag)): item.isNegative = flag
        case (.modificationDate, .number(let text)):
            guard let seconds = Double(text) else { return false }
            item.modificationDate = Date(timeIntervalSince1970: seconds)
        default:
            return false
        }
        return true
    }

    // MARK: Keys and base64

    /// The field a key names. `nil` for any other key, and for a key written with an escape:
    /// legal JSON, but never what the store writes, so `JSONDecoder` decides such a row.
    private mutating func readField() -> Field? {
        guard consume(UInt8(ascii: "\"")) else { return nil }
        let start = index
        while index < bytes.count, bytes[index] != UInt8(ascii: "\"") {
            if bytes[index] == UInt8(ascii: "\\") { return nil }
            index += 1
        }
        guard index < bytes.count else { return nil }
        let name = UnsafeBufferPointer(rebasing: bytes[start..<index])
        index += 1
        return Field(name)
    }

    /// A JSON string holding base64, decoded by Foundation's decoder, as `JSONDecoder` decodes
    /// `Data`. From the bytes themselves when the string's only escapes are `\/` (`JSONEncoder`
    /// escapes every `/`, and base64 has them; ``JSONBase64String``); through ``readString()``
    /// for any other escape. `nil` when the string or its base64 is invalid.
    private mutating func readBase64String() -> Data? {
        let opening = index
        guard consume(UInt8(ascii: "\"")) else { return nil }
        switch JSONBase64String.scan(bytes, contentsFrom: index) {
        case .decoded(let data, let closingQuote):
            index = closingQuote + 1
            return data
        case .otherEscape:
            return readBase64ThroughString(from: opening)
        case .invalid:
            return nil
        }
    }

    private mutating func readBase64ThroughString(from opening: Int) -> Data? {
        index = opening
        guard let text = readString() else { return nil }
        return Data(base64Encoded: text)
    }

    // MARK: JSON scalars

    private mutating func readScalar() -> Scalar? {
        guard index < bytes.count else { return nil }
        switch bytes[index] {
        case UInt8(ascii: "\""): return readString().map(Scalar.string)
        case UInt8(ascii: "t"): return consumeWord("true") ? .bool(true) : nil
        case UInt8(ascii: "f"): return consumeWord("false") ? .bool(false) : nil
        case UInt8(ascii: "n"): return consumeWord("null") ? .null : nil
        default: return readNumber().map(Scalar.number)
        }
    }

    /// A JSON number's text, checked against JSON's grammar (no `+`, no leading zeros, no
    /// bare `.`), which Swift's own number parsers would otherwise be laxer than.
    private mutating func readNumber() -> String? {
        let start = index
        _ = consume(UInt8(ascii: "-"))
        guard let first = peekDigit() else { return nil }
        index += 1
        if first != 0 { skipDigits() }
        if consume(UInt8(ascii: ".")) {
            guard peekDigit() != nil else { return nil }
            skipDigits()
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
            index += 1
            if !consume(UInt8(ascii: "+")) { _ = consume(UInt8(ascii: "-")) }
            guard peekDigit() != nil else { return nil }
            skipDigits()
        }
        return String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
    }

    /// A JSON string, its escapes resolved; `nil` for a raw control character, a bad escape,
    /// an unpaired surrogate or bytes that are not UTF-8.
    private mutating func readString() -> String? {
        guard consume(UInt8(ascii: "\"")) else { return nil }
        let start = index
        // The common case: no escape, so the text is the bytes themselves; and for ASCII (most
        // attributes, every base64 value) there is nothing to validate.
        var ascii = true
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") {
                let text = UnsafeBufferPointer(rebasing: bytes[start..<index])
                index += 1
                return ascii ? String(decoding: text, as: UTF8.self) : String(validating: text, as: UTF8.self)
            }
            if byte == UInt8(ascii: "\\") { break }
            if byte < 0x20 { return nil }
            if byte >= 0x80 { ascii = false }
            index += 1
        }
        var decoded = Array(bytes[start..<index])
        while index < bytes.count {
            let byte = bytes[index]
            index += 1
            switch byte {
            case UInt8(ascii: "\""):
                return String(validating: decoded, as: UTF8.self)
            case UInt8(ascii: "\\"):
                guard index < bytes.count else { return nil }
                let escape = bytes[index]
                index += 1
                switch escape {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): decoded.append(escape)
                case UInt8(ascii: "b"): decoded.append(0x08)
                case UInt8(ascii: "f"): decoded.append(0x0C)
                case UInt8(ascii: "n"): decoded.append(0x0A)
                case UInt8(ascii: "r"): decoded.append(0x0D)
                case UInt8(ascii: "t"): decoded.append(0x09)
                case UInt8(ascii: "u"):
                    guard let scalar = readEscapedScalar() else { return nil }
                    decoded.append(contentsOf: String(Character(scalar)).utf8)
                default:
                    return nil
                }
            default:
                if byte < 0x20 { return nil }
                decoded.append(byte)
            }
        }
        return nil
    }

    /// The scalar of a `\u` escape (the `\u` already read), pairing surrogates.
    private mutating func readEscapedScalar() -> Unicode.Scalar? {
        guard let high = readHex4() else { return nil }
        if (0xD800..<0xDC00).contains(high) {
            guard consume(UInt8(ascii: "\\")), consume(UInt8(ascii: "u")), let low = readHex4(), (0xDC00..<0xE000).contains(low) else { return nil }
            return Unicode.Scalar(0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00))
        }
        return Unicode.Scalar(high)
    }

    private mutating func readHex4() -> UInt32? {
        guard index + 4 <= bytes.count else { return nil }
        var value: UInt32 = 0
        for _ in 0..<4 {
            let byte = bytes[index]
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default: return nil
            }
            value = value << 4 | UInt32(digit)
            index += 1
        }
        return value
    }

    // MARK: Bytes

    private mutating func consume(_ byte: UInt8) -> Bool {
        guard index < bytes.count, bytes[index] == byte else { return false }
        index += 1
        return true
    }

    private mutating func consumeWord(_ word: StaticString) -> Bool {
        let count = word.utf8CodeUnitCount
        guard index + count <= bytes.count else { return false }
        let matches = word.withUTF8Buffer { expected in
            expected.elementsEqual(UnsafeBufferPointer(rebasing: bytes[index..<(index + count)]))
        }
        guard matches else { return false }
        index += count
        return true
    }

    private func peekDigit() -> UInt8? {
        guard index < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[index]) else { return nil }
        return bytes[index] - UInt8(ascii: "0")
    }

    private mutating func skipDigits() {
        while peekDigit() != nil { index += 1 }
    }

    private mutating func skipWhitespace() {
        while index < bytes.count {
            switch bytes[index] {
            case 0x20, 0x09, 0x0A, 0x0D: index += 1
            default: return
            }
        }
    }
}
