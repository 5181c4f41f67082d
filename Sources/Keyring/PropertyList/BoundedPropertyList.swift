#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The bounded property-list parser of the entitlements code (``PropertyListValue``), for other
/// modules of the package that parse property lists from outside (SharedDefaults imports
/// Apple preferences files): the same limits, the same refusals, one parser to fuzz and fix.
package enum BoundedPropertyList {
    /// A parsed property list: the entitlements parser's own tree, not a copy of it.
    package typealias Node = PropertyListValue

    /// The deepest nesting accepted.
    package static var maximumDepth: Int { PropertyListValue.maximumDepth }
    /// The most values accepted in one property list.
    package static var maximumValues: Int { PropertyListValue.maximumValues }

    /// Parses XML or binary property-list bytes within the bounds.
    /// - Throws: any error for bytes that are not a property list or exceed a bound; its
    ///   description says which (never quoting the input at length).
    package static func parse(_ data: Data) throws -> Node {
        try PropertyListValue.parse(data)
    }
}
