#if !canImport(Darwin)
import Foundation
import Keyring

extension FileManager {
    /// The shared container of an application group, with iOS semantics, for the process
    /// keyring's identity (see `ProcessKeyring` in the Keyring module).
    ///
    /// ```swift
    /// guard let container = FileManager.default
    ///     .containerURL(forSecurityApplicationGroupIdentifier: "group.com.example.shared")
    /// else { return }  // not entitled
    /// try data.write(to: container.appendingPathComponent("state.sealed"), options: .atomic)
    /// ```
    ///
    /// - Returns: The container directory, created on first use together with `Library/Caches`
    ///   (it exists whenever a URL is returned); `nil` when the process is not entitled to the
    ///   group, the identifier is malformed, or no identity or storage is available. The reason
    ///   for a `nil` is in `ProcessKeyring.lastError`.
    public func containerURL(forSecurityApplicationGroupIdentifier groupIdentifier: String) -> URL? {
        let operation = "containerURL(forSecurityApplicationGroupIdentifier:)"
        do {
            let group = try GroupIdentifier(validating: groupIdentifier)
            let keyring = try ProcessKeyring.current()
            guard let url = try keyring.containerURL(for: group) else {
                // iOS answers an unentitled group with nil; the reason helps find the usual
                // mistake (a keychain access group where an application group belongs).
                ProcessKeyring.record(keyring.identity.missingContainerEntitlement(for: group, operation: operation))
                return nil
            }
            return url
        } catch {
            ProcessKeyring.record(KeyringError(error.status, "\(operation): \(error.reason)", underlyingError: error, remedy: error.remedy))
            return nil
        }
    }
}
#endif
