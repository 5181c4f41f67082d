import Foundation

extension Keyring {
    /// A keyring for the process identity (``Identity/fromEnvironment(_:)``) over the home the
    /// environment names (``KeyringHome/fromEnvironment(_:)``).
    ///
    /// ```swift
    /// let keyring = try Keyring.fromEnvironment()
    /// ```
    public static func fromEnvironment(_ environment: [String: String] = ProcessInfo.processInfo.environment) throws(KeyringError) -> Keyring {
        Keyring(identity: try Identity.fromEnvironment(environment), home: KeyringHome.fromEnvironment(environment))
    }
}
