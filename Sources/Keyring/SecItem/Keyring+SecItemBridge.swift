#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

// What the `Security` module (Apple's SecItem API over this keyring, a separate module since
// it must be importable as `import Security`) needs from Keyring's internals to explain a
// failure as precisely as the native API does. `package`, so it is no part of Keyring's
// public API; one file, so the seam between the two modules is visible in one place.

extension Keyring {
    /// What a search for `query` looked for and in which groups, for an `errSecItemNotFound`
    /// reason (e.g. `genp service "api" account "me" in ABCDE12345.com.example.shared`).
    /// - Throws: ``KeyringStatus/missingEntitlement`` when the query names an unentitled group.
    package func searchDescription(for query: ItemQuery) throws(KeyringError) -> String {
        query.summary(searching: try searchScope(for: query, operation: "search"))
    }
}

extension GroupIdentifier {
    /// `string` made safe to quote in an error message: control characters escaped and
    /// overlong input shortened, as every Keyring reason quotes caller input.
    package static func printableForMessage(_ string: String) -> String {
        printable(string)
    }
}
