/// When a member writes the space's snapshot (docs/SYNC.md, section 6, "Snapshots").
///
/// Once the change numbers handed out since the newest snapshot reach half the space's entry
/// count (and at least ``minimumChanges``). A snapshot is about the size of the space's rows,
/// so writing one per half the space's entries in changes costs its writers about two entries'
/// bytes more per change, however large the space. And a fresh machine reads fewer rows after
/// the snapshot than the snapshot holds entries: had as many changed, one would have been due.
/// Not the whole entry count: in a space that grows, as many changes as entries never come
/// once a snapshot exists (each change adds an entry), and the rows after the first snapshot
/// would pile up.
enum SnapshotSchedule {
    /// No snapshot for fewer changes than this: reading so few rows costs a fresh machine less
    /// than the snapshot costs its writer.
    static let minimumChanges: Int64 = 64

    /// Whether a snapshot is due at `cursor` when the newest one is of change `lastSnapshot`
    /// (0: none) and the space holds `entries`.
    static func isDue(cursor: Int64, lastSnapshot: Int64, entries: Int) -> Bool {
        cursor - lastSnapshot >= max(minimumChanges, Int64(entries / 2))
    }
}
