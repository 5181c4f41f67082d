import Logging
import SealedStorage
import SystemPackage

extension Vault {
    /// Changes to one record, or to every record of the group when `name` is `nil`, as they
    /// happen: the replacement of a record file is reported the moment it is renamed into
    /// place, by any process. Nothing polls.
    ///
    /// A change says "re-read", nothing more: read the record to learn what it now holds (and
    /// whether it is still valid). ``VaultChange/Kind/overflow`` means changes were lost:
    /// re-read everything of interest.
    ///
    /// ```swift
    /// // Widget: refresh whenever the app signs in or out.
    /// for await _ in try vault.changes(to: "auth-state") {
    ///     let state = vault.readIfValid(AuthState.self, from: "auth-state") ?? .signedOut
    ///     render(state)
    /// }
    /// ```
    ///
    /// The subscription is in place when this returns, so a write made afterwards is seen; it
    /// works before the first write (the records directory is created if missing). Each write,
    /// deletion (a sealed tombstone) and reseal is one ``VaultChange/Kind/written``; a record
    /// file removed from the directory is ``VaultChange/Kind/removed``. Temporary files of
    /// writes in progress and files that are not records are never reported. Ending the
    /// consuming task, or dropping the stream, stops the watch and releases its descriptor.
    /// If the records directory itself is removed, the stream reports an overflow and ends.
    ///
    /// - Parameter name: the record to watch, or `nil` for all records of the group.
    /// - Throws: ``VaultError/Code/invalidName`` for a name that no record can have;
    ///   ``VaultError/Code/storage`` when the records directory cannot be created or vetted
    ///   (symbolic link, wrong owner or mode) or watched (e.g. the per-user inotify limits).
    public func changes(to name: String? = nil) throws(VaultError) -> AsyncStream<VaultChange> {
        let wanted = try name.map { name throws(VaultError) in try RecordName(validating: name) }
        let records: DirectoryHandle
        do {
            // The held records directory (recreated relative to the held vault directory if it
            // was removed), never the path looked up again: that could have been swapped.
            records = try directories.records()
            try Self.checkNamesTheHeldDirectory(records, recordsDirectory)
        } catch {
            throw VaultError(storage: error, while: "prepare the records directory of \(group) for observation")
        }
        let stream: AsyncStream<VaultChange>
        do {
            let logger = logger
            let group = group
            stream = try DirectoryWatcher(directory: records.path).events { event in
                if event.kind == .overflow {
                    logger.debug("change events were lost (queue overflow, or the directory was removed); observers re-read", metadata: ["group": "\(group)"])
                }
                return Self.change(for: event, wanted: wanted)
            }
        } catch {
            throw VaultError(storage: error, while: "observe the records of \(group)")
        }
        do {
            // inotify takes only a path. Looked up again now the watch is in place: if the path
            // still names the held directory, the watch is on it (a path redirected between the
            // two looks and back is the one window left, and a watch reports, never writes).
            try Self.checkNamesTheHeldDirectory(records, recordsDirectory)
        } catch {
            throw VaultError(storage: error, while: "observe the records of \(group)")
        }
        return stream
    }

    /// Refuses to watch `path` unless it names the held `records` directory: watching a
    /// directory swapped for (or reached through) a symbolic link would report another
    /// directory's files as this group's records.
    private static func checkNamesTheHeldDirectory(_ records: DirectoryHandle, _ path: FilePath) throws(StorageError) {
        guard try records.isNamed(by: path) else {
            throw StorageError(.symbolicLink, operation: "watch directory", path: path,
                               hint: "the path no longer leads to the records directory this vault opened (a directory on the way was moved or replaced by a symbolic link); reopen the vault")
        }
    }

    /// The change a directory event means to an observer of `wanted` (all records if `nil`),
    /// or `nil` when the event is about something else.
    static func change(for event: DirectoryWatcher.Event, wanted: RecordName?) -> VaultChange? {
        let kind: VaultChange.Kind
        switch event.kind {
        case .overflow:
            // Lost events may have been about any record, the wanted one included.
            return VaultChange(name: nil, kind: .overflow)
        case .written: kind = .written
        case .removed: kind = .removed
        }
        guard let fileName = event.name, let record = recordName(ofFile: fileName) else { return nil }
        if let wanted, wanted != record { return nil }
        return VaultChange(name: record.rawValue, kind: kind)
    }

    /// The record a file in the records directory holds: `<valid name>.gvr`. Temporary files
    /// (`.<name>.gvr.tmp-<hex>`) start with a dot, which no record name may.
    static func recordName(ofFile fileName: String) -> RecordName? {
        let suffix = "." + recordFileExtension
        guard fileName.hasSuffix(suffix) else { return nil }
        return try? RecordName(validating: String(fileName.dropLast(suffix.count)))
    }
}
