import Foundation

extension Keyring {
    /// A keyring for the process identity (``Identity/fromEnvironment(_:)``) over the home the
    /// environment names (``KeyringHome/fromEnvironment(_:)``).
    ///
    /// ```swift
    /// let keyring = try Keyring.fromEnvironment()
    /// ```
    ///
    /// - Throws: ``KeyringError`` with ``KeyringStatus/invalidParameter`` when the identity
    ///   variables are malformed, or when `GROUPVAULT_SHARING` is set to anything but
    ///   `ownerOnly` or `unixGroup` (a typo must not silently fall back to another sharing mode).
    public static func fromEnvironment(_ environment: [String: String] = ProcessInfo.processInfo.environment) throws(KeyringError) -> Keyring {
        if let sharing = environment["GROUPVAULT_SHARING"], !sharing.isEmpty, StorageSharing(rawValue: sharing) == nil {
            throw KeyringError(.invalidParameter, "GROUPVAULT_SHARING is \"\(GroupIdentifier.printable(sharing))\"; use \"ownerOnly\" (the default) or \"unixGroup\"")
        }
        return Keyring(identity: try Identity.fromEnvironment(environment), home: KeyringHome.fromEnvironment(environment))
    }
}
