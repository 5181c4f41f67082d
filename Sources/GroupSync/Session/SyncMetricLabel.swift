/// The labels of the metrics a sync session records through its keyring's metrics factory
/// (`Keyring.metricsFactory`); docs/ARCHITECTURE.md, "Diagnostics", lists every metric.
public enum SyncMetricLabel {
    /// Counter: connections to the sync server that failed or were lost, each followed by a
    /// reconnect after the backoff. Stopping the store is not counted.
    public static let reconnects = "groupvault_sync_reconnects_total"
}
