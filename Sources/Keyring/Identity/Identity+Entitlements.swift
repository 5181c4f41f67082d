#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension Identity {
    /// Reads an Xcode `.entitlements` property list (XML or binary), the same file the app is
    /// signed with on Apple platforms.
    ///
    /// Read: `com.apple.security.application-groups` and `keychain-access-groups` (arrays of
    /// strings), and the optional `application-identifier` and
    /// `com.apple.developer.team-identifier`. Other keys are ignored. `$(TeamIdentifierPrefix)`
    /// and `$(AppIdentifierPrefix)` expand to `TEAMID.`, `$(DEVELOPMENT_TEAM)` to `TEAMID`,
    /// `$(CFBundleIdentifier)` and `$(PRODUCT_BUNDLE_IDENTIFIER)` to the bundle id.
    ///
    /// The team id is, in order of precedence: `teamID`, the team-identifier entitlement, the
    /// prefix of the application identifier. The bundle id is `bundleID`, else the application
    /// identifier without its prefix.
    ///
    /// ```swift
    /// let widget = try Identity(
    ///     entitlementsAt: URL(fileURLWithPath: "Widget/Widget.entitlements"),
    ///     teamID: "ABCDE12345", bundleID: "com.example.app.widget")
    /// widget.accessGroups  // [ABCDE12345.com.example.shared, ABCDE12345.com.example.app.widget, group.com.example]
    /// ```
    ///
    /// - Throws: ``KeyringError`` with ``KeyringStatus/invalidParameter`` naming the file, the
    ///   key and the offending value: a missing or oversized (over 1 MiB) file, a file that is not
    ///   a property list or whose root is not a dictionary, a value of the wrong type, an invalid
    ///   identifier, or a variable that cannot be expanded (for example
    ///   `$(TeamIdentifierPrefix)` with no team id known).
    public init(entitlementsAt url: URL, teamID: String? = nil, bundleID: String? = nil) throws(KeyringError) {
        let data = try EntitlementsFile.contents(of: url)
        try self.init(entitlements: data, source: url.path, teamID: teamID, bundleID: bundleID)
    }

    /// Reads entitlements from property list data (XML or binary): inline entitlements for
    /// tests and tools. `source` names the data in error messages.
    ///
    /// ```swift
    /// let plist = Data("""
    ///     <plist version="1.0"><dict>
    ///       <key>com.apple.security.application-groups</key>
    ///       <array><string>group.com.example</string></array>
    ///     </dict></plist>
    ///     """.utf8)
    /// let app = try Identity(entitlements: plist, source: "app entitlements", teamID: "ABCDE12345", bundleID: "com.example.app")
    /// ```
    ///
    /// - Throws: ``KeyringError`` with ``KeyringStatus/invalidParameter``, as
    ///   ``init(entitlementsAt:teamID:bundleID:)`` does.
    public init(entitlements data: Data, source: String, teamID: String? = nil, bundleID: String? = nil) throws(KeyringError) {
        let file = try EntitlementsFile(data: data, source: source, teamID: teamID, bundleID: bundleID)
        self.init(
            teamID: file.teamID,
            bundleID: file.bundleID,
            applicationIdentifier: file.applicationIdentifier,
            keychainAccessGroups: file.keychainAccessGroups,
            applicationGroups: file.applicationGroups)
    }

    /// The process identity described by the environment:
    ///
    /// - `GROUPVAULT_ENTITLEMENTS`: path to an `.entitlements` file (optional);
    /// - `GROUPVAULT_TEAM_ID`: the 10-character team id, e.g. `ABCDE12345`;
    /// - `GROUPVAULT_BUNDLE_ID`: the bundle id, e.g. `com.example.app.widget`.
    ///
    /// Without an entitlements file the identity has only its application identifier
    /// (`TEAMID.bundle.id`, when both are set) as access group, and no application groups.
    ///
    /// ```swift
    /// // GROUPVAULT_ENTITLEMENTS=Widget.entitlements GROUPVAULT_TEAM_ID=ABCDE12345 widget
    /// let identity = try Identity.fromEnvironment()
    /// ```
    ///
    /// - Throws: ``KeyringError`` with ``KeyringStatus/invalidParameter`` naming the variable
    ///   whose value is wrong, and for the entitlements file also the key and value.
    public static func fromEnvironment(_ environment: [String: String] = ProcessInfo.processInfo.environment) throws(KeyringError) -> Identity {
        // An empty variable counts as unset, as shells make it easy to export one by accident.
        func value(_ name: String) -> String? {
            environment[name].flatMap { $0.isEmpty ? nil : $0 }
        }
        let teamID = value("GROUPVAULT_TEAM_ID")
        if let teamID, !GroupIdentifier.isValidTeamID(teamID) {
            throw KeyringError(.invalidParameter, "GROUPVAULT_TEAM_ID=\"\(GroupIdentifier.printable(teamID))\" is not a team id: it must be 10 characters of A-Z and 0-9, e.g. ABCDE12345")
        }
        let bundleID = value("GROUPVAULT_BUNDLE_ID")
        if let bundleID, let problem = GroupIdentifier.problem(withBundleID: bundleID) {
            throw KeyringError(.invalidParameter, "GROUPVAULT_BUNDLE_ID=\"\(GroupIdentifier.printable(bundleID))\" is not a bundle identifier: \(problem)")
        }
        guard let path = value("GROUPVAULT_ENTITLEMENTS") else {
            return Identity(teamID: teamID, bundleID: bundleID)
        }
        do {
            return try Identity(entitlementsAt: URL(fileURLWithPath: path), teamID: teamID, bundleID: bundleID)
        } catch {
            throw KeyringError(error.status, "GROUPVAULT_ENTITLEMENTS: \(error.reason)", underlyingError: error, remedy: error.remedy)
        }
    }
}
