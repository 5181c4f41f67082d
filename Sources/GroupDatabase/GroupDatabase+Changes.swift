import SealedStorage

extension GroupDatabase {
    /// A commit to the database by some process of the group: "re-read what you show".
    public struct Change: Sendable, Hashable {
        /// True when notifications were lost (the kernel queue overflowed): several commits,
        /// or none, may be behind this one.
        public var isOverflow: Bool

        /// A change.
        public init(isOverflow: Bool = false) { self.isOverflow = isOverflow }
    }

    /// Commits made through GroupDatabase by any process of the group, this one included, as
    /// they happen: inotify on the database directory, for the signal file each commit touches
    /// (`CommitSignal`). Nothing polls.
    ///
    /// ```swift
    /// for await _ in try database.changes() {
    ///     let notes = try database.pool.read { db in try Note.fetchAll(db) }
    /// }
    /// ```
    ///
    /// The watch is in place when this returns. Each commit is at least one change, delivered
    /// after the commit is visible to readers; several commits may be delivered as fewer
    /// changes, never a last commit without a change after it. Ending the consuming task, or
    /// dropping the stream, stops the watch.
    /// - Throws: ``GroupDatabaseError/Code/storage`` when the directory cannot be watched.
    public func changes() throws(GroupDatabaseError) -> AsyncStream<Change> {
        let signalName = signal.path.lastComponent?.string
        do {
            try SafeDirectory.check(directory, sharing: sharing)
            return try DirectoryWatcher(directory: directory).events { event in
                switch event.kind {
                case .overflow: return Change(isOverflow: true)
                case .written: return event.name == signalName ? Change() : nil
                case .removed: return nil
                }
            }
        } catch {
            throw GroupDatabaseError(.storage, "could not watch database \"\(name)\" of \(group) for changes: \(error)", cause: error)
        }
    }
}
