import Foundation

/// Decodes a message's CBOR body (docs/MESSAGING.md, "Body formats") into a `Decodable` type:
/// the reader of what ``MessageCBOREncoder`` writes, and of what any encoder of the subset
/// writes.
///
/// The body is read whole by ``CBORItemReader``, which refuses anything outside the subset,
/// then handed to the type. Numbers are exact or refused: an integer type takes an integer of
/// major type 0 or 1 in its range; `Double` takes float16, float32, float64, or an integer it
/// holds exactly; `Float` the same, and a float64 only if it holds the value exactly (NaN
/// included); no integer type takes a floating-point number. `Data` takes a byte string,
/// `URL` a text string `URL(string:)` parses, `Decimal` a text string exactly as
/// `Decimal.description` writes it. Failures are `DecodingError`s with the coding path, whose
/// underlying error is a ``CBORReadError`` with the byte offset; neither quotes a value.
///
/// Exposed to the benchmarks alone (`@_spi(Benchmarks)`). It is not part of the module's API.
@_spi(Benchmarks) public enum MessageCBORDecoder {
    /// The value of type `type` that `body` encodes.
    @_spi(Benchmarks) public static func decode<Value: Decodable>(_ type: Value.Type, from body: Data) throws -> Value {
        // Data's withUnsafeBytes rethrows untyped errors: the reader's comes out as a Result.
        let read = body.withUnsafeBytes { bytes in Result { () throws(CBORReadError) in try CBORItemReader.read(bytes) } }
        switch read {
        case .success(let root):
            return try CBORScalars.decode(type, from: root, codingPath: [])
        case .failure(let error):
            throw DecodingError.dataCorrupted(DecodingError.Context(
                codingPath: error.path, debugDescription: "not CBOR of the channel's subset: \(error)", underlyingError: error))
        }
    }
}

/// The conversions from one item to one Swift value, shared by the three kinds of container.
private enum CBORScalars {
    static func context(_ codingPath: [any CodingKey], _ reason: String, at offset: Int) -> DecodingError.Context {
        let cause = CBORReadError(reason, at: offset)
        return DecodingError.Context(codingPath: codingPath, debugDescription: cause.description, underlyingError: cause)
    }

    /// The error for `item` where a `type` was expected: `valueNotFound` for null, as
    /// `JSONDecoder` says, `typeMismatch` otherwise.
    static func mismatch(_ type: Any.Type, _ item: CBORItem, _ codingPath: [any CodingKey]) -> DecodingError {
        if item.isNull {
            return .valueNotFound(type, context(codingPath, "null where \(type) was expected", at: item.offset))
        }
        return .typeMismatch(type, context(codingPath, "\(item.kindName) where \(type) was expected", at: item.offset))
    }

    static func bool(_ item: CBORItem, _ codingPath: [any CodingKey]) throws -> Bool {
        guard case .bool(let value) = item.value else { throw mismatch(Bool.self, item, codingPath) }
        return value
    }

    static func string(_ item: CBORItem, _ codingPath: [any CodingKey]) throws -> String {
        guard case .text(let value) = item.value else { throw mismatch(String.self, item, codingPath) }
        return value
    }

    static func integer<Number: FixedWidthInteger>(_ item: CBORItem, _ codingPath: [any CodingKey]) throws -> Number {
        let number: Number?
        switch item.value {
        case .unsigned(let value):
            number = Number(exactly: value)
        case .negative(let value):
            // -1 - value, which Int64 holds when value does; beyond it no Swift integer does.
            number = value <= UInt64(Int64.max) ? Number(exactly: ~Int64(value)) : nil
        default:
            throw mismatch(Number.self, item, codingPath)
        }
        guard let number else {
            throw DecodingError.dataCorrupted(context(codingPath, "an integer out of the range of \(Number.self)", at: item.offset))
        }
        return number
    }

    static func double(_ item: CBORItem, _ codingPath: [any CodingKey]) throws -> Double {
        let number: Double?
        switch item.value {
        case .float(let value): number = value
        case .unsigned(let value): number = Double(exactly: value)
        case .negative(let value): number = value <= UInt64(Int64.max) ? Double(exactly: ~Int64(value)) : nil
        default: throw mismatch(Double.self, item, codingPath)
        }
        guard let number else {
            throw DecodingError.dataCorrupted(context(codingPath, "an integer Double cannot hold exactly", at: item.offset))
        }
        return number
    }

    static func float(_ item: CBORItem, _ codingPath: [any CodingKey]) throws -> Float {
        let wide: Double
        do {
            wide = try double(item, codingPath)
        } catch DecodingError.typeMismatch(_, _), DecodingError.valueNotFound(_, _) {
            throw mismatch(Float.self, item, codingPath)
        }
        if wide.isNaN { return .nan }
        let number = Float(wide)
        guard Double(number) == wide else {
            throw DecodingError.dataCorrupted(context(codingPath, "a number Float cannot hold exactly", at: item.offset))
        }
        return number
    }

    /// `type` from `item`: the types the subset writes other than their `Codable` form, or
    /// the type's own `init(from:)`.
    static func decode<Value: Decodable>(_ type: Value.Type, from item: CBORItem, codingPath: [any CodingKey]) throws -> Value {
        if type == Data.self {
            guard case .bytes(let data) = item.value else { throw mismatch(Data.self, item, codingPath) }
            return data as! Value
        }
        if type == URL.self {
            guard let url = URL(string: try string(item, codingPath)) else {
                throw DecodingError.dataCorrupted(context(codingPath, "a text string that is not a URL", at: item.offset))
            }
            return url as! Value
        }
        if type == Decimal.self {
            let text = try string(item, codingPath)
            // Exactly the form the encoder writes, so that a decimal has one encoding and no
            // digit is silently dropped.
            guard let decimal = Decimal(string: text, locale: nil), !decimal.isNaN, decimal.description == text else {
                throw DecodingError.dataCorrupted(context(codingPath, "a text string that is not a Decimal in its canonical form", at: item.offset))
            }
            return decimal as! Value
        }
        return try Value(from: CBORTreeDecoder(item: item, codingPath: codingPath))
    }
}

/// The `Decoder` handed to `init(from:)`, over one item.
private struct CBORTreeDecoder: Decoder {
    let item: CBORItem
    let codingPath: [any CodingKey]
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        guard case .map(let map) = item.value else {
            throw CBORScalars.mismatch(KeyedDecodingContainer<Key>.self, item, codingPath)
        }
        return KeyedDecodingContainer(CBORKeyedDecodingContainer<Key>(map: map, offset: item.offset, codingPath: codingPath))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        guard case .array(let items) = item.value else {
            throw CBORScalars.mismatch((any UnkeyedDecodingContainer).self, item, codingPath)
        }
        return CBORUnkeyedDecodingContainer(items: items, offset: item.offset, codingPath: codingPath)
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer { self }
}

extension CBORTreeDecoder: SingleValueDecodingContainer {
    func decodeNil() -> Bool { item.isNull }
    func decode(_ type: Bool.Type) throws -> Bool { try CBORScalars.bool(item, codingPath) }
    func decode(_ type: String.Type) throws -> String { try CBORScalars.string(item, codingPath) }
    func decode(_ type: Double.Type) throws -> Double { try CBORScalars.double(item, codingPath) }
    func decode(_ type: Float.Type) throws -> Float { try CBORScalars.float(item, codingPath) }
    func decode(_ type: Int.Type) throws -> Int { try CBORScalars.integer(item, codingPath) }
    func decode(_ type: Int8.Type) throws -> Int8 { try CBORScalars.integer(item, codingPath) }
    func decode(_ type: Int16.Type) throws -> Int16 { try CBORScalars.integer(item, codingPath) }
    func decode(_ type: Int32.Type) throws -> Int32 { try CBORScalars.integer(item, codingPath) }
    func decode(_ type: Int64.Type) throws -> Int64 { try CBORScalars.integer(item, codingPath) }
    func decode(_ type: UInt.Type) throws -> UInt { try CBORScalars.integer(item, codingPath) }
    func decode(_ type: UInt8.Type) throws -> UInt8 { try CBORScalars.integer(item, codingPath) }
    func decode(_ type: UInt16.Type) throws -> UInt16 { try CBORScalars.integer(item, codingPath) }
    func decode(_ type: UInt32.Type) throws -> UInt32 { try CBORScalars.integer(item, codingPath) }
    func decode(_ type: UInt64.Type) throws -> UInt64 { try CBORScalars.integer(item, codingPath) }
    func decode<Value: Decodable>(_ type: Value.Type) throws -> Value { try CBORScalars.decode(type, from: item, codingPath: codingPath) }
}

private struct CBORKeyedDecodingContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let map: CBORItem.Map
    /// The map's own offset, for a missing key.
    let offset: Int
    let codingPath: [any CodingKey]

    var allKeys: [Key] { map.keys.compactMap { Key(stringValue: $0) } }

    func contains(_ key: Key) -> Bool { map.positions[key.stringValue] != nil }

    private func item(_ key: Key) throws -> CBORItem {
        guard let item = map[key.stringValue] else {
            throw DecodingError.keyNotFound(key, CBORScalars.context(codingPath, "a map without a key the type requires", at: offset))
        }
        return item
    }

    private func path(_ key: Key) -> [any CodingKey] { codingPath + [key] }

    func decodeNil(forKey key: Key) throws -> Bool { try item(key).isNull }
    func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool { try CBORScalars.bool(item(key), path(key)) }
    func decode(_ type: String.Type, forKey key: Key) throws -> String { try CBORScalars.string(item(key), path(key)) }
    func decode(_ type: Double.Type, forKey key: Key) throws -> Double { try CBORScalars.double(item(key), path(key)) }
    func decode(_ type: Float.Type, forKey key: Key) throws -> Float { try CBORScalars.float(item(key), path(key)) }
    func decode(_ type: Int.Type, forKey key: Key) throws -> Int { try CBORScalars.integer(item(key), path(key)) }
    func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 { try CBORScalars.integer(item(key), path(key)) }
    func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 { try CBORScalars.integer(item(key), path(key)) }
    func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 { try CBORScalars.integer(item(key), path(key)) }
    func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 { try CBORScalars.integer(item(key), path(key)) }
    func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt { try CBORScalars.integer(item(key), path(key)) }
    func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 { try CBORScalars.integer(item(key), path(key)) }
    func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 { try CBORScalars.integer(item(key), path(key)) }
    func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 { try CBORScalars.integer(item(key), path(key)) }
    func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 { try CBORScalars.integer(item(key), path(key)) }
    func decode<Value: Decodable>(_ type: Value.Type, forKey key: Key) throws -> Value {
        try CBORScalars.decode(type, from: item(key), codingPath: path(key))
    }

    func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws -> KeyedDecodingContainer<NestedKey> {
        try CBORTreeDecoder(item: item(key), codingPath: path(key)).container(keyedBy: type)
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        try CBORTreeDecoder(item: item(key), codingPath: path(key)).unkeyedContainer()
    }

    /// The decoder of the key `super` (null when absent, as `JSONDecoder` gives).
    func superDecoder() throws -> any Decoder {
        let key = BodyCodingKey(stringValue: BodyCodingKey.superKey)
        return CBORTreeDecoder(item: map[key.stringValue] ?? CBORItem(value: .null, offset: offset), codingPath: codingPath + [key])
    }

    func superDecoder(forKey key: Key) throws -> any Decoder {
        CBORTreeDecoder(item: map[key.stringValue] ?? CBORItem(value: .null, offset: offset), codingPath: path(key))
    }
}

private struct CBORUnkeyedDecodingContainer: UnkeyedDecodingContainer {
    let items: [CBORItem]
    /// The array's own offset, for reading past its end.
    let offset: Int
    let codingPath: [any CodingKey]
    private(set) var currentIndex = 0

    init(items: [CBORItem], offset: Int, codingPath: [any CodingKey]) {
        self.items = items
        self.offset = offset
        self.codingPath = codingPath
    }

    var count: Int? { items.count }
    var isAtEnd: Bool { currentIndex >= items.count }

    private var path: [any CodingKey] { codingPath + [BodyCodingKey(intValue: currentIndex)] }

    /// The next item (the index moves on only once it decoded).
    private func next(_ type: Any.Type) throws -> CBORItem {
        guard !isAtEnd else {
            throw DecodingError.valueNotFound(type, CBORScalars.context(path, "an array with no more items", at: offset))
        }
        return items[currentIndex]
    }

    private mutating func take<Value>(_ type: Value.Type, _ read: (CBORItem, [any CodingKey]) throws -> Value) throws -> Value {
        let value = try read(next(type), path)
        currentIndex += 1
        return value
    }

    mutating func decodeNil() throws -> Bool {
        guard try next(Never?.self).isNull else { return false }
        currentIndex += 1
        return true
    }

    mutating func decode(_ type: Bool.Type) throws -> Bool { try take(type, CBORScalars.bool) }
    mutating func decode(_ type: String.Type) throws -> String { try take(type, CBORScalars.string) }
    mutating func decode(_ type: Double.Type) throws -> Double { try take(type, CBORScalars.double) }
    mutating func decode(_ type: Float.Type) throws -> Float { try take(type, CBORScalars.float) }
    mutating func decode(_ type: Int.Type) throws -> Int { try take(type, CBORScalars.integer) }
    mutating func decode(_ type: Int8.Type) throws -> Int8 { try take(type, CBORScalars.integer) }
    mutating func decode(_ type: Int16.Type) throws -> Int16 { try take(type, CBORScalars.integer) }
    mutating func decode(_ type: Int32.Type) throws -> Int32 { try take(type, CBORScalars.integer) }
    mutating func decode(_ type: Int64.Type) throws -> Int64 { try take(type, CBORScalars.integer) }
    mutating func decode(_ type: UInt.Type) throws -> UInt { try take(type, CBORScalars.integer) }
    mutating func decode(_ type: UInt8.Type) throws -> UInt8 { try take(type, CBORScalars.integer) }
    mutating func decode(_ type: UInt16.Type) throws -> UInt16 { try take(type, CBORScalars.integer) }
    mutating func decode(_ type: UInt32.Type) throws -> UInt32 { try take(type, CBORScalars.integer) }
    mutating func decode(_ type: UInt64.Type) throws -> UInt64 { try take(type, CBORScalars.integer) }
    mutating func decode<Value: Decodable>(_ type: Value.Type) throws -> Value {
        try take(type) { item, path in try CBORScalars.decode(type, from: item, codingPath: path) }
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws -> KeyedDecodingContainer<NestedKey> {
        try take(KeyedDecodingContainer<NestedKey>.self) { item, path in try CBORTreeDecoder(item: item, codingPath: path).container(keyedBy: type) }
    }

    mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
        try take((any UnkeyedDecodingContainer).self) { item, path in try CBORTreeDecoder(item: item, codingPath: path).unkeyedContainer() }
    }

    mutating func superDecoder() throws -> any Decoder {
        try take((any Decoder).self) { item, path in CBORTreeDecoder(item: item, codingPath: path) }
    }
}
