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
            // inotify watches a path; the watch must be on the directory commits are signalled
            // in, so the path must still name the held directory, before and after the watch is
            // in place: a member may have swapped a directory on the way for a link since.
            try checkPathStillNamesTheDirectory()
            let stream = try DirectoryWatcher(directory: directory.path).events { event in
                switch event.kind {
                case .overflow: return Change(isOverflow: true)
                case .written: return event.name == signalName ? Change() : nil
                case .removed: return nil
                }
            }
            // Dropping the stream on a refusal ends the watch and closes its descriptor.
            try checkPathStillNamesTheDirectory()
            return stream
        } catch let error as GroupDatabaseError {
            throw error
        } catch {
            throw GroupDatabaseError(.storage, "could not watch database \"\(name)\" of \(group) for changes: \(error)", underlyingError: error)
        }
    }

    /// Refuses to watch when the held directory no longer passes its owner and mode check, or
    /// its path no longer names it (a directory on the way was renamed or replaced by a
    /// symbolic link): a watch there would wait for commits that are signalled elsewhere.
    private func checkPathStillNamesTheDirectory() throws(GroupDatabaseError) {
        let leadsThere: Bool
        do {
            leadsThere = try directory.isStillLinked() && directory.isNamed(by: directory.path)
        } catch {
            throw GroupDatabaseError(.storage, "could not watch database \"\(name)\" of \(group) for changes: \(error)", underlyingError: error)
        }
        guard leadsThere else {
            throw GroupDatabaseError(.storage, "could not watch database \"\(name)\" of \(group) for changes: \(directory.path) no longer leads to the directory this database was opened in (it was removed or moved, or a directory on the way was replaced by a symbolic link); it was left alone: open the database again")
        }
    }
}
