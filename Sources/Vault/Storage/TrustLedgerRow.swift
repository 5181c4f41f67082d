/// One row of a group's trust ledger, exactly as the keyring database holds it: what an
/// outsider needs to check rollback protection by hand (docs/FORMAT.md, "Trust ledger").
///
/// With the home's master secret, recompute ``tag`` from the other fields as docs/FORMAT.md
/// specifies, then check that the record's file has a sequence of at least ``confirmed`` and,
/// when equal, that its blob's BLAKE2b-256 is ``confirmedDigest``. Readers do the same; these
/// rows let someone who does not trust the reader do it.
public struct TrustLedgerRow: Sendable, Equatable {
    /// The record name, as stored (it came from disk: escape it before printing it).
    public let record: String
    /// The highest sequence known to be published; 0 while nothing was confirmed.
    public let confirmed: UInt64
    /// Lowercase hex BLAKE2b-256 of the whole blob that carried ``confirmed``; empty while
    /// ``confirmed`` is 0.
    public let confirmedDigest: String
    /// The sequence a writer announced before publishing it and has not confirmed yet, if any.
    public let pending: UInt64?
    /// The digest announced with ``pending``.
    public let pendingDigest: String?
    /// The stored 32-byte tag: keyed BLAKE2b-256 over the group, the record and every field.
    public let tag: [UInt8]
    /// Whether ``tag`` verifies under the home's master secret. A row that does not is never
    /// used by readers or writers, who report ``VaultError/Code/keyring`` for it.
    public let isAuthentic: Bool

    /// A row with the given fields; the ledger makes these (``Vault/ledgerRows()``), tests may too.
    public init(record: String, confirmed: UInt64, confirmedDigest: String, pending: UInt64?, pendingDigest: String?, tag: [UInt8], isAuthentic: Bool) {
        self.record = record
        self.confirmed = confirmed
        self.confirmedDigest = confirmedDigest
        self.pending = pending
        self.pendingDigest = pendingDigest
        self.tag = tag
        self.isAuthentic = isAuthentic
    }
}
