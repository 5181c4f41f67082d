#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension Keyring {
    /// A keyring for the process identity (``Identity/fromEnvironment(_:)``) over the home the
    /// environment names (``KeyringHome/fromEnvironment(_:)``).
    ///
    /// ```swift
    /// let keyring = try Keyring.fromEnvironment()
    /// ```
    ///
    /// - Throws: ``KeyringError`` with ``KeyringStatus/missingEntitlement`` when no identity
    ///   is configured at all (none of `GROUPVAULT_ENTITLEMENTS`, `GROUPVAULT_TEAM_ID`,
    ///   `GROUPVAULT_BUNDLE_ID` is set): such a process reaches no group and no item, so it
    ///   fails here, with how to configure one, rather than later at its first `add` or `Vault`;
    ///   ``KeyringStatus/invalidParameter`` when the identity variables or
    ///   `GROUPVAULT_SHARING` are malformed.
    public static func fromEnvironment(_ environment: [String: String] = ProcessInfo.processInfo.environment) throws(KeyringError) -> Keyring {
        guard identityVariables.contains(where: { !(environment[$0] ?? "").isEmpty }) else {
            throw KeyringError(.missingEntitlement, """
                no identity configured: set GROUPVAULT_ENTITLEMENTS to the process's .entitlements file \
                (and GROUPVAULT_TEAM_ID and GROUPVAULT_BUNDLE_ID), or build the keyring with \
                Keyring(identity:home:) from an Identity
                """)
        }
        return Keyring(identity: try Identity.fromEnvironment(environment), home: try KeyringHome.fromEnvironment(environment))
    }

    /// The variables that configure the process identity; with none of them set there is none.
    public static let identityVariables = ["GROUPVAULT_ENTITLEMENTS", "GROUPVAULT_TEAM_ID", "GROUPVAULT_BUNDLE_ID"]
}
