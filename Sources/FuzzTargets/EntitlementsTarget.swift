import Foundation
import Keyring

extension FuzzTarget {
    /// `Identity(entitlements:source:teamID:bundleID:)` on arbitrary bytes (XML or binary
    /// property lists), once with an explicit team and bundle id and once without: either
    /// errSecParam naming the source, or an identity whose every group is a valid, fully
    /// expanded identifier.
    static let entitlements = FuzzTarget(
        name: "entitlements",
        summary: "Identity(entitlements:) gives errSecParam or an identity whose every group validates",
        run: { input throws(FuzzFinding) in
            let data = Data(input)
            let outcome = try EntitlementsChecks.check(data, teamID: "ABCDE12345", bundleID: "com.example.app")
            // Without a team id, $(TeamIdentifierPrefix) must be refused, not expanded to ".".
            try EntitlementsChecks.check(data, teamID: nil, bundleID: nil)
            return outcome
        },
        seeds: {
            func plist(_ body: String) -> [UInt8] {
                Array("""
                    <?xml version="1.0" encoding="UTF-8"?>
                    <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
                    <plist version="1.0">
                    <dict>
                    \(body)
                    </dict>
                    </plist>

                    """.utf8)
            }
            let full: [String: Any] = [
                "keychain-access-groups": ["$(AppIdentifierPrefix)com.example.shared"],
                "com.apple.security.application-groups": ["group.com.example", "ABCDE12345.com.example.macos"],
                "application-identifier": "ABCDE12345.com.example.app",
                "com.apple.developer.team-identifier": "ABCDE12345",
            ]
            return [
                "valid-app.entitlements": plist("""
                    \t<key>com.apple.security.application-groups</key>
                    \t<array>
                    \t\t<string>group.com.example.notes</string>
                    \t</array>
                    \t<key>keychain-access-groups</key>
                    \t<array>
                    \t\t<string>$(AppIdentifierPrefix)com.example.notes</string>
                    \t\t<string>$(TeamIdentifierPrefix)com.example.shared</string>
                    \t</array>
                    """),
                "valid-variables.entitlements": plist("""
                    \t<key>application-identifier</key>
                    \t<string>${DEVELOPMENT_TEAM}.$(CFBundleIdentifier)</string>
                    \t<key>keychain-access-groups</key>
                    \t<array><string>$(AppIdentifierPrefix)$(PRODUCT_BUNDLE_IDENTIFIER).shared</string></array>
                    """),
                "valid-binary.entitlements": try PropertyListSerialization.data(fromPropertyList: full, format: .binary, options: 0).map { $0 },
                "valid-full-xml.entitlements": try PropertyListSerialization.data(fromPropertyList: full, format: .xml, options: 0).map { $0 },
                "wrong-types.entitlements": plist("""
                    \t<key>keychain-access-groups</key>
                    \t<string>ABCDE12345.com.example</string>
                    \t<key>com.apple.security.application-groups</key>
                    \t<array><integer>7</integer><data>AAEC</data><date>2024-01-01T00:00:00Z</date><real>1.5</real><true/></array>
                    """),
                "unterminated-variable.entitlements": plist("""
                    \t<key>keychain-access-groups</key>
                    \t<array><string>$(TeamIdentifierPrefix.com.example</string></array>
                    """),
                "nested.entitlements": plist(String(repeating: "<key>k</key><dict>", count: 20) + String(repeating: "</dict>", count: 20)),
            ]
        })
}

/// The entitlements target's checks.
enum EntitlementsChecks {
    static let source = "fuzz.entitlements"

    /// Parses `data` as the entitlements of a process with the given explicit ids.
    @discardableResult
    static func check(_ data: Data, teamID: String?, bundleID: String?) throws(FuzzFinding) -> FuzzOutcome {
        let identity: Identity
        do throws(KeyringError) {
            identity = try Identity(entitlements: data, source: source, teamID: teamID, bundleID: bundleID)
        } catch {
            try expect(error.status == .invalidParameter, "refused with \(error.status), not errSecParam: \(error.reason)")
            try expect(error.reason.contains(source), "the reason does not name the source: \(error.reason)")
            return .refused
        }
        let context = "team id \(teamID ?? "none"), bundle id \(bundleID ?? "none")"
        let groups = identity.keychainAccessGroups + identity.applicationGroups + [identity.applicationIdentifier].compactMap { $0 }
        for group in groups {
            try expect(GroupIdentifierRules.isValid(group.rawValue), "accepted the invalid group \(group.rawValue.debugDescription) (\(context))")
            try expect(!group.rawValue.contains("$"), "accepted the unexpanded group \(group.rawValue.debugDescription) (\(context))")
        }
        try expect(Set(identity.accessGroups).count == identity.accessGroups.count, "accessGroups repeats a group: \(identity.accessGroups) (\(context))")
        try expect(Set(identity.accessGroups) == Set(groups), "accessGroups \(identity.accessGroups) is not the union of the entitlements' groups (\(context))")
        if let team = identity.teamID {
            try expect(GroupIdentifierRules.isTeamID(Substring(team)), "accepted the team id \(team.debugDescription) (\(context))")
        }
        if let teamID {
            try expect(identity.teamID == teamID, "the explicit team id \(teamID) became \(identity.teamID ?? "nil")")
        }
        if let bundleID {
            try expect(identity.bundleID == bundleID, "the explicit bundle id \(bundleID) became \(identity.bundleID ?? "nil")")
        }
        if let applicationIdentifier = identity.applicationIdentifier {
            try expect(applicationIdentifier.teamID != nil, "the application identifier \(applicationIdentifier) has no team prefix (\(context))")
        }
        return .accepted
    }
}
