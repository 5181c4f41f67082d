import Foundation

extension SharedDefaults {
    /// The value as Foundation types (`Bool`, `Int`, `Double`, `String`, `Data`, `Date`,
    /// `URL`, `[Any]`, `[String: Any]`), or `nil`, as `UserDefaults.object(forKey:)`.
    public func object(forKey key: String) -> Any? {
        propertyListValue(forKey: key)?.foundationValue
    }

    /// A string, or a number rendered as one (as `UserDefaults`); otherwise `nil`.
    public func string(forKey key: String) -> String? {
        switch propertyListValue(forKey: key) {
        case .string(let value): return value
        case .integer(let value): return String(value)
        case .real(let value): return String(value)
        default: return nil
        }
    }

    /// A Boolean: `true` for `true`, non-zero numbers and the strings "YES", "true", "1"
    /// (any case); `false` otherwise and when absent (as `UserDefaults.bool(forKey:)`).
    public func bool(forKey key: String) -> Bool {
        switch propertyListValue(forKey: key) {
        case .bool(let value): return value
        case .integer(let value): return value != 0
        case .real(let value): return value != 0
        case .string(let value): return ["yes", "true", "1"].contains(value.lowercased())
        default: return false
        }
    }

    /// An integer: integers as they are, reals truncated toward zero (when in range),
    /// Booleans as 0/1, strings that parse as integers; 0 otherwise and when absent.
    public func integer(forKey key: String) -> Int {
        switch propertyListValue(forKey: key) {
        case .integer(let value): return value
        case .real(let value): return Int(exactly: value.rounded(.towardZero)) ?? 0
        case .bool(let value): return value ? 1 : 0
        case .string(let value): return Int(value) ?? Double(value).flatMap { Int(exactly: $0.rounded(.towardZero)) } ?? 0
        default: return 0
        }
    }

    /// A real: reals, integers, Booleans as 0/1, strings that parse; 0 otherwise and when absent.
    public func double(forKey key: String) -> Double {
        switch propertyListValue(forKey: key) {
        case .real(let value): return value
        case .integer(let value): return Double(value)
        case .bool(let value): return value ? 1 : 0
        case .string(let value): return Double(value) ?? 0
        default: return 0
        }
    }

    /// ``double(forKey:)`` as a `Float`.
    public func float(forKey key: String) -> Float {
        Float(double(forKey: key))
    }

    /// Data, or `nil`.
    public func data(forKey key: String) -> Data? {
        guard case .data(let value) = propertyListValue(forKey: key) else { return nil }
        return value
    }

    /// A date, or `nil`.
    public func date(forKey key: String) -> Date? {
        guard case .date(let value) = propertyListValue(forKey: key) else { return nil }
        return value
    }

    /// A URL, or a string that is an absolute URL or a path (as a file URL); otherwise `nil`.
    public func url(forKey key: String) -> URL? {
        switch propertyListValue(forKey: key) {
        case .url(let value): return value
        case .string(let value):
            if value.hasPrefix("/") || value.hasPrefix("~") {
                return URL(fileURLWithPath: (value as NSString).expandingTildeInPath)
            }
            return URL(string: value).flatMap { $0.scheme == nil ? nil : $0 }
        default: return nil
        }
    }

    /// An array (its elements as Foundation types), or `nil`.
    public func array(forKey key: String) -> [Any]? {
        guard case .array(let values) = propertyListValue(forKey: key) else { return nil }
        return values.map(\.foundationValue)
    }

    /// An array whose elements are all strings, or `nil`.
    public func stringArray(forKey key: String) -> [String]? {
        guard case .array(let values) = propertyListValue(forKey: key) else { return nil }
        var strings: [String] = []
        for value in values {
            guard case .string(let string) = value else { return nil }
            strings.append(string)
        }
        return strings
    }

    /// A dictionary (its values as Foundation types), or `nil`.
    public func dictionary(forKey key: String) -> [String: Any]? {
        guard case .dictionary(let values) = propertyListValue(forKey: key) else { return nil }
        return values.mapValues(\.foundationValue)
    }
}
