import Foundation

extension SharedDefaults {
    /// A property-list value: what a suite stores, as a plain Swift tree.
    ///
    /// The types `UserDefaults` accepts, and no others: Boolean, integer, real, string, data,
    /// date, URL, and arrays and string-keyed dictionaries of them.
    ///
    /// ```swift
    /// try defaults.set(.dictionary(["theme": .string("dark"), "refresh": .integer(30)]), forKey: "widget")
    /// ```
    ///
    /// Sealed as JSON, one object with exactly one member naming the type (the format is in
    /// docs/FORMAT.md, "SharedDefaults entries"):
    /// `{"bool":true}`, `{"int":42}`, `{"real":1.5}` (`"nan"`, `"inf"`, `"-inf"` for the
    /// non-finite reals a property list allows), `{"string":"…"}`, `{"data":"<base64>"}`,
    /// `{"date":<seconds since 2001-01-01T00:00:00Z, a real>}`, `{"url":"<absolute URL>"}`,
    /// `{"array":[…]}`, `{"dict":{"key":…}}`. The tag keeps `1` (integer), `1.0` (real) and
    /// `true` apart, which plain JSON would not.
    public enum Value: Sendable, Hashable, CustomStringConvertible {
        case bool(Bool)
        case integer(Int)
        case real(Double)
        case string(String)
        case data(Data)
        case date(Date)
        case url(URL)
        case array([Value])
        case dictionary([String: Value])

        /// Deeper nesting is refused: settings are shallow, and the bound keeps a decode of a
        /// hostile payload from exhausting the stack.
        public static let maximumDepth = 32

        /// Converts a Foundation-typed value (`Bool`, `Int` and the other integer types that
        /// fit in `Int`, `Double`, `Float`, `String`, `Data`, `Date`, `URL`, arrays and
        /// `[String: Any]` dictionaries of them, or a `Value`), as `UserDefaults.set(_:forKey:)`
        /// accepts it; `nil` for anything else.
        public init?(_ any: Any) {
            guard let value = Self.convert(any, depth: 0) else { return nil }
            self = value
        }

        private static func convert(_ any: Any, depth: Int) -> Value? {
            guard depth <= maximumDepth else { return nil }
            switch any {
            case let value as Value: return value
            // Bool before the integers: on Apple platforms an NSNumber bridges to both.
            case let value as Bool: return .bool(value)
            case let value as Int: return .integer(value)
            case let value as Int8: return .integer(Int(value))
            case let value as Int16: return .integer(Int(value))
            case let value as Int32: return .integer(Int(value))
            case let value as Int64: return Int(exactly: value).map(Value.integer)
            case let value as UInt8: return .integer(Int(value))
            case let value as UInt16: return .integer(Int(value))
            case let value as UInt32: return .integer(Int(value))
            case let value as UInt: return Int(exactly: value).map(Value.integer)
            case let value as UInt64: return Int(exactly: value).map(Value.integer)
            case let value as Double: return .real(value)
            case let value as Float: return .real(Double(value))
            case let value as String: return .string(value)
            case let value as Data: return .data(value)
            case let value as Date: return .date(value)
            case let value as URL: return .url(value)
            case let values as [Any]:
                var array: [Value] = []
                array.reserveCapacity(values.count)
                for element in values {
                    guard let converted = convert(element, depth: depth + 1) else { return nil }
                    array.append(converted)
                }
                return .array(array)
            case let values as [String: Any]:
                var dictionary: [String: Value] = [:]
                for (key, element) in values {
                    guard let converted = convert(element, depth: depth + 1) else { return nil }
                    dictionary[key] = converted
                }
                return .dictionary(dictionary)
            default:
                return nil
            }
        }

        /// The value as Foundation types, the way `UserDefaults.object(forKey:)` returns it:
        /// `Bool`, `Int`, `Double`, `String`, `Data`, `Date`, `URL`, `[Any]`, `[String: Any]`.
        public var foundationValue: Any {
            switch self {
            case .bool(let value): return value
            case .integer(let value): return value
            case .real(let value): return value
            case .string(let value): return value
            case .data(let value): return value
            case .date(let value): return value
            case .url(let value): return value
            case .array(let values): return values.map(\.foundationValue)
            case .dictionary(let values): return values.mapValues(\.foundationValue)
            }
        }

        /// The type's name as used in the sealed encoding and in messages.
        public var typeName: String {
            switch self {
            case .bool: return "bool"
            case .integer: return "int"
            case .real: return "real"
            case .string: return "string"
            case .data: return "data"
            case .date: return "date"
            case .url: return "url"
            case .array: return "array"
            case .dictionary: return "dict"
            }
        }

        /// How deep the value nests: 0 for a scalar, 1 for an array of scalars, ...
        var depth: Int {
            switch self {
            case .array(let values): return 1 + (values.map(\.depth).max() ?? 0)
            case .dictionary(let values): return 1 + (values.values.map(\.depth).max() ?? 0)
            default: return 0
            }
        }

        /// The type and size, never the content: values can be secrets a person did not mean
        /// to log. Use `vaultcli defaults read --reveal` or the value itself to see content.
        public var description: String {
            switch self {
            case .bool, .integer, .real, .date: return typeName
            case .string(let value): return "string (\(value.utf8.count) bytes)"
            case .data(let value): return "data (\(value.count) bytes)"
            case .url: return "url"
            case .array(let values): return "array (\(values.count) item\(values.count == 1 ? "" : "s"))"
            case .dictionary(let values): return "dict (\(values.count) key\(values.count == 1 ? "" : "s"))"
            }
        }
    }
}

// MARK: - The sealed encoding

extension SharedDefaults.Value: Codable {
    private struct Tag: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(_ string: String) { stringValue = string }
        init?(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    /// The reference date of property-list dates (and of `Date.timeIntervalSinceReferenceDate`).
    private static let referenceDate = Date(timeIntervalSinceReferenceDate: 0)

    /// Encodes in the tagged form the type documents.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Tag.self)
        let tag = Tag(typeName)
        switch self {
        case .bool(let value): try container.encode(value, forKey: tag)
        case .integer(let value): try container.encode(value, forKey: tag)
        case .real(let value):
            if value.isNaN {
                try container.encode("nan", forKey: tag)
            } else if value.isInfinite {
                try container.encode(value > 0 ? "inf" : "-inf", forKey: tag)
            } else {
                try container.encode(value, forKey: tag)
            }
        case .string(let value): try container.encode(value, forKey: tag)
        case .data(let value): try container.encode(value.base64EncodedString(), forKey: tag)
        case .date(let value): try container.encode(value.timeIntervalSinceReferenceDate, forKey: tag)
        case .url(let value): try container.encode(value.absoluteString, forKey: tag)
        case .array(let values): try container.encode(values, forKey: tag)
        case .dictionary(let values):
            // A keyed container, not a [String: Value] (which JSONEncoder could turn into an
            // array for some key types): the encoding must not depend on the encoder's choices.
            var nested = container.nestedContainer(keyedBy: Tag.self, forKey: tag)
            for (key, element) in values {
                try nested.encode(element, forKey: Tag(key))
            }
        }
    }

    /// Decodes the tagged form, refusing anything else (unknown or several tags, wrong member
    /// types, non-finite dates, relative URLs, nesting over ``maximumDepth``).
    public init(from decoder: any Decoder) throws {
        guard decoder.codingPath.count <= 2 * Self.maximumDepth + 1 else {
            throw DecodingError.dataCorrupted(.init(codingPath: [], debugDescription: "nests deeper than \(Self.maximumDepth) levels"))
        }
        let container = try decoder.container(keyedBy: Tag.self)
        guard container.allKeys.count == 1, let tag = container.allKeys.first else {
            throw DecodingError.dataCorrupted(.init(codingPath: [], debugDescription: "a value is an object with exactly one type member"))
        }
        func corrupted(_ what: String) -> DecodingError {
            DecodingError.dataCorrupted(.init(codingPath: [], debugDescription: what))
        }
        switch tag.stringValue {
        case "bool": self = .bool(try container.decode(Bool.self, forKey: tag))
        case "int": self = .integer(try container.decode(Int.self, forKey: tag))
        case "real":
            if let text = try? container.decode(String.self, forKey: tag) {
                switch text {
                case "nan": self = .real(.nan)
                case "inf": self = .real(.infinity)
                case "-inf": self = .real(-.infinity)
                default: throw corrupted("a real is a number, \"nan\", \"inf\" or \"-inf\"")
                }
            } else {
                self = .real(try container.decode(Double.self, forKey: tag))
            }
        case "string": self = .string(try container.decode(String.self, forKey: tag))
        case "data":
            guard let data = Data(base64Encoded: try container.decode(String.self, forKey: tag)) else {
                throw corrupted("data is not base64")
            }
            self = .data(data)
        case "date":
            let seconds = try container.decode(Double.self, forKey: tag)
            guard seconds.isFinite else { throw corrupted("a date is a finite number of seconds") }
            self = .date(Date(timeIntervalSinceReferenceDate: seconds))
        case "url":
            guard let url = URL(string: try container.decode(String.self, forKey: tag)), url.scheme != nil else {
                throw corrupted("a URL is absolute")
            }
            self = .url(url)
        case "array": self = .array(try container.decode([SharedDefaults.Value].self, forKey: tag))
        case "dict":
            let nested = try container.nestedContainer(keyedBy: Tag.self, forKey: tag)
            var values: [String: SharedDefaults.Value] = [:]
            for key in nested.allKeys {
                values[key.stringValue] = try nested.decode(SharedDefaults.Value.self, forKey: key)
            }
            self = .dictionary(values)
        default:
            throw corrupted("unknown value type")
        }
    }
}
