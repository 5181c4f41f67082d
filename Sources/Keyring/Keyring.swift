#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import CoreMetrics
import Logging

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

    /// Where this keyring, and every store built on it (vaults, shared defaults, channels),
    /// logs what it cannot report through a return value: refusals that a "treat as absent"
    /// call swallows, long lock waits, lost change events, reconnects. Nothing is logged above
    /// `.info`, and never a secret. The default discards everything: the library never
    /// bootstraps logging; give it the application's logger.
    ///
    /// ```swift
    /// var keyring = try Keyring.fromEnvironment()
    /// keyring.logger = Logger(label: "com.example.daemon")
    /// let vault = try Vault(keyring: keyring, group: group)   // logs through it
    /// ```
    public var logger: Logger

    /// Where this keyring and the stores built on it record their metrics (refusals by reason,
    /// write latency, reconnects; docs/ARCHITECTURE.md, "Diagnostics"); `nil`, the default,
    /// uses the process's `MetricsSystem.factory` as bootstrapped when the metric is recorded
    /// (a no-op until the application bootstraps one).
    public var metricsFactory: (any MetricsFactory)?

    /// Whether a search (``item(matching:)``, ``items(matching:limit:includingSecrets:)``) made
    /// again while no row of the keyring database changed returns the items it found then,
    /// without reading and opening the rows again (docs/ARCHITECTURE.md, "A search while
    /// nothing changed returns the items it found"). The items of up to 64 searches (of at most
    /// 16 items; a larger answer is not kept), secrets included, then stay in this process's
    /// memory, as a SQLite database's page cache keeps the pages it read; `false` keeps none,
    /// and finds no kept answer. The entitlement, the home's checks, the lock state and a
    /// user-presence prompt are asked at every search either way.
    public var keepsFoundItems = true

    /// A keyring for `identity` over the storage at `home`, logging through `logger` (by
    /// default, nowhere).
    public init(identity: Identity, home: KeyringHome, logger: Logger = Keyring.silentLogger, metricsFactory: (any MetricsFactory)? = nil) {
        self.identity = identity
        self.home = home
        self.logger = logger
        self.metricsFactory = metricsFactory
    }

    /// A logger that discards everything: the default ``logger``.
    public static var silentLogger: Logger {
        Logger(label: "org.groupvault", factory: { _ in SwiftLogNoOpLogHandler() })
    }

    /// The factory metrics are made with now: ``metricsFactory``, or the bootstrapped one.
    package var currentMetricsFactory: any MetricsFactory {
        metricsFactory ?? MetricsSystem.factory
    }
}
