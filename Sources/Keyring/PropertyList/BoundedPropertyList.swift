#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The bounded property-list parser of the entitlements code (``PropertyListValue``), for other
/// modules of the package that parse property lists from outside (SharedDefaults imports
/// Apple preferences files): the same limits, the same refusals, one parser to fuzz and fix.
package enum BoundedPropertyList {
    /// A parsed property list.
    package indirect enum Node: Sendable, Equatable {
        case string(String)
        case boolean(Bool)
        case integer(Int64)
        case real(Double)
        case data(Data)
        case date(Date)
        case array([Node])
        case dictionary([String: Node])
    }

    /// The deepest nesting accepted.
    package static var maximumDepth: Int { PropertyListValue.maximumDepth }
    /// The most values accepted in one property list.
    package static var maximumValues: Int { PropertyListValue.maximumValues }

    /// Parses XML or binary property-list bytes within the bounds.
    /// - Throws: any error for bytes that are not a property list or exceed a bound; its
    ///   description says which (never quoting the input at length).
    package static func parse(_ data: Data) throws -> Node {
        node(try PropertyListValue.parse(data))
    }

    private static func node(_ value: PropertyListValue) -> Node {
        switch value {
        case .string(let value): return .string(value)
        case .boolean(let value): return .boolean(value)
        case .integer(let value): return .integer(value)
        case .real(let value): return .real(value)
        case .data(let value): return .data(value)
        case .date(let value): return .date(value)
        case .array(let values): return .array(values.map(node))
        case .dictionary(let values): return .dictionary(values.mapValues(node))
        }
    }
}
