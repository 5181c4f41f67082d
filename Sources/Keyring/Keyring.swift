#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A file-backed keychain for one process identity: items in access groups, per-group keysets,
/// and group containers, with Apple's semantics.
///
/// ```swift
/// let keyring = try Keyring.fromEnvironment()
/// try keyring.add(KeychainItem(service: "api", account: "me", secret: Data(token.utf8)))
/// let token = try keyring.item(matching: ItemQuery(service: "api", account: "me")).secret
/// ```
///
/// A `Keyring` is a value: cheap to copy and safe to share between tasks. Every operation reads
/// the files anew and writes under a cross-process lock, so any number of processes using the
/// same home see one consistent keychain.
public struct Keyring: Sendable {
    /// Who is asking: decides which access groups and containers are reachable.
    public let identity: Identity
    /// Where everything is stored.
    public let home: KeyringHome

    /// A keyring for `identity` over the storage at `home`.
    public init(identity: Identity, home: KeyringHome) {
        self.identity = identity
        self.home = home
    }
}
