/// What a verification found: every row the server holds for a store, read by name whatever
/// its change number, compared with what this machine accepted
/// (``UbiquitousKeyValueStore/verifyWithServer()``, ``SyncedRecords/verifyWithServer()``,
/// `vaultcli sync verify`; docs/SYNC.md, section 6, "Verifying the server").
///
/// A catch-up reads only the rows above this machine's cursor, and a push checks only its own
/// entry, so a row the server dropped, or an older one it put back below every cursor, is
/// otherwise found only when its entry is next written. A verification finds them at once.
public struct SyncVerification: Sendable, Hashable, Codable {
    /// The rows the server listed for the store.
    public var rowsRead = 0
    /// The entries this machine holds an accepted row of, each compared with the server's.
    public var entriesCompared = 0
    /// Entries this machine accepted a row of that the server no longer holds: deleted by
    /// someone who can write the database (GroupSync never deletes a row). Each is counted as a
    /// `notFound` refusal and its accepted row written back.
    public var missing = 0
    /// Rows older than the one this machine accepted for their entry: a restored dump whose
    /// change counter was moved past every cursor. Each is refused as a `rollback` and the
    /// accepted row written over it.
    public var older = 0
    /// Rows at the sequence this machine accepted for their entry, with other bytes: altered
    /// (`authenticationFailed`) or from a history this machine was not shown
    /// (`conflictingContent`). Refused and left on the server: which of the two histories a
    /// group keeps is not one machine's to decide.
    public var differing = 0
    /// Rows at or below this machine's cursor that it never took in, so that no catch-up would
    /// read them: a newer authentic row is taken in now; a row that does not authenticate, or
    /// is sealed with a key this machine lacks, is refused as a catch-up refuses it.
    public var unread = 0
    /// The refusals this verification counted, by the Vault's code; they are also added to
    /// ``SyncStatus/refusals``.
    public var refusals: [String: Int] = [:]
    /// Entries the server needed this machine's accepted row back for (the `missing` and
    /// `older` ones, and any rollback found earlier and not yet healed) that need it no longer
    /// after the verification's last round: written back, or, in a race, overtaken by another
    /// machine's newer write.
    public var restored = 0

    /// Creates an empty verification: nothing read, nothing found.
    public init() {}

    /// Whether the server holds what this machine accepted, entry by entry: nothing missing,
    /// older, differing or unread. Rows written since this machine last caught up are not
    /// findings; the verification reads them first, as a catch-up does.
    public var isClean: Bool { missing == 0 && older == 0 && differing == 0 && unread == 0 }
}
