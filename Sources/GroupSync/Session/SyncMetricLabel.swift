/// The labels of the metrics a sync session records through its keyring's metrics factory
/// (`Keyring.metricsFactory`); docs/ARCHITECTURE.md, "Diagnostics", lists every metric.
public enum SyncMetricLabel {
    /// Counter: connections to the sync server that failed or were lost, each followed by a
    /// reconnect after the backoff. Stopping the store is not counted.
    public static let reconnects = "groupvault_sync_reconnects_total"
    /// Counter: catch-ups run (each reads the server's changes after the machine's cursor, in
    /// one query or more): at the first round of every connection, after every notification
    /// that brings something this machine does not hold, and whenever a push was overtaken.
    /// A machine's own writes echoed back by their notifications cost none.
    public static let catchUps = "groupvault_sync_catch_ups_total"
    /// Counter: the queries catch-ups sent, one per page read (a catch-up's pages double in
    /// rows, so a first sync of 10,000 small values reads 5).
    public static let catchUpPages = "groupvault_sync_catch_up_pages_total"
    /// Counter: snapshots of a space this machine wrote to the server (docs/SYNC.md, section 6,
    /// "Snapshots"): after a round, once half the space's entries (at least 64) changed since
    /// the newest snapshot.
    public static let snapshotsWritten = "groupvault_sync_snapshots_written_total"
    /// Counter: snapshots a machine that had read nothing of a space took as its state, reading
    /// only the rows after them.
    public static let snapshotsRead = "groupvault_sync_snapshots_read_total"
    /// Counter: verifications of the server a running session made on its schedule
    /// (``SyncConfiguration/verificationInterval``), clean or not.
    public static let verifications = "groupvault_sync_verifications_total"
    /// Counter: what those verifications found: rows missing, older, differing or unread
    /// (``SyncVerification``), each also logged at `.info`. Above zero, the server lost or
    /// changed rows of this machine's store.
    public static let verificationFindings = "groupvault_sync_verification_findings_total"
}
