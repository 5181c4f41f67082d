#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A property list as a plain Swift tree, decoded from XML or binary bytes.
///
/// XML is parsed by ``XMLPropertyListParser``, GroupVault's own bounded parser: Foundation's
/// XML scanner recurses per element, and nesting hidden from any pre-check inside comments
/// (`<array><!--</array>-->`, repeated) overflowed its stack. Binary property lists are decoded
/// with `PropertyListDecoder`, whose binary parser walks objects without recursion and reports
/// malformed bytes as errors, into this tree, with its depth and value count bounded.
/// `PropertyListSerialization` is not used: on Linux it bridges CoreFoundation objects to Swift,
/// and a corrupted binary property list (a dictionary marker flipped into a set marker, found
/// by EntitlementsFuzzTests) crashed the process inside that bridging.
package enum PropertyListValue: Decodable, Sendable, Equatable, CustomStringConvertible {
    case string(String)
    case boolean(Bool)
    case integer(Int64)
    case real(Double)
    case data(Data)
    case date(Date)
    case array([PropertyListValue])
    case dictionary([String: PropertyListValue])

    /// Deeper nesting than this is refused: entitlements are at most two levels deep.
    static let maximumDepth = 32

    /// More values than this in one property list are refused: entitlements hold tens. The
    /// bound matters for binary property lists, whose objects can be referenced many times:
    /// a few hundred bytes of references-to-references decode into an exponential tree.
    static let maximumValues = 4096

    /// Parses XML or binary property list bytes.
    /// - Throws: any error for bytes that are not a property list, or nest too deep.
    static func parse(_ data: Data) throws -> PropertyListValue {
        guard data.starts(with: "bplist".utf8) else {
            // Checked first so that the refusal says what is wrong with the bytes; Xcode writes
            // entitlements as UTF-8 (and Foundation's scanner, used before the parser below, once
            // trapped on an old 5-byte UTF-8 lead byte).
            guard String(data: data, encoding: .utf8) != nil else { throw Refusal.notUTF8 }
            return try XMLPropertyListParser.parse(data)
        }
        // Foundation's binary scanner traps on some malformed objects: the structure is
        // checked first (BinaryPropertyListCheck). The binary parser walks objects without
        // recursion, and init(from:) bounds the depth and the number of values decoded.
        do {
            try BinaryPropertyListCheck.check(Array(data))
        } catch {
            throw Refusal(description: error.description)
        }
        let decoder = PropertyListDecoder()
        decoder.userInfo[ValueBudget.key] = ValueBudget(remaining: maximumValues)
        return try decoder.decode(PropertyListValue.self, from: data)
    }

    /// How many more values one decode may produce; shared by every nested `init(from:)`.
    ///
    /// `@unchecked Sendable`: `userInfo` demands Sendable values, and one decode runs on one
    /// thread from start to end, so the counter is never touched concurrently.
    private final class ValueBudget: @unchecked Sendable {
        static let key = CodingUserInfoKey(rawValue: "GroupVault.PropertyListValue.budget")!
        var remaining: Int
        init(remaining: Int) { self.remaining = remaining }
    }

    /// A property list this parser refuses before or while decoding it, with the reason.
    struct Refusal: Error, CustomStringConvertible {
        let description: String

        static let tooDeep = Refusal(description: "nests deeper than \(PropertyListValue.maximumDepth) levels")
        static let tooManyValues = Refusal(description: "holds more than \(PropertyListValue.maximumValues) values")
        static let notUTF8 = Refusal(description: "is an XML property list that is not valid UTF-8")
    }

    private struct Key: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }



    package init(from decoder: any Decoder) throws {
        guard decoder.codingPath.count <= Self.maximumDepth else { throw Refusal.tooDeep }
        if let budget = decoder.userInfo[ValueBudget.key] as? ValueBudget {
            budget.remaining -= 1
            guard budget.remaining >= 0 else { throw Refusal.tooManyValues }
        }
        if let keyed = try? decoder.container(keyedBy: Key.self) {
            var dictionary: [String: PropertyListValue] = [:]
            for key in keyed.allKeys {
                dictionary[key.stringValue] = try keyed.decode(PropertyListValue.self, forKey: key)
            }
            self = .dictionary(dictionary)
            return
        }
        if var unkeyed = try? decoder.unkeyedContainer() {
            var array: [PropertyListValue] = []
            while !unkeyed.isAtEnd {
                array.append(try unkeyed.decode(PropertyListValue.self))
            }
            self = .array(array)
            return
        }
        let single = try decoder.singleValueContainer()
        // Strings first: they are what entitlements hold. The order of the rest only decides
        // how a wrong value is described in a message.
        if let string = try? single.decode(String.self) {
            self = .string(string)
        } else if let boolean = try? single.decode(Bool.self) {
            self = .boolean(boolean)
        } else if let integer = try? single.decode(Int64.self) {
            self = .integer(integer)
        } else if let real = try? single.decode(Double.self) {
            self = .real(real)
        } else if let data = try? single.decode(Data.self) {
            self = .data(data)
        } else {
            self = .date(try single.decode(Date.self))
        }
    }

    /// The value's kind and, for scalars, a printable, truncated rendering, for messages.
    package var description: String {
        switch self {
        case .string(let string): return "the string \"\(GroupIdentifier.printable(string))\""
        case .boolean(let boolean): return "the boolean \(boolean)"
        case .integer(let integer): return "the number \(integer)"
        case .real(let real): return "the number \(real)"
        case .data(let data): return "data (\(data.count) bytes)"
        // Not `\(date)`: Date's description traps on a NaN interval, which a binary plist can hold.
        case .date(let date): return "a date (\(date.timeIntervalSince1970) s since 1970)"
        case .array(let array): return "an array of \(array.count) item\(array.count == 1 ? "" : "s")"
        case .dictionary: return "a dictionary"
        }
    }
}
