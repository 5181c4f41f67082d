#if !canImport(Darwin)
import Foundation

/// A `CFDictionary` of key parameters read the lenient way Security.framework reads them:
/// numbers given as `NSNumber`, `Int` or decimal strings, Booleans as `NSNumber` or `Bool`,
/// key types as strings or numbers.
struct SecKeyParameters {
    private let values: [String: Any]

    init(_ dictionary: NSDictionary?) {
        var values: [String: Any] = [:]
        for case let (key as String, value) in dictionary ?? NSDictionary() { values[key] = value }
        self.values = values
    }

    private init(values: [String: Any]) { self.values = values }

    /// This dictionary with `other`'s entries added, `other` winning.
    func merging(_ other: SecKeyParameters) -> SecKeyParameters {
        SecKeyParameters(values: values.merging(other.values) { $1 })
    }

    func has(_ key: CFString) -> Bool { values[key as String] != nil }

    func raw(_ key: CFString) -> Any? { values[key as String] }

    func string(_ key: CFString) -> String? {
        switch values[key as String] {
        case let string as String: string
        case let string as NSString: string as String
        case let number as NSNumber: number.stringValue
        case let number as Int: String(number)
        default: nil
        }
    }

    func int(_ key: CFString) -> Int? {
        switch values[key as String] {
        case let number as Int: number
        case let number as NSNumber: number.intValue
        case let string as String: Int(string)
        case let string as NSString: Int(string as String)
        default: nil
        }
    }

    func bool(_ key: CFString) -> Bool? {
        switch values[key as String] {
        case let flag as Bool: flag
        case let number as NSNumber: number.boolValue
        default: nil
        }
    }

    func data(_ key: CFString) -> Data? {
        switch values[key as String] {
        case let data as Data: data
        case let data as NSData: data as Data
        case let string as String: Data(string.utf8)
        default: nil
        }
    }

    func dictionary(_ key: CFString) -> SecKeyParameters? {
        switch values[key as String] {
        case let dictionary as NSDictionary: SecKeyParameters(dictionary)
        case let dictionary as [String: Any]: SecKeyParameters(values: dictionary)
        default: nil
        }
    }

    /// The entries whose keys are in `keys`, as a dictionary for SecItemAdd.
    func subset(_ keys: [CFString]) -> [String: Any] {
        values.filter { key, _ in keys.contains { $0 as String == key } }
    }
}
#endif
