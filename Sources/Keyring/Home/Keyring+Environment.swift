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
    /// - Throws: ``KeyringError`` with ``KeyringStatus/invalidParameter`` when the identity
    ///   variables or `GROUPVAULT_SHARING` are malformed.
    public static func fromEnvironment(_ environment: [String: String] = ProcessInfo.processInfo.environment) throws(KeyringError) -> Keyring {
        Keyring(identity: try Identity.fromEnvironment(environment), home: try KeyringHome.fromEnvironment(environment))
    }
}
