import Foundation
import SealedStorage

/// Encodes a message's body as CBOR (RFC 8949) in the subset docs/MESSAGING.md ("Body formats")
/// defines, for peers whose ready listed CBOR.
///
/// The mapping of `Codable`: a keyed container is a map with text-string keys (definite
/// length, in the order first encoded; a key encoded twice keeps its last value, as
/// `JSONEncoder` does), an unkeyed container an array, `nil` null, `Bool` false/true, every
/// integer type major type 0 or 1, `Double` float64, `Float` float32, `String` a text string,
/// `Data` a byte string, `Date` (its own `Codable` form) float64 seconds since 2001-01-01,
/// `URL` a text string of its absolute string, `Decimal` a text string of its description, and
/// a super-encoder the key `super`. Every head is in its shortest form. A value that encodes
/// nothing is an empty map. Non-finite floating-point numbers are written as they are (CBOR has
/// them); a `Decimal` that is not a number is refused with `EncodingError.invalidValue`.
///
/// Why CBOR: at 64 KB the JSON decoder was the largest part of the channel's own work in a
/// round trip; a CBOR text string is a length and the bytes, read without scanning for escapes
/// (docs/ARCHITECTURE.md, "Message bodies in CBOR, negotiated in the ready").
///
/// Its containers have the same shape as ``MessageJSONEncoder``'s, written again on purpose:
/// one tree encoder generic over both formats' leaves, tried, made `MessageJSONEncoder` take
/// 1.45x `JSONEncoder`'s time for a 16-byte message instead of 0.85x (docs/ARCHITECTURE.md,
/// "Message bodies in CBOR").
///
/// Exposed to the benchmarks alone (`@_spi(Benchmarks)`), which measure it beside the JSON
/// encoders. It is not part of the module's API.
@_spi(Benchmarks) public enum MessageCBOREncoder {
    /// The CBOR of `value`.
    @_spi(Benchmarks) public static func encode<Value: Encodable>(_ value: Value) throws -> [UInt8] {
        let root = try CBORTreeEncoder.node(for: value, codingPath: [])
        var output: [UInt8] = []
        output.reserveCapacity(root.estimatedByteCount)
        root.write(to: &output)
        return output
    }
}

/// A CBOR item being built. Maps and arrays are boxes (classes) because `Encoder` hands out
/// containers that their owner fills after the container has been placed in its parent.
private enum CBORNode {
    case unsigned(UInt64)
    /// The negative integer `-1 - n`, as major type 1 carries it.
    case negative(UInt64)
    case float32(Float)
    case float64(Double)
    case bool(Bool)
    case null
    case text(String)
    case bytes(Data)
    case map(CBORMapBox)
    case array(CBORArrayBox)
    /// What a super-encoder produced, known only once its owner is done with it.
    case deferred(CBORTreeEncoder)

    static var emptyMap: CBORNode { .map(CBORMapBox()) }

    static func integer<Value: BinaryInteger>(_ value: Value) -> CBORNode {
        // Every Swift integer type fits 64 bits; -1 - v of a negative Int64 is its complement.
        value >= 0 ? .unsigned(UInt64(value)) : .negative(UInt64(bitPattern: ~Int64(value)))
    }

    /// An upper bound, so that the output is allocated once.
    var estimatedByteCount: Int {
        switch self {
        case .unsigned, .negative, .float64: return 9
        case .float32: return 5
        case .bool, .null: return 1
        case .text(let text): return text.utf8.count + 9
        case .bytes(let data): return data.count + 9
        case .map(let box):
            return box.values.reduce(9) { $0 + $1.estimatedByteCount } + box.keys.reduce(0) { $0 + $1.utf8.count + 9 }
        case .array(let box): return box.values.reduce(9) { $0 + $1.estimatedByteCount }
        case .deferred(let encoder): return (encoder.node ?? .emptyMap).estimatedByteCount
        }
    }

    func write(to output: inout [UInt8]) {
        switch self {
        case .unsigned(let value):
            CBORHead.write(.unsigned, value, to: &output)
        case .negative(let value):
            CBORHead.write(.negative, value, to: &output)
        case .float32(let value):
            output.append(CBORHead.float32Byte)
            output.appendBigEndian(value.bitPattern)
        case .float64(let value):
            output.append(CBORHead.float64Byte)
            output.appendBigEndian(value.bitPattern)
        case .bool(let value):
            output.append(value ? CBORHead.trueByte : CBORHead.falseByte)
        case .null:
            output.append(CBORHead.nullByte)
        case .text(let text):
            Self.writeText(text, to: &output)
        case .bytes(let data):
            CBORHead.write(.bytes, UInt64(data.count), to: &output)
            output.append(contentsOf: data)
        case .map(let box):
            CBORHead.write(.map, UInt64(box.keys.count), to: &output)
            for index in box.keys.indices {
                Self.writeText(box.keys[index], to: &output)
                box.values[index].write(to: &output)
            }
        case .array(let box):
            CBORHead.write(.array, UInt64(box.values.count), to: &output)
            for value in box.values { value.write(to: &output) }
        case .deferred(let encoder):
            (encoder.node ?? .emptyMap).write(to: &output)
        }
    }

    private static func writeText(_ text: String, to output: inout [UInt8]) {
        var text = text
        // A native string's UTF-8 is copied in one piece; a bridged one is made native first.
        text.withUTF8 { utf8 in
            CBORHead.write(.text, UInt64(utf8.count), to: &output)
            output.append(contentsOf: utf8)
        }
    }
}

/// Members in the order first encoded; encoding a key again replaces its value in place, so
/// a map never carries a key twice (which the reader refuses).
private final class CBORMapBox {
    var keys: [String] = []
    var values: [CBORNode] = []
    private var positions: [String: Int] = [:]

    func set(_ value: CBORNode, for key: String) {
        if let position = positions[key] {
            values[position] = value
        } else {
            positions[key] = keys.count
            keys.append(key)
            values.append(value)
        }
    }
}

private final class CBORArrayBox {
    var values: [CBORNode] = []
}

/// The `Encoder` handed to `encode(to:)`: records the one value (or container) it was given.
private final class CBORTreeEncoder: Encoder {
    let codingPath: [any CodingKey]
    var userInfo: [CodingUserInfoKey: Any] { [:] }
    var node: CBORNode?

    init(codingPath: [any CodingKey]) {
        self.codingPath = codingPath
    }

    /// The CBOR of `value`, with the types the subset writes other than their `Codable` form.
    static func node<Value: Encodable>(for value: Value, codingPath: [any CodingKey]) throws -> CBORNode {
        switch value {
        case let data as Data: return .bytes(data)
        case let url as URL: return .text(url.absoluteString)
        case let decimal as Decimal:
            guard !decimal.isNaN else {
                throw EncodingError.invalidValue(decimal, EncodingError.Context(
                    codingPath: codingPath, debugDescription: "a Decimal that is not a number has no CBOR form in the channel's subset"))
            }
            return .text(decimal.description)
        default:
            let encoder = CBORTreeEncoder(codingPath: codingPath)
            try value.encode(to: encoder)
            return encoder.node ?? .emptyMap
        }
    }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        let box: CBORMapBox
        if case .map(let existing) = node {
            box = existing
        } else {
            box = CBORMapBox()
            node = .map(box)
        }
        return KeyedEncodingContainer(CBORKeyedContainer<Key>(box: box, codingPath: codingPath))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        let box: CBORArrayBox
        if case .array(let existing) = node {
            box = existing
        } else {
            box = CBORArrayBox()
            node = .array(box)
        }
        return CBORUnkeyedContainer(box: box, codingPath: codingPath)
    }

    func singleValueContainer() -> any SingleValueEncodingContainer { self }
}

extension CBORTreeEncoder: SingleValueEncodingContainer {
    func encodeNil() throws { node = .null }
    func encode(_ value: Bool) throws { node = .bool(value) }
    func encode(_ value: String) throws { node = .text(value) }
    func encode(_ value: Double) throws { node = .float64(value) }
    func encode(_ value: Float) throws { node = .float32(value) }
    func encode(_ value: Int) throws { node = .integer(value) }
    func encode(_ value: Int8) throws { node = .integer(value) }
    func encode(_ value: Int16) throws { node = .integer(value) }
    func encode(_ value: Int32) throws { node = .integer(value) }
    func encode(_ value: Int64) throws { node = .integer(value) }
    func encode(_ value: UInt) throws { node = .integer(value) }
    func encode(_ value: UInt8) throws { node = .integer(value) }
    func encode(_ value: UInt16) throws { node = .integer(value) }
    func encode(_ value: UInt32) throws { node = .integer(value) }
    func encode(_ value: UInt64) throws { node = .integer(value) }
    func encode<Value: Encodable>(_ value: Value) throws { node = try Self.node(for: value, codingPath: codingPath) }
}

private struct CBORKeyedContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let box: CBORMapBox
    let codingPath: [any CodingKey]

    private func set(_ node: CBORNode, _ key: Key) { box.set(node, for: key.stringValue) }

    mutating func encodeNil(forKey key: Key) throws { set(.null, key) }
    mutating func encode(_ value: Bool, forKey key: Key) throws { set(.bool(value), key) }
    mutating func encode(_ value: String, forKey key: Key) throws { set(.text(value), key) }
    mutating func encode(_ value: Double, forKey key: Key) throws { set(.float64(value), key) }
    mutating func encode(_ value: Float, forKey key: Key) throws { set(.float32(value), key) }
    mutating func encode(_ value: Int, forKey key: Key) throws { set(.integer(value), key) }
    mutating func encode(_ value: Int8, forKey key: Key) throws { set(.integer(value), key) }
    mutating func encode(_ value: Int16, forKey key: Key) throws { set(.integer(value), key) }
    mutating func encode(_ value: Int32, forKey key: Key) throws { set(.integer(value), key) }
    mutating func encode(_ value: Int64, forKey key: Key) throws { set(.integer(value), key) }
    mutating func encode(_ value: UInt, forKey key: Key) throws { set(.integer(value), key) }
    mutating func encode(_ value: UInt8, forKey key: Key) throws { set(.integer(value), key) }
    mutating func encode(_ value: UInt16, forKey key: Key) throws { set(.integer(value), key) }
    mutating func encode(_ value: UInt32, forKey key: Key) throws { set(.integer(value), key) }
    mutating func encode(_ value: UInt64, forKey key: Key) throws { set(.integer(value), key) }
    mutating func encode<Value: Encodable>(_ value: Value, forKey key: Key) throws {
        set(try CBORTreeEncoder.node(for: value, codingPath: codingPath + [key]), key)
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type, forKey key: Key) -> KeyedEncodingContainer<NestedKey> {
        let nested = CBORMapBox()
        set(.map(nested), key)
        return KeyedEncodingContainer(CBORKeyedContainer<NestedKey>(box: nested, codingPath: codingPath + [key]))
    }

    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        let nested = CBORArrayBox()
        set(.array(nested), key)
        return CBORUnkeyedContainer(box: nested, codingPath: codingPath + [key])
    }

    mutating func superEncoder() -> any Encoder { superEncoder(named: BodyCodingKey.superKey, nil) }

    mutating func superEncoder(forKey key: Key) -> any Encoder { superEncoder(named: key.stringValue, key) }

    private func superEncoder(named name: String, _ key: (any CodingKey)?) -> any Encoder {
        let encoder = CBORTreeEncoder(codingPath: codingPath + [key ?? BodyCodingKey(stringValue: name)])
        box.set(.deferred(encoder), for: name)
        return encoder
    }
}

private struct CBORUnkeyedContainer: UnkeyedEncodingContainer {
    let box: CBORArrayBox
    let codingPath: [any CodingKey]
    var count: Int { box.values.count }

    private var nextPath: [any CodingKey] { codingPath + [BodyCodingKey(intValue: count)] }

    mutating func encodeNil() throws { box.values.append(.null) }
    mutating func encode(_ value: Bool) throws { box.values.append(.bool(value)) }
    mutating func encode(_ value: String) throws { box.values.append(.text(value)) }
    mutating func encode(_ value: Double) throws { box.values.append(.float64(value)) }
    mutating func encode(_ value: Float) throws { box.values.append(.float32(value)) }
    mutating func encode(_ value: Int) throws { box.values.append(.integer(value)) }
    mutating func encode(_ value: Int8) throws { box.values.append(.integer(value)) }
    mutating func encode(_ value: Int16) throws { box.values.append(.integer(value)) }
    mutating func encode(_ value: Int32) throws { box.values.append(.integer(value)) }
    mutating func encode(_ value: Int64) throws { box.values.append(.integer(value)) }
    mutating func encode(_ value: UInt) throws { box.values.append(.integer(value)) }
    mutating func encode(_ value: UInt8) throws { box.values.append(.integer(value)) }
    mutating func encode(_ value: UInt16) throws { box.values.append(.integer(value)) }
    mutating func encode(_ value: UInt32) throws { box.values.append(.integer(value)) }
    mutating func encode(_ value: UInt64) throws { box.values.append(.integer(value)) }
    mutating func encode<Value: Encodable>(_ value: Value) throws {
        box.values.append(try CBORTreeEncoder.node(for: value, codingPath: nextPath))
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type) -> KeyedEncodingContainer<NestedKey> {
        let path = nextPath
        let nested = CBORMapBox()
        box.values.append(.map(nested))
        return KeyedEncodingContainer(CBORKeyedContainer<NestedKey>(box: nested, codingPath: path))
    }

    mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
        let path = nextPath
        let nested = CBORArrayBox()
        box.values.append(.array(nested))
        return CBORUnkeyedContainer(box: nested, codingPath: path)
    }

    mutating func superEncoder() -> any Encoder {
        let encoder = CBORTreeEncoder(codingPath: nextPath)
        box.values.append(.deferred(encoder))
        return encoder
    }
}
