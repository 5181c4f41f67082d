import ArgumentParser
import Foundation
import Keyring
import Logging

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

    @Flag(help: "Print GroupVault's diagnostics (refusals, lock waits, lost change events) on standard error: the same as --log-level debug.")
    var verbose = false

    @Option(name: .customLong("log-level"), help: "Print GroupVault's diagnostics at this level and above on standard error.")
    var logLevel: DiagnosticsLevel?

    /// Each environment variable and the option that overrides it, so an error names what the
    /// user actually set.
    private var overrides: [(variable: String, flag: String, value: String?)] {
        [
            ("GROUPVAULT_HOME", "--home", home),
            ("GROUPVAULT_ENTITLEMENTS", "--entitlements", entitlements),
            ("GROUPVAULT_TEAM_ID", "--team-id", teamID),
            ("GROUPVAULT_BUNDLE_ID", "--bundle-id", bundleID),
        ]
    }

    /// The environment with the options applied.
    var environment: [String: String] {
        var environment = ProcessInfo.processInfo.environment
        for override in overrides {
            if let value = override.value { environment[override.variable] = value }
        }
        return environment
    }

    /// The keyring for this identity and home.
    ///
    /// - Throws: ``CLIError`` with ``ExitStatus/notConfigured`` when no identity is configured at
    ///   all (an anonymous identity reaches nothing, so every command would fail later and less
    ///   clearly), or when the identity's settings are malformed; the message names the flag or
    ///   variable the user set.
    func keyring() throws -> Keyring {
        let environment = environment
        guard Keyring.identityVariables.contains(where: { !(environment[$0] ?? "").isEmpty }) else {
            throw CLIError(.notConfigured, """
                no identity configured: pass --entitlements FILE --team-id TEAMID --bundle-id BUNDLE.ID, \
                or set GROUPVAULT_ENTITLEMENTS, GROUPVAULT_TEAM_ID and GROUPVAULT_BUNDLE_ID
                """, remedy: "vaultcli --entitlements FILE --team-id TEAMID --bundle-id BUNDLE.ID <command>")
        }
        var keyring: Keyring
        do {
            keyring = try Keyring.fromEnvironment(environment)
        } catch {
            throw CLIError(.notConfigured, namingFlags(in: RemedyCommand.sentence(error.reason, remedy: error.nearestRemedy)))
        }
        // Silent unless asked: every vault, suite and channel opened on this keyring logs here.
        if let level = logLevel?.level ?? (verbose ? .debug : nil) {
            keyring.logger = Logger(label: "vaultcli") { _ in DiagnosticsLogHandler(logLevel: level) }
        }
        return keyring
    }

    /// The home alone (no identity needed).
    func keyringHome() throws -> KeyringHome {
        do {
            return try KeyringHome.fromEnvironment(environment)
        } catch {
            throw CLIError(.notConfigured, namingFlags(in: RemedyCommand.sentence(error.reason, remedy: error.nearestRemedy)))
        }
    }

    /// `reason` with each environment variable the user overrode by an option replaced by that
    /// option (`GROUPVAULT_ENTITLEMENTS` becomes `--entitlements`).
    private func namingFlags(in reason: String) -> String {
        var text = reason
        for override in overrides where override.value != nil {
            text = text.replacingOccurrences(of: "\(override.variable)=", with: "\(override.flag) ")
            text = text.replacingOccurrences(of: override.variable, with: override.flag)
        }
        return text
    }
}

/// Parses a group identifier given with `flag`, with the library's validation message.
func parseGroup(_ text: String, flag: String = "--group") throws -> GroupIdentifier {
    do {
        return try GroupIdentifier(validating: text)
    } catch {
        throw CLIError.usage("\(flag): \(Terminal.escaped(error.reason))")
    }
}
