import Foundation

extension SharedDefaults {
    /// Stores `value` encoded as JSON, as a data value: for settings with a schema.
    ///
    /// ```swift
    /// struct WidgetStyle: Codable { var theme: String; var refreshInterval: Int }
    /// try defaults.setEncoded(WidgetStyle(theme: "dark", refreshInterval: 30), forKey: "style")
    /// let style = try defaults.decoded(WidgetStyle.self, forKey: "style")
    /// ```
    ///
    /// JSON in a data value, not a dictionary of property-list values: a `Codable` type keeps
    /// its own coding (dates, optionals, enums) exactly, and other processes decode it with the
    /// same type. The size limits apply to the encoded data (base64 counts 4/3).
    /// - Throws: ``SharedDefaultsError/Code/unsupportedValue`` when the value does not encode,
    ///   and what ``set(_:forKey:)-(SharedDefaults.Value,_)`` throws.
    public func setEncoded<T: Encodable>(_ value: T, forKey key: String) throws(SharedDefaultsError) {
        let data: Data
        do {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys]
            data = try encoder.encode(value)
        } catch {
            throw SharedDefaultsError(.unsupportedValue, "the \(T.self) for \"\(printable(key))\" does not encode as JSON (\(type(of: error)))")
        }
        try set(Value.data(data), forKey: key)
    }

    /// The value of `key` decoded as `T` (stored by ``setEncoded(_:forKey:)``), or `nil` when
    /// the key has no value.
    /// - Throws: ``SharedDefaultsError/Code/typeMismatch`` when the value is not JSON data of
    ///   a `T`; what ``value(forKey:)`` throws for a refused entry.
    public func decoded<T: Decodable>(_ type: T.Type, forKey key: String) throws(SharedDefaultsError) -> T? {
        guard let value = try value(forKey: key) else { return nil }
        guard case .data(let data) = value else {
            throw SharedDefaultsError(.typeMismatch, "\"\(printable(key))\" holds a \(value.typeName), not the JSON data of a \(T.self)")
        }
        do {
            return try JSONDecoder().decode(T.self, from: data)
        } catch {
            throw SharedDefaultsError(.typeMismatch, "\"\(printable(key))\" does not decode as \(T.self) (\(Swift.type(of: error)))")
        }
    }
}
