import Foundation

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
/// Exposed to the benchmarks alone (`@_spi(Benchmarks)`), which measure it beside the JSON
/// encoders. It is not part of the module's API.
@_spi(Benchmarks) public enum MessageCBOREncoder {
    /// The CBOR of `value`.
    @_spi(Benchmarks) public static func encode<Value: Encodable>(_ value: Value) throws -> [UInt8] {
        let root = try BodyTreeEncoder<CBORLeaves>.node(for: value, codingPath: [])
        var output: [UInt8] = []
        output.reserveCapacity(root.estimatedByteCount)
        root.write(to: &output)
        return output
    }
}

/// The leaves of a CBOR body: every item of the subset but maps and arrays.
enum CBORLeaves: BodyFormatLeaves {
    enum Leaf {
        case unsigned(UInt64)
        /// The negative integer `-1 - n`, as major type 1 carries it.
        case negative(UInt64)
        case float32(Float)
        case float64(Double)
        case bool(Bool)
        case null
        case text(String)
        case bytes(Data)
    }

    static var null: Leaf { .null }
    static func bool(_ value: Bool) -> Leaf { .bool(value) }
    static func string(_ value: String) -> Leaf { .text(value) }
    // Written as they are, NaN and the infinities included: CBOR has them.
    static func double(_ value: Double, codingPath: [any CodingKey]) -> Leaf { .float64(value) }
    static func float(_ value: Float, codingPath: [any CodingKey]) -> Leaf { .float32(value) }

    static func integer<Value: BinaryInteger>(_ value: Value) -> Leaf {
        // Every Swift integer type fits 64 bits; -1 - v of a negative Int64 is its complement.
        value >= 0 ? .unsigned(UInt64(value)) : .negative(UInt64(bitPattern: ~Int64(value)))
    }

    static func special<Value: Encodable>(_ value: Value, codingPath: [any CodingKey]) throws -> Leaf? {
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
            return nil
        }
    }
}

extension BodyNode where Format == CBORLeaves {
    /// An upper bound, so that the output is allocated once.
    var estimatedByteCount: Int {
        switch resolved {
        case .leaf(let leaf):
            switch leaf {
            case .unsigned, .negative, .float64: return 9
            case .float32: return 5
            case .bool, .null: return 1
            case .text(let text): return text.utf8.count + 9
            case .bytes(let data): return data.count + 9
            }
        case .map(let box):
            return box.values.reduce(9) { $0 + $1.estimatedByteCount } + box.keys.reduce(0) { $0 + $1.utf8.count + 9 }
        case .array(let box):
            return box.values.reduce(9) { $0 + $1.estimatedByteCount }
        case .deferred:
            preconditionFailure("resolved")
        }
    }

    func write(to output: inout [UInt8]) {
        switch resolved {
        case .leaf(let leaf):
            Self.write(leaf, to: &output)
        case .map(let box):
            CBORHead.write(.map, UInt64(box.keys.count), to: &output)
            for index in box.keys.indices {
                Self.writeText(box.keys[index], to: &output)
                box.values[index].write(to: &output)
            }
        case .array(let box):
            CBORHead.write(.array, UInt64(box.values.count), to: &output)
            for value in box.values { value.write(to: &output) }
        case .deferred:
            preconditionFailure("resolved")
        }
    }

    private static func write(_ leaf: CBORLeaves.Leaf, to output: inout [UInt8]) {
        switch leaf {
        case .unsigned(let value):
            CBORHead.write(.unsigned, value, to: &output)
        case .negative(let value):
            CBORHead.write(.negative, value, to: &output)
        case .float32(let value):
            output.append(CBORHead.float32Byte)
            CBORHead.appendBigEndian(value.bitPattern, to: &output)
        case .float64(let value):
            output.append(CBORHead.float64Byte)
            CBORHead.appendBigEndian(value.bitPattern, to: &output)
        case .bool(let value):
            output.append(value ? CBORHead.trueByte : CBORHead.falseByte)
        case .null:
            output.append(CBORHead.nullByte)
        case .text(let text):
            writeText(text, to: &output)
        case .bytes(let data):
            CBORHead.write(.bytes, UInt64(data.count), to: &output)
            output.append(contentsOf: data)
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
