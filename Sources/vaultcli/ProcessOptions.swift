import ArgumentParser
import Foundation
import Keyring

/// The identity and home every subcommand acts as: the environment, overridden by options.
struct ProcessOptions: ParsableArguments {
    @Option(help: "The keyring home (default: GROUPVAULT_HOME, else $XDG_DATA_HOME/groupvault).")
    var home: String?

    @Option(help: "An Xcode .entitlements file (default: GROUPVAULT_ENTITLEMENTS).")
    var entitlements: String?

    @Option(name: .customLong("team-id"), help: "The 10-character team id (default: GROUPVAULT_TEAM_ID).")
    var teamID: String?

    @Option(name: .customLong("bundle-id"), help: "The bundle id (default: GROUPVAULT_BUNDLE_ID).")
    var bundleID: String?

    /// The environment with the options applied.
    var environment: [String: String] {
        var environment = ProcessInfo.processInfo.environment
        if let home { environment["GROUPVAULT_HOME"] = home }
        if let entitlements { environment["GROUPVAULT_ENTITLEMENTS"] = entitlements }
        if let teamID { environment["GROUPVAULT_TEAM_ID"] = teamID }
        if let bundleID { environment["GROUPVAULT_BUNDLE_ID"] = bundleID }
        return environment
    }

    /// The keyring for this identity and home.
    func keyring() throws -> Keyring {
        try Keyring.fromEnvironment(environment)
    }

    /// The home alone (no identity needed).
    func keyringHome() throws -> KeyringHome {
        try KeyringHome.fromEnvironment(environment)
    }
}

/// Parses a group identifier argument with the library's validation message.
func parseGroup(_ text: String) throws -> GroupIdentifier {
    do {
        return try GroupIdentifier(validating: text)
    } catch {
        throw ValidationError(error.reason)
    }
}
