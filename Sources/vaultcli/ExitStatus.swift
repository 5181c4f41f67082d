/// The exit statuses of vaultcli, documented in docs/CLI.md ("Exit codes"). Scripts branch on
/// them, so a value never changes meaning once released.
enum ExitStatus: Int32 {
    /// The command did what was asked, and found nothing wrong.
    case ok = 0
    /// The command ran, and reports findings: a record refused by `records verify`, a problem
    /// found by `doctor`.
    case findings = 1
    /// The command line is wrong: unknown flag, malformed value, missing `--reveal`.
    case usage = 2
    /// No identity is configured, or the environment naming it is malformed.
    case notConfigured = 3
    /// What the command names (item, record, key) does not exist.
    case notFound = 4
    /// The keyring or vault refused: missing entitlement, locked device, key still in use,
    /// duplicate item.
    case refused = 5
    /// The operation failed: I/O error, corrupted storage.
    case failed = 6

    /// The status's name in a JSON error (`{"code": "notFound", "status": 4, …}`).
    var name: String {
        switch self {
        case .ok: "ok"
        case .findings: "findings"
        case .usage: "usage"
        case .notConfigured: "notConfigured"
        case .notFound: "notFound"
        case .refused: "refused"
        case .failed: "failed"
        }
    }
}
