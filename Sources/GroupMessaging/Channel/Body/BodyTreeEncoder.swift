import Foundation

/// What one body format (JSON, CBOR) makes of each value an `Encoder` is handed: the leaves of
/// the tree ``BodyTreeEncoder`` builds. Maps, arrays and the order of keys are the same for
/// every format and live in the tree; only the leaves and how the tree is written differ.
protocol BodyFormatLeaves {
    /// A leaf of the tree, already in the format's terms.
    associatedtype Leaf

    static var null: Leaf { get }
    static func bool(_ value: Bool) -> Leaf
    static func string(_ value: String) -> Leaf
    static func double(_ value: Double, codingPath: [any CodingKey]) throws -> Leaf
    static func float(_ value: Float, codingPath: [any CodingKey]) throws -> Leaf
    static func integer<Value: BinaryInteger>(_ value: Value) -> Leaf
    /// The leaf of a value the format writes other than by its own `encode(to:)` (`Data`,
    /// `URL`, `Decimal`), or `nil` to let the value encode itself.
    static func special<Value: Encodable>(_ value: Value, codingPath: [any CodingKey]) throws -> Leaf?
}

/// A body being built. Maps and arrays are boxes (classes) because `Encoder` hands out
/// containers that their owner fills after the container has been placed in its parent.
enum BodyNode<Format: BodyFormatLeaves> {
    case leaf(Format.Leaf)
    case map(BodyMembers<Format>)
    case array(BodyElements<Format>)
    /// What a super-encoder produced, known only once its owner is done with it.
    case deferred(BodyTreeEncoder<Format>)

    /// What a value that encodes nothing is: an empty map, as `JSONEncoder` writes `{}`.
    static var emptyMap: BodyNode { .map(BodyMembers()) }

    /// The node a deferred encoder ended with (an empty map if it was given nothing).
    var resolved: BodyNode {
        if case .deferred(let encoder) = self { return (encoder.node ?? .emptyMap).resolved }
        return self
    }
}

/// Members in the order first encoded; encoding a key again replaces its value in place, so a
/// body never carries a key twice.
final class BodyMembers<Format: BodyFormatLeaves> {
    private(set) var keys: [String] = []
    private(set) var values: [BodyNode<Format>] = []
    private var positions: [String: Int] = [:]

    func set(_ value: BodyNode<Format>, for key: String) {
        if let position = positions[key] {
            values[position] = value
        } else {
            positions[key] = keys.count
            keys.append(key)
            values.append(value)
        }
    }
}

final class BodyElements<Format: BodyFormatLeaves> {
    var values: [BodyNode<Format>] = []
}

/// The `Encoder` handed to `encode(to:)`: records the one value (or container) it was given.
final class BodyTreeEncoder<Format: BodyFormatLeaves>: Encoder {
    let codingPath: [any CodingKey]
    var userInfo: [CodingUserInfoKey: Any] { [:] }
    private(set) var node: BodyNode<Format>?

    init(codingPath: [any CodingKey]) {
        self.codingPath = codingPath
    }

    /// The tree of `value`.
    static func node<Value: Encodable>(for value: Value, codingPath: [any CodingKey]) throws -> BodyNode<Format> {
        if let leaf = try Format.special(value, codingPath: codingPath) { return .leaf(leaf) }
        let encoder = BodyTreeEncoder(codingPath: codingPath)
        try value.encode(to: encoder)
        return encoder.node ?? .emptyMap
    }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        let box: BodyMembers<Format>
        if case .map(let existing) = node {
            box = existing
        } else {
            box = BodyMembers()
            node = .map(box)
        }
        return KeyedEncodingContainer(BodyKeyedContainer<Format, Key>(box: box, codingPath: codingPath))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        let box: BodyElements<Format>
        if case .array(let existing) = node {
            box = existing
        } else {
            box = BodyElements()
            node = .array(box)
        }
        return BodyUnkeyedContainer(box: box, codingPath: codingPath)
    }

    func singleValueContainer() -> any SingleValueEncodingContainer { self }
}

extension BodyTreeEncoder: SingleValueEncodingContainer {
    private func set(_ leaf: Format.Leaf) { node = .leaf(leaf) }

    func encodeNil() throws { set(Format.null) }
    func encode(_ value: Bool) throws { set(Format.bool(value)) }
    func encode(_ value: String) throws { set(Format.string(value)) }
    func encode(_ value: Double) throws { set(try Format.double(value, codingPath: codingPath)) }
    func encode(_ value: Float) throws { set(try Format.float(value, codingPath: codingPath)) }
    func encode(_ value: Int) throws { set(Format.integer(value)) }
    func encode(_ value: Int8) throws { set(Format.integer(value)) }
    func encode(_ value: Int16) throws { set(Format.integer(value)) }
    func encode(_ value: Int32) throws { set(Format.integer(value)) }
    func encode(_ value: Int64) throws { set(Format.integer(value)) }
    func encode(_ value: UInt) throws { set(Format.integer(value)) }
    func encode(_ value: UInt8) throws { set(Format.integer(value)) }
    func encode(_ value: UInt16) throws { set(Format.integer(value)) }
    func encode(_ value: UInt32) throws { set(Format.integer(value)) }
    func encode(_ value: UInt64) throws { set(Format.integer(value)) }
    func encode<Value: Encodable>(_ value: Value) throws { node = try Self.node(for: value, codingPath: codingPath) }
}

private struct BodyKeyedContainer<Format: BodyFormatLeaves, Key: CodingKey>: KeyedEncodingContainerProtocol {
    let box: BodyMembers<Format>
    let codingPath: [any CodingKey]

    private func set(_ leaf: Format.Leaf, _ key: Key) { box.set(.leaf(leaf), for: key.stringValue) }

    mutating func encodeNil(forKey key: Key) throws { set(Format.null, key) }
    mutating func encode(_ value: Bool, forKey key: Key) throws { set(Format.bool(value), key) }
    mutating func encode(_ value: String, forKey key: Key) throws { set(Format.string(value), key) }
    mutating func encode(_ value: Double, forKey key: Key) throws { set(try Format.double(value, codingPath: codingPath + [key]), key) }
    mutating func encode(_ value: Float, forKey key: Key) throws { set(try Format.float(value, codingPath: codingPath + [key]), key) }
    mutating func encode(_ value: Int, forKey key: Key) throws { set(Format.integer(value), key) }
    mutating func encode(_ value: Int8, forKey key: Key) throws { set(Format.integer(value), key) }
    mutating func encode(_ value: Int16, forKey key: Key) throws { set(Format.integer(value), key) }
    mutating func encode(_ value: Int32, forKey key: Key) throws { set(Format.integer(value), key) }
    mutating func encode(_ value: Int64, forKey key: Key) throws { set(Format.integer(value), key) }
    mutating func encode(_ value: UInt, forKey key: Key) throws { set(Format.integer(value), key) }
    mutating func encode(_ value: UInt8, forKey key: Key) throws { set(Format.integer(value), key) }
    mutating func encode(_ value: UInt16, forKey key: Key) throws { set(Format.integer(value), key) }
    mutating func encode(_ value: UInt32, forKey key: Key) throws { set(Format.integer(value), key) }
    mutating func encode(_ value: UInt64, forKey key: Key) throws { set(Format.integer(value), key) }
    mutating func encode<Value: Encodable>(_ value: Value, forKey key: Key) throws {
        box.set(try BodyTreeEncoder<Format>.node(for: value, codingPath: codingPath + [key]), for: key.stringValue)
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type, forKey key: Key) -> KeyedEncodingContainer<NestedKey> {
        let nested = BodyMembers<Format>()
        box.set(.map(nested), for: key.stringValue)
        return KeyedEncodingContainer(BodyKeyedContainer<Format, NestedKey>(box: nested, codingPath: codingPath + [key]))
    }

    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        let nested = BodyElements<Format>()
        box.set(.array(nested), for: key.stringValue)
        return BodyUnkeyedContainer(box: nested, codingPath: codingPath + [key])
    }

    mutating func superEncoder() -> any Encoder { superEncoder(named: BodyCodingKey.superKey, nil) }

    mutating func superEncoder(forKey key: Key) -> any Encoder { superEncoder(named: key.stringValue, key) }

    private func superEncoder(named name: String, _ key: (any CodingKey)?) -> any Encoder {
        let encoder = BodyTreeEncoder<Format>(codingPath: codingPath + [key ?? BodyCodingKey(stringValue: name)])
        box.set(.deferred(encoder), for: name)
        return encoder
    }
}

private struct BodyUnkeyedContainer<Format: BodyFormatLeaves>: UnkeyedEncodingContainer {
    let box: BodyElements<Format>
    let codingPath: [any CodingKey]
    var count: Int { box.values.count }

    private var nextPath: [any CodingKey] { codingPath + [BodyCodingKey(intValue: count)] }

    private func append(_ leaf: Format.Leaf) { box.values.append(.leaf(leaf)) }

    mutating func encodeNil() throws { append(Format.null) }
    mutating func encode(_ value: Bool) throws { append(Format.bool(value)) }
    mutating func encode(_ value: String) throws { append(Format.string(value)) }
    mutating func encode(_ value: Double) throws { append(try Format.double(value, codingPath: nextPath)) }
    mutating func encode(_ value: Float) throws { append(try Format.float(value, codingPath: nextPath)) }
    mutating func encode(_ value: Int) throws { append(Format.integer(value)) }
    mutating func encode(_ value: Int8) throws { append(Format.integer(value)) }
    mutating func encode(_ value: Int16) throws { append(Format.integer(value)) }
    mutating func encode(_ value: Int32) throws { append(Format.integer(value)) }
    mutating func encode(_ value: Int64) throws { append(Format.integer(value)) }
    mutating func encode(_ value: UInt) throws { append(Format.integer(value)) }
    mutating func encode(_ value: UInt8) throws { append(Format.integer(value)) }
    mutating func encode(_ value: UInt16) throws { append(Format.integer(value)) }
    mutating func encode(_ value: UInt32) throws { append(Format.integer(value)) }
    mutating func encode(_ value: UInt64) throws { append(Format.integer(value)) }
    mutating func encode<Value: Encodable>(_ value: Value) throws {
        box.values.append(try BodyTreeEncoder<Format>.node(for: value, codingPath: nextPath))
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type) -> KeyedEncodingContainer<NestedKey> {
        let path = nextPath
        let nested = BodyMembers<Format>()
        box.values.append(.map(nested))
        return KeyedEncodingContainer(BodyKeyedContainer<Format, NestedKey>(box: nested, codingPath: path))
    }

    mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
        let path = nextPath
        let nested = BodyElements<Format>()
        box.values.append(.array(nested))
        return BodyUnkeyedContainer(box: nested, codingPath: path)
    }

    mutating func superEncoder() -> any Encoder {
        let encoder = BodyTreeEncoder<Format>(codingPath: nextPath)
        box.values.append(.deferred(encoder))
        return encoder
    }
}
