/// When a member writes the space's snapshot (docs/SYNC.md, section 6, "Snapshots").
///
/// Once the entries changed since the newest snapshot (the rows a fresh machine would read
/// after it) reach half the space's entry count, and at least ``minimumChanges``. A snapshot is
/// about the size of the space's rows, so writing one per half the space's entries changed
/// costs its writers about two entries' bytes more per change, however large the space. And a
/// fresh machine reads fewer rows after the snapshot than the snapshot holds entries: had as
/// many changed, one would have been due. Not the whole entry count: in a space that grows,
/// each change adds an entry, so as many changed entries as entries never come once a snapshot
/// exists, and the rows after the first snapshot would pile up. Entries, not change numbers:
/// the server's change counter is shared by every space, so a small space on a busy server
/// would be written again at every round.
enum SnapshotSchedule {
    /// No snapshot for fewer changed entries than this: reading so few rows costs a fresh
    /// machine less than the snapshot costs its writer.
    static let minimumChanges = 64

    /// Whether a snapshot is due when `changedEntries` of the space's `entries` changed since
    /// the newest one (all of them when there is none).
    static func isDue(changedEntries: Int, entries: Int) -> Bool {
        changedEntries >= max(minimumChanges, entries / 2)
    }
}
