import Foundation
import SealedStorage

/// Encodes a message's body as compact JSON (RFC 8259) that Foundation's `JSONDecoder`, with
/// its default strategies, decodes back into the same value.
///
/// Why not `JSONEncoder`: its string writer looks at every byte on its own, and a near-limit
/// message (64 KB of text) spent about 200 µs there, each way: the largest single cost of a
/// round trip, more than sealing it. Strings go through SealedStorage's `JSONStringWriter`,
/// which copies the runs between characters that need escaping in bulk and writes exactly what
/// `JSONEncoder` writes with `.withoutEscapingSlashes` (`/` stays `/`: the same JSON value as
/// `\/`, one byte shorter, and the bytes this channel has always sent). It only produces bytes; every body is still read by `JSONDecoder` against
/// the receiver's allow-list, so a difference between the two encoders could make a message
/// undecodable but never make the receiver accept something it would otherwise refuse.
///
/// It follows `JSONEncoder`'s default strategies, which the decoder's defaults expect:
/// `Date` as its own `Codable` form (seconds since 2001 as a number), `Data` as a Base64 string,
/// `URL` as its absolute string, `Decimal` as a number, keys as given and in the order encoded
/// (a key encoded twice keeps its last value), a value that encodes nothing as `{}`, and
/// non-finite floating-point numbers refused with `EncodingError.invalidValue`.
/// `MessageJSONEncoderTests` check this against `JSONEncoder`, value by value.
///
/// Exposed to the benchmarks alone (`@_spi(Benchmarks)`), whose "Channel message encoding"
/// figure measures it beside `JSONEncoder`: the evidence that it earns its place. It is not
/// part of the module's API.
@_spi(Benchmarks) public enum MessageJSONEncoder {
    /// The JSON of `value`.
    @_spi(Benchmarks) public static func encode<Value: Encodable>(_ value: Value) throws -> [UInt8] {
        let root = try JSONTreeEncoder.node(for: value, codingPath: [])
        var output: [UInt8] = []
        output.reserveCapacity(root.estimatedByteCount)
        root.write(to: &output)
        return output
    }
}

/// A JSON value being built. Objects and arrays are boxes (classes) because `Encoder` hands out
/// containers that their owner fills after the container has been placed in its parent.
private enum JSONNode {
    /// A number, `true`, `false` or `null`, already in its JSON form.
    case literal(String)
    case string(String)
    case object(JSONObjectBox)
    case array(JSONArrayBox)
    /// What a super-encoder produced, known only once its owner is done with it.
    case deferred(JSONTreeEncoder)

    static var emptyObject: JSONNode { .object(JSONObjectBox()) }

    /// An upper bound for most values, so that the output is allocated once.
    var estimatedByteCount: Int {
        switch self {
        case .literal(let text): return text.utf8.count
        case .string(let text): return text.utf8.count + 2
        case .object(let box): return box.values.reduce(2) { $0 + $1.estimatedByteCount + 4 } + box.keys.reduce(0) { $0 + $1.utf8.count }
        case .array(let box): return box.values.reduce(2) { $0 + $1.estimatedByteCount + 1 }
        case .deferred(let encoder): return (encoder.node ?? .emptyObject).estimatedByteCount
        }
    }

    func write(to output: inout [UInt8]) {
        switch self {
        case .literal(let text):
            output.append(contentsOf: text.utf8)
        case .string(let text):
            JSONStringWriter.write(text, slashes: .unescaped, to: &output)
        case .object(let box):
            output.append(UInt8(ascii: "{"))
            for index in box.keys.indices {
                if index > 0 { output.append(UInt8(ascii: ",")) }
                JSONStringWriter.write(box.keys[index], slashes: .unescaped, to: &output)
                output.append(UInt8(ascii: ":"))
                box.values[index].write(to: &output)
            }
            output.append(UInt8(ascii: "}"))
        case .array(let box):
            output.append(UInt8(ascii: "["))
            for index in box.values.indices {
                if index > 0 { output.append(UInt8(ascii: ",")) }
                box.values[index].write(to: &output)
            }
            output.append(UInt8(ascii: "]"))
        case .deferred(let encoder):
            (encoder.node ?? .emptyObject).write(to: &output)
        }
    }
}

/// Members in the order first encoded; encoding a key again replaces its value in place.
private final class JSONObjectBox {
    var keys: [String] = []
    var values: [JSONNode] = []
    private var positions: [String: Int] = [:]

    func set(_ value: JSONNode, for key: String) {
        if let position = positions[key] {
            values[position] = value
        } else {
            positions[key] = keys.count
            keys.append(key)
            values.append(value)
        }
    }
}

private final class JSONArrayBox {
    var values: [JSONNode] = []
}

/// The `Encoder` handed to `encode(to:)`: records the one value (or container) it was given.
private final class JSONTreeEncoder: Encoder {
    let codingPath: [any CodingKey]
    var userInfo: [CodingUserInfoKey: Any] { [:] }
    var node: JSONNode?

    init(codingPath: [any CodingKey]) {
        self.codingPath = codingPath
    }

    /// The JSON of `value`, with the special cases of `JSONEncoder`'s default strategies.
    static func node<Value: Encodable>(for value: Value, codingPath: [any CodingKey]) throws -> JSONNode {
        switch value {
        case let data as Data: return .string(data.base64EncodedString())
        case let url as URL: return .string(url.absoluteString)
        case let decimal as Decimal: return .literal(decimal.description)
        default:
            let encoder = JSONTreeEncoder(codingPath: codingPath)
            try value.encode(to: encoder)
            return encoder.node ?? .emptyObject
        }
    }

    static func number<Number: BinaryFloatingPoint & LosslessStringConvertible>(_ value: Number, codingPath: [any CodingKey]) throws -> JSONNode {
        guard value.isFinite else {
            throw EncodingError.invalidValue(value, EncodingError.Context(
                codingPath: codingPath, debugDescription: "Unable to encode \(Number.self).\(value) directly in JSON."))
        }
        // "1.0" -> "1", as JSONEncoder writes integral values.
        var text = value.description
        if text.hasSuffix(".0") { text.removeLast(2) }
        return .literal(text)
    }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        let box: JSONObjectBox
        if case .object(let existing) = node {
            box = existing
        } else {
            box = JSONObjectBox()
            node = .object(box)
        }
        return KeyedEncodingContainer(JSONKeyedContainer<Key>(box: box, codingPath: codingPath))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        let box: JSONArrayBox
        if case .array(let existing) = node {
            box = existing
        } else {
            box = JSONArrayBox()
            node = .array(box)
        }
        return JSONUnkeyedContainer(box: box, codingPath: codingPath)
    }

    func singleValueContainer() -> any SingleValueEncodingContainer { self }
}

extension JSONTreeEncoder: SingleValueEncodingContainer {
    func encodeNil() throws { node = .literal("null") }
    func encode(_ value: Bool) throws { node = .literal(value ? "true" : "false") }
    func encode(_ value: String) throws { node = .string(value) }
    func encode(_ value: Double) throws { node = try Self.number(value, codingPath: codingPath) }
    func encode(_ value: Float) throws { node = try Self.number(value, codingPath: codingPath) }
    func encode(_ value: Int) throws { node = .literal(String(value)) }
    func encode(_ value: Int8) throws { node = .literal(String(value)) }
    func encode(_ value: Int16) throws { node = .literal(String(value)) }
    func encode(_ value: Int32) throws { node = .literal(String(value)) }
    func encode(_ value: Int64) throws { node = .literal(String(value)) }
    func encode(_ value: UInt) throws { node = .literal(String(value)) }
    func encode(_ value: UInt8) throws { node = .literal(String(value)) }
    func encode(_ value: UInt16) throws { node = .literal(String(value)) }
    func encode(_ value: UInt32) throws { node = .literal(String(value)) }
    func encode(_ value: UInt64) throws { node = .literal(String(value)) }
    func encode<Value: Encodable>(_ value: Value) throws { node = try Self.node(for: value, codingPath: codingPath) }
}

private struct JSONKeyedContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let box: JSONObjectBox
    let codingPath: [any CodingKey]

    private func set(_ node: JSONNode, _ key: Key) { box.set(node, for: key.stringValue) }

    mutating func encodeNil(forKey key: Key) throws { set(.literal("null"), key) }
    mutating func encode(_ value: Bool, forKey key: Key) throws { set(.literal(value ? "true" : "false"), key) }
    mutating func encode(_ value: String, forKey key: Key) throws { set(.string(value), key) }
    mutating func encode(_ value: Double, forKey key: Key) throws { set(try JSONTreeEncoder.number(value, codingPath: codingPath + [key]), key) }
    mutating func encode(_ value: Float, forKey key: Key) throws { set(try JSONTreeEncoder.number(value, codingPath: codingPath + [key]), key) }
    mutating func encode(_ value: Int, forKey key: Key) throws { set(.literal(String(value)), key) }
    mutating func encode(_ value: Int8, forKey key: Key) throws { set(.literal(String(value)), key) }
    mutating func encode(_ value: Int16, forKey key: Key) throws { set(.literal(String(value)), key) }
    mutating func encode(_ value: Int32, forKey key: Key) throws { set(.literal(String(value)), key) }
    mutating func encode(_ value: Int64, forKey key: Key) throws { set(.literal(String(value)), key) }
    mutating func encode(_ value: UInt, forKey key: Key) throws { set(.literal(String(value)), key) }
    mutating func encode(_ value: UInt8, forKey key: Key) throws { set(.literal(String(value)), key) }
    mutating func encode(_ value: UInt16, forKey key: Key) throws { set(.literal(String(value)), key) }
    mutating func encode(_ value: UInt32, forKey key: Key) throws { set(.literal(String(value)), key) }
    mutating func encode(_ value: UInt64, forKey key: Key) throws { set(.literal(String(value)), key) }
    mutating func encode<Value: Encodable>(_ value: Value, forKey key: Key) throws {
        set(try JSONTreeEncoder.node(for: value, codingPath: codingPath + [key]), key)
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type, forKey key: Key) -> KeyedEncodingContainer<NestedKey> {
        let nested = JSONObjectBox()
        set(.object(nested), key)
        return KeyedEncodingContainer(JSONKeyedContainer<NestedKey>(box: nested, codingPath: codingPath + [key]))
    }

    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        let nested = JSONArrayBox()
        set(.array(nested), key)
        return JSONUnkeyedContainer(box: nested, codingPath: codingPath + [key])
    }

    mutating func superEncoder() -> any Encoder { superEncoder(named: "super") }

    mutating func superEncoder(forKey key: Key) -> any Encoder { superEncoder(named: key.stringValue, key) }

    private func superEncoder(named name: String, _ key: (any CodingKey)? = nil) -> any Encoder {
        let encoder = JSONTreeEncoder(codingPath: codingPath + [key ?? BodyCodingKey(stringValue: name)])
        box.set(.deferred(encoder), for: name)
        return encoder
    }
}

private struct JSONUnkeyedContainer: UnkeyedEncodingContainer {
    let box: JSONArrayBox
    let codingPath: [any CodingKey]
    var count: Int { box.values.count }

    private var nextPath: [any CodingKey] { codingPath + [BodyCodingKey(intValue: count)] }

    mutating func encodeNil() throws { box.values.append(.literal("null")) }
    mutating func encode(_ value: Bool) throws { box.values.append(.literal(value ? "true" : "false")) }
    mutating func encode(_ value: String) throws { box.values.append(.string(value)) }
    mutating func encode(_ value: Double) throws { box.values.append(try JSONTreeEncoder.number(value, codingPath: nextPath)) }
    mutating func encode(_ value: Float) throws { box.values.append(try JSONTreeEncoder.number(value, codingPath: nextPath)) }
    mutating func encode(_ value: Int) throws { box.values.append(.literal(String(value))) }
    mutating func encode(_ value: Int8) throws { box.values.append(.literal(String(value))) }
    mutating func encode(_ value: Int16) throws { box.values.append(.literal(String(value))) }
    mutating func encode(_ value: Int32) throws { box.values.append(.literal(String(value))) }
    mutating func encode(_ value: Int64) throws { box.values.append(.literal(String(value))) }
    mutating func encode(_ value: UInt) throws { box.values.append(.literal(String(value))) }
    mutating func encode(_ value: UInt8) throws { box.values.append(.literal(String(value))) }
    mutating func encode(_ value: UInt16) throws { box.values.append(.literal(String(value))) }
    mutating func encode(_ value: UInt32) throws { box.values.append(.literal(String(value))) }
    mutating func encode(_ value: UInt64) throws { box.values.append(.literal(String(value))) }
    mutating func encode<Value: Encodable>(_ value: Value) throws {
        box.values.append(try JSONTreeEncoder.node(for: value, codingPath: nextPath))
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type) -> KeyedEncodingContainer<NestedKey> {
        let path = nextPath
        let nested = JSONObjectBox()
        box.values.append(.object(nested))
        return KeyedEncodingContainer(JSONKeyedContainer<NestedKey>(box: nested, codingPath: path))
    }

    mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
        let path = nextPath
        let nested = JSONArrayBox()
        box.values.append(.array(nested))
        return JSONUnkeyedContainer(box: nested, codingPath: path)
    }

    mutating func superEncoder() -> any Encoder {
        let encoder = JSONTreeEncoder(codingPath: nextPath)
        box.values.append(.deferred(encoder))
        return encoder
    }
}
