/// The labels of the metrics the channel records through its keyring's metrics factory
/// (`Keyring.metricsFactory`); docs/ARCHITECTURE.md, "Diagnostics", lists every metric.
public enum ChannelMetricLabel {
    /// Counter: established connections a ``GroupChannelClient`` lost while open, each followed
    /// by reconnecting. Closing the client is not counted, nor is an attempt that never
    /// connected (no server yet).
    public static let reconnects = "groupvault_channel_reconnects_total"
}
