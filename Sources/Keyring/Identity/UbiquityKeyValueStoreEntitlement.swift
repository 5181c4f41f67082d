#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The `com.apple.developer.ubiquity-kvstore-identifier` entitlement: which ubiquitous
/// key-value store a process may use (GroupSync's `UbiquitousKeyValueStore`). Every target that
/// names the same identifier sees the same store, as on Apple platforms.
///
/// Read from the same entitlements file as ``Identity`` and with the same rules: the value is a
/// string, `$(TeamIdentifierPrefix)` expands to `TEAMID.` (with the team id resolved as for
/// ``Identity/init(entitlementsAt:teamID:bundleID:)``), and the expanded value must be a valid
/// identifier. Kept apart from ``Identity`` so that the identity of a process that syncs nothing
/// stays what it was.
public struct UbiquityKeyValueStoreEntitlement: Sendable, Hashable, CustomStringConvertible {
    /// The entitlement's key in an `.entitlements` file.
    public static let key = "com.apple.developer.ubiquity-kvstore-identifier"

    /// The store's identifier with its variables expanded, e.g. `ABCDE12345.com.example.app`.
    public let identifier: GroupIdentifier

    /// An entitlement with an identifier written out, for tests and tools.
    public init(identifier: GroupIdentifier) {
        self.identifier = identifier
    }

    /// The entitlement in the file at `url`, or `nil` when the file does not grant one.
    /// - Throws: ``KeyringError`` with ``KeyringStatus/invalidParameter`` naming the file, the
    ///   key and the value: a file that is not an entitlements file, a value that is not a string,
    ///   or one that does not expand to an identifier.
    public init?(entitlementsAt url: URL, teamID: String? = nil, bundleID: String? = nil) throws(KeyringError) {
        let data = try EntitlementsFile.contents(of: url)
        try self.init(entitlements: data, source: url.path, teamID: teamID, bundleID: bundleID)
    }

    /// The entitlement in property-list `data` (XML or binary), or `nil` when it grants none.
    /// `source` names the data in error messages.
    /// - Throws: as ``init(entitlementsAt:teamID:bundleID:)``.
    public init?(entitlements data: Data, source: String, teamID: String? = nil, bundleID: String? = nil) throws(KeyringError) {
        // The whole file is checked as Identity checks it, and gives the team and bundle ids
        // the variables expand to.
        let file = try EntitlementsFile(data: data, source: source, teamID: teamID, bundleID: bundleID)
        guard case .dictionary(let dictionary)? = try? PropertyListValue.parse(data) else { return nil }
        let reader = EntitlementsFile.Reader(source: source, dictionary: dictionary)
        guard let raw = try reader.string(Self.key) else { return nil }
        let variables = BuildVariables(teamID: file.teamID, bundleID: file.bundleID)
        identifier = try reader.identifier(raw, key: Self.key, index: nil, with: variables)
    }

    /// The entitlement of the process described by the environment (`GROUPVAULT_ENTITLEMENTS`,
    /// `GROUPVAULT_TEAM_ID`, `GROUPVAULT_BUNDLE_ID`, as ``Identity/fromEnvironment(_:)``), or
    /// `nil` when there is no entitlements file or it grants no store.
    /// - Throws: as ``Identity/fromEnvironment(_:)``.
    public static func fromEnvironment(_ environment: [String: String] = ProcessInfo.processInfo.environment) throws(KeyringError) -> UbiquityKeyValueStoreEntitlement? {
        func value(_ name: String) -> String? { environment[name].flatMap { $0.isEmpty ? nil : $0 } }
        // The identity's own checks of the variables, with their messages.
        _ = try Identity.fromEnvironment(environment)
        guard let path = value("GROUPVAULT_ENTITLEMENTS") else { return nil }
        do {
            return try UbiquityKeyValueStoreEntitlement(
                entitlementsAt: URL(fileURLWithPath: path), teamID: value("GROUPVAULT_TEAM_ID"), bundleID: value("GROUPVAULT_BUNDLE_ID"))
        } catch {
            throw KeyringError(error.status, "GROUPVAULT_ENTITLEMENTS: \(error.reason)", underlyingError: error, remedy: error.remedy)
        }
    }

    /// The identifier.
    public var description: String { identifier.rawValue }
}
