import SealedStorage
import SystemPackage

/// The records and locks directories of one vault, each opened once, by descriptor, when the
/// vault is opened, and used for every file in it afterwards (issue 11, hole 6).
///
/// Why: a path is looked up again on every use, so a process that vetted `GroupVault/records`
/// and later opened `GroupVault/records/auth-state.gvr` by path would follow a symbolic link
/// swapped in for `records` (or `GroupVault`, or the container) in between. Holding a
/// ``DirectoryHandle`` instead, a swap is not followed: the vault keeps reading and writing the
/// directory it vetted, wherever it was moved, and a vault opened after the swap refuses the
/// link (`O_NOFOLLOW`).
///
/// The one exception: a directory that was *removed* (no name links to it any more, so
/// nothing written there could ever be read) is recreated and opened again by path, with the
/// same vetting, so a vault survives `rm -r GroupVault/records` as it did when it addressed
/// files by path. Reopening cannot follow a link: the open refuses one.
package final class VaultDirectories: Sendable {
    private let recordsPath: FilePath
    private let locksPath: FilePath
    private let vaultPath: FilePath
    private let sharing: FileSharing
    private let handles: Locked<Handles>

    private struct Handles: Sendable {
        var records: DirectoryHandle
        var locks: DirectoryHandle
    }

    /// Creates (if missing) and vets `vaultDirectory` and its `records` and `locks`, and opens both.
    package init(vaultDirectory: FilePath, sharing: FileSharing) throws(StorageError) {
        vaultPath = vaultDirectory
        recordsPath = vaultDirectory.appending("records")
        locksPath = vaultDirectory.appending("locks")
        self.sharing = sharing
        let records = try Self.open(recordsPath, in: vaultDirectory, sharing: sharing)
        let locks = try Self.open(locksPath, in: vaultDirectory, sharing: sharing)
        handles = Locked(Handles(records: records, locks: locks))
    }

    /// The records directory.
    package func records() throws(StorageError) -> DirectoryHandle {
        try current(\.records, path: recordsPath)
    }

    /// What `body` finds in the records directory, looked up without the `fstat` that
    /// ``records()`` makes first: a read's hot path. Only when `body` finds nothing (`nil`) is
    /// the directory checked, and, if it was removed, `body` runs again in the reopened one.
    ///
    /// The same answer as ``records()`` then `body`: a removed directory has no entries, so
    /// finding a file there means it had not been removed when it was looked up; and a
    /// directory moved elsewhere is kept either way.
    package func findInRecords<Found>(_ body: (DirectoryHandle) throws(StorageError) -> Found?) throws(StorageError) -> Found? {
        let held = handles.withLock { $0.records }
        if let found = try body(held) { return found }
        let current = try records()
        return current === held ? nil : try body(current)
    }

    /// The locks directory.
    package func locks() throws(StorageError) -> DirectoryHandle {
        try current(\.locks, path: locksPath)
    }

    private func current(_ which: WritableKeyPath<Handles, DirectoryHandle>, path: FilePath) throws(StorageError) -> DirectoryHandle {
        let handle = handles.withLock { $0[keyPath: which] }
        guard Self.isRemoved(handle) else { return handle }
        let reopened = try Self.open(path, in: vaultPath, sharing: sharing)
        handles.withLock { $0[keyPath: which] = reopened }
        return reopened
    }

    /// Whether the directory behind `handle` was removed: it has no links left.
    private static func isRemoved(_ handle: DirectoryHandle) -> Bool {
        guard let status = try? Syscall.status(handle.descriptor) else { return false }
        return status.linkCount == 0
    }

    private static func open(_ path: FilePath, in vaultDirectory: FilePath, sharing: FileSharing) throws(StorageError) -> DirectoryHandle {
        try SafeDirectory.ensure(vaultDirectory, sharing: sharing)
        try SafeDirectory.ensure(path, sharing: sharing)
        // Opened with O_NOFOLLOW and vetted again through the descriptor: what was checked
        // above by path is only trusted once it is what the descriptor holds.
        return try DirectoryHandle(opening: path, sharing: sharing)
    }
}
