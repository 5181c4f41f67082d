import Foundation

/// One data item of a CBOR body, read and checked against the channel's subset by
/// ``CBORItemReader``: what ``MessageCBORDecoder`` hands to `init(from:)`.
struct CBORItem {
    /// A map of the subset: text-string keys, each at most once, in the order read.
    struct Map {
        var keys: [String] = []
        var values: [CBORItem] = []
        var positions: [String: Int] = [:]

        /// The value of `key`, if the map has it.
        subscript(key: String) -> CBORItem? {
            positions[key].map { values[$0] }
        }
    }

    enum Value {
        case unsigned(UInt64)
        /// The negative integer `-1 - n`, as major type 1 carries it.
        case negative(UInt64)
        /// A float16, float32 or float64, widened (exactly) to a `Double`.
        case float(Double)
        case bool(Bool)
        case null
        case text(String)
        case bytes(Data)
        case array([CBORItem])
        case map(Map)
    }

    var value: Value
    /// The offset of the item's first byte in the body, for errors.
    var offset: Int

    /// What the item is, for errors: its kind, never its value.
    var kindName: String {
        switch value {
        case .unsigned: return "an unsigned integer"
        case .negative: return "a negative integer"
        case .float: return "a floating-point number"
        case .bool: return "a boolean"
        case .null: return "null"
        case .text: return "a text string"
        case .bytes: return "a byte string"
        case .array: return "an array"
        case .map: return "a map"
        }
    }

    var isNull: Bool {
        if case .null = value { return true }
        return false
    }
}
