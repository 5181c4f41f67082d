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
        let root = try BodyTreeEncoder<JSONLeaves>.node(for: value, codingPath: [])
        var output: [UInt8] = []
        output.reserveCapacity(root.estimatedByteCount)
        root.write(to: &output)
        return output
    }
}

/// The leaves of a JSON body, with the special cases of `JSONEncoder`'s default strategies.
enum JSONLeaves: BodyFormatLeaves {
    enum Leaf {
        /// A number, `true`, `false` or `null`, already in its JSON form.
        case literal(String)
        case string(String)
    }

    static var null: Leaf { .literal("null") }
    static func bool(_ value: Bool) -> Leaf { .literal(value ? "true" : "false") }
    static func string(_ value: String) -> Leaf { .string(value) }
    static func double(_ value: Double, codingPath: [any CodingKey]) throws -> Leaf { try number(value, codingPath: codingPath) }
    static func float(_ value: Float, codingPath: [any CodingKey]) throws -> Leaf { try number(value, codingPath: codingPath) }
    static func integer<Value: BinaryInteger>(_ value: Value) -> Leaf { .literal(String(value)) }

    static func special<Value: Encodable>(_ value: Value, codingPath: [any CodingKey]) throws -> Leaf? {
        switch value {
        case let data as Data: return .string(data.base64EncodedString())
        case let url as URL: return .string(url.absoluteString)
        case let decimal as Decimal: return .literal(decimal.description)
        default: return nil
        }
    }

    private static func number<Number: BinaryFloatingPoint & LosslessStringConvertible>(_ value: Number, codingPath: [any CodingKey]) throws -> Leaf {
        guard value.isFinite else {
            throw EncodingError.invalidValue(value, EncodingError.Context(
                codingPath: codingPath, debugDescription: "Unable to encode \(Number.self).\(value) directly in JSON."))
        }
        // "1.0" -> "1", as JSONEncoder writes integral values.
        var text = value.description
        if text.hasSuffix(".0") { text.removeLast(2) }
        return .literal(text)
    }
}

extension BodyNode where Format == JSONLeaves {
    /// An upper bound for most values, so that the output is allocated once.
    var estimatedByteCount: Int {
        switch resolved {
        case .leaf(.literal(let text)): return text.utf8.count
        case .leaf(.string(let text)): return text.utf8.count + 2
        case .map(let box): return box.values.reduce(2) { $0 + $1.estimatedByteCount + 4 } + box.keys.reduce(0) { $0 + $1.utf8.count }
        case .array(let box): return box.values.reduce(2) { $0 + $1.estimatedByteCount + 1 }
        case .deferred: preconditionFailure("resolved")
        }
    }

    func write(to output: inout [UInt8]) {
        switch resolved {
        case .leaf(.literal(let text)):
            output.append(contentsOf: text.utf8)
        case .leaf(.string(let text)):
            JSONStringWriter.write(text, slashes: .unescaped, to: &output)
        case .map(let box):
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
        case .deferred:
            preconditionFailure("resolved")
        }
    }
}
