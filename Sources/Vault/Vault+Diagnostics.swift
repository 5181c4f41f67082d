import CoreMetrics
import Keyring
import Logging

/// The names under which a vault reports to the application's metrics system
/// (`Keyring.metricsFactory`); docs/ARCHITECTURE.md, "Diagnostics", lists every metric.
public enum VaultMetricLabel {
    /// Counter: reads refused, with dimension `reason` (a ``VaultError/Code`` raw value). A
    /// record never written and one deleted by its writer are states, not refusals, and are not
    /// counted.
    public static let refusals = "groupvault_vault_refusals_total"
    /// Timer (nanoseconds): how long a write, delete or reseal of one record took, lock waits
    /// and flushes included, with dimension `durability` (`full` or `atomic`); successful
    /// ones only.
    public static let writeDuration = "groupvault_vault_write_duration"
}

extension Vault {
    /// The logger of this vault's keyring (`Keyring.logger`): what the vault cannot report
    /// through a return value goes there.
    public var logger: Logger { keyring.logger }

    /// A lock wait at least this long is worth a line: the other holder is a process of the
    /// group that is slow or stuck, which the operator of a daemon wants to know about.
    static let noteworthyLockWait: Duration = .seconds(1)

    /// Counts a refusal of record `name` and logs it at `.debug` (the caller receives the
    /// error; ``readIfValid(_:from:onRefusal:)``, which turns it into `nil`, also logs it at
    /// `.info`, since the log is then the only place it shows).
    func report(refusal error: VaultError, of name: String) {
        Counter(label: VaultMetricLabel.refusals, dimensions: [("reason", error.code.rawValue)], factory: keyring.currentMetricsFactory)
            .increment()
        logger.debug("record refused", metadata: metadata(name, ["reason": "\(error.code)", "detail": "\(error.reason)"]))
    }

    /// Logs at `.info` a refusal ``readIfValid(_:from:onRefusal:)`` turns into `nil`: without
    /// a handler, the log is the only place its reason shows.
    func report(swallowedRefusal error: VaultError, of name: String) {
        logger.info("record refused; read as absent", metadata: metadata(name, ["reason": "\(error.code)"]))
    }

    /// Records the duration of a successful write of `name`.
    func report(written name: RecordName, operation: String, after duration: Duration) {
        let (seconds, attoseconds) = duration.components
        let nanoseconds = seconds * 1_000_000_000 + attoseconds / 1_000_000_000
        Timer(label: VaultMetricLabel.writeDuration, dimensions: [("durability", durability == .full ? "full" : "atomic")], factory: keyring.currentMetricsFactory)
            .recordNanoseconds(nanoseconds)
        logger.trace("record written", metadata: metadata(name.rawValue, ["operation": "\(operation)", "nanoseconds": "\(nanoseconds)"]))
    }

    /// Logs a wait for `lock` of at least ``noteworthyLockWait``.
    func report(waited duration: Duration, for lock: String, writing name: RecordName) {
        guard duration >= Self.noteworthyLockWait else { return }
        logger.info(
            "waited for a lock held by another process of the group",
            metadata: metadata(name.rawValue, ["lock": "\(lock)", "seconds": "\(Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18)"]))
    }

    /// Logs that record `name` was read although its expiry has passed, within the clock-skew
    /// allowance (``clockSkewAllowance``).
    func reportReadWithinExpiryAllowance(_ subject: String, expiredMillisecondsAgo: Int64) {
        logger.debug(
            "record read within the clock-skew allowance after its expiry",
            metadata: ["group": "\(group)", "subject": "\(subject)", "expired_ms_ago": "\(expiredMillisecondsAgo)", "allowance_s": "\(clockSkewAllowance)"])
    }

    private func metadata(_ name: String, _ extra: Logger.Metadata) -> Logger.Metadata {
        extra.merging(["group": "\(group)", "record": "\(name)"]) { own, _ in own }
    }
}
