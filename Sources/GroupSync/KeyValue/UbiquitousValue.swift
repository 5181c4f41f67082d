#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import GroupSyncCore
import SealedStorage

/// A value of the ubiquitous key-value store: the property-list types
/// `NSUbiquitousKeyValueStore` accepts.
///
/// Encoded (inside the sealed entry) as a JSON object with one member naming its type, as
/// SharedDefaults encodes its values: `{"string": "..."}`, `{"int": 1}`, `{"double": 1.5}`
/// (or `"nan"`, `"inf"`, `"-inf"`), `{"bool": true}`, `{"data": "<base64>"}`,
/// `{"date": <seconds since 2001>}`, `{"array": [...]}`, `{"dict": {...}}`.
public indirect enum UbiquitousValue: Sendable, Hashable, Codable {
    case string(String)
    case int(Int64)
    case double(Double)
    case bool(Bool)
    case data(Data)
    case date(Date)
    case array([UbiquitousValue])
    case dictionary([String: UbiquitousValue])

    private enum CodingKeys: String, CodingKey { case string, int, double, bool, data, date, array, dict }

    /// Decodes the tagged form.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        guard container.allKeys.count == 1, let key = container.allKeys.first else {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "a value has exactly one member naming its type"))
        }
        switch key {
        case .string: self = .string(try container.decode(String.self, forKey: key))
        case .int: self = .int(try container.decode(Int64.self, forKey: key))
        case .double:
            if let text = try? container.decode(String.self, forKey: key) {
                switch text {
                case "nan": self = .double(.nan)
                case "inf": self = .double(.infinity)
                case "-inf": self = .double(-.infinity)
                default: throw DecodingError.dataCorruptedError(forKey: key, in: container, debugDescription: "not a number")
                }
            } else {
                self = .double(try container.decode(Double.self, forKey: key))
            }
        case .bool: self = .bool(try container.decode(Bool.self, forKey: key))
        case .data: self = .data(try container.decode(Data.self, forKey: key))
        case .date: self = .date(Date(timeIntervalSinceReferenceDate: try container.decode(Double.self, forKey: key)))
        case .array: self = .array(try container.decode([UbiquitousValue].self, forKey: key))
        case .dict: self = .dictionary(try container.decode([String: UbiquitousValue].self, forKey: key))
        }
    }

    /// Encodes the tagged form.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        switch self {
        case .string(let value): try container.encode(value, forKey: .string)
        case .int(let value): try container.encode(value, forKey: .int)
        case .double(let value):
            if value.isNaN { try container.encode("nan", forKey: .double) }
            else if value.isInfinite { try container.encode(value > 0 ? "inf" : "-inf", forKey: .double) }
            else { try container.encode(value, forKey: .double) }
        case .bool(let value): try container.encode(value, forKey: .bool)
        case .data(let value): try container.encode(value, forKey: .data)
        case .date(let value): try container.encode(value.timeIntervalSinceReferenceDate, forKey: .date)
        case .array(let value): try container.encode(value, forKey: .array)
        case .dictionary(let value): try container.encode(value, forKey: .dict)
        }
    }

    /// The encoded bytes (sorted keys), as sealed; their count is what the store's size quota counts.
    func encoded() throws(SyncError) -> [UInt8] {
        if let bytes = scalarEncoding() { return bytes }
        do {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys]
            return Array(try encoder.encode(self))
        } catch {
            throw SyncError(.invalidArgument, "the value cannot be encoded: \(error)", underlyingError: error)
        }
    }

    /// A string, integer, Boolean or data value as `JSONEncoder` with sorted keys writes it
    /// (`UbiquitousValueEncodingTests` compare the two), without its machinery: the common values
    /// of a `set`, on the path to another machine. `nil` for the others (a double's and a date's
    /// digits, and containers, are left to `JSONEncoder`).
    private func scalarEncoding() -> [UInt8]? {
        var bytes: [UInt8] = []
        switch self {
        case .string(let text):
            bytes.append(contentsOf: Self.stringMember)
            JSONStringWriter.write(text, slashes: .escaped, to: &bytes)
        case .int(let number):
            bytes.append(contentsOf: Self.intMember)
            bytes.append(contentsOf: String(number).utf8)
        case .bool(let flag):
            bytes.append(contentsOf: Self.boolMember)
            bytes.append(contentsOf: (flag ? "true" : "false").utf8)
        case .data(let data):
            bytes.append(contentsOf: Self.dataMember)
            JSONStringWriter.write(data.base64EncodedString(), slashes: .escaped, to: &bytes)
        case .double, .date, .array, .dictionary:
            return nil
        }
        bytes.append(UInt8(ascii: "}"))
        return bytes
    }

    private static let stringMember = Array(#"{"string":"#.utf8)
    private static let intMember = Array(#"{"int":"#.utf8)
    private static let boolMember = Array(#"{"bool":"#.utf8)
    private static let dataMember = Array(#"{"data":"#.utf8)

    /// The value `bytes` hold, `nil` when they hold none: not JSON, not one of the types, or an
    /// object that names a member twice (``JSONMemberNames``: readers would differ on it).
    static func decoded(_ bytes: [UInt8]) -> UbiquitousValue? {
        guard let value = try? JSONDecoder().decode(UbiquitousValue.self, from: Data(bytes)),
              JSONMemberNames.areUnique(in: bytes) else { return nil }
        return value
    }
}
