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
/// Every level is reached by descriptor: the container is opened once, `GroupVault` is created
/// or opened `O_NOFOLLOW` relative to it, and `records` and `locks` relative to `GroupVault`
/// (``DirectoryHandle/subdirectory(_:creating:)``), each vetted through its own descriptor.
///
/// The one exception to "opened once": a directory that was *removed* (no name links to it any
/// more, so nothing written there could ever be read) is recreated relative to the held
/// directory above it, with the same vetting, so a vault survives `rm -r GroupVault/records`
/// as it did when it addressed files by path. Recreating never looks a path up: a container
/// swapped for a symbolic link in the meantime is not followed (`VaultDirectorySwapTests`).
package final class VaultDirectories: Sendable {
    private let handles: Locked<Handles>

    private struct Handles: Sendable {
        /// The group container, held for recreating `GroupVault` if it is removed.
        let container: DirectoryHandle
        var vault: DirectoryHandle
        var records: DirectoryHandle
        var locks: DirectoryHandle
    }

    /// Creates (if missing) and vets the vault directory `name` in the held `container` and
    /// its `records` and `locks`, and opens all three, relative to `container`.
    package init(container: DirectoryHandle, name: String = "GroupVault") throws(StorageError) {
        let vault = try container.subdirectory(creating: name)
        handles = Locked(Handles(
            container: container, vault: vault,
            records: try vault.subdirectory(creating: "records"), locks: try vault.subdirectory(creating: "locks")))
    }

    /// The records directory as held now, without checking it: what ``findInRecords(_:)``
    /// looks in first.
    package var heldRecords: DirectoryHandle {
        handles.withLock { $0.records }
    }

    /// The records directory.
    package func records() throws(StorageError) -> DirectoryHandle {
        try current(\.records, name: "records")
    }

    /// What `body` finds in the records directory, looked up without the `fstat` that
    /// ``records()`` makes first: a read's hot path. Only when `body` finds nothing (`nil`) is
    /// the directory checked, and, if it was removed, `body` runs again in the recreated one.
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
        try current(\.locks, name: "locks")
    }

    /// The held directory `which`, or, when it was removed, `name` recreated relative to the
    /// held vault directory (itself recreated relative to the container if it was removed too).
    private func current(_ which: WritableKeyPath<Handles, DirectoryHandle>, name: String) throws(StorageError) -> DirectoryHandle {
        let (handle, vault, container) = handles.withLock { ($0[keyPath: which], $0.vault, $0.container) }
        guard Self.isRemoved(handle) else { return handle }
        var parent = vault
        if Self.isRemoved(vault) {
            parent = try container.subdirectory(creating: vault.path.lastComponent?.string ?? "GroupVault")
            handles.withLock { $0.vault = parent }
        }
        let reopened = try parent.subdirectory(creating: name)
        handles.withLock { $0[keyPath: which] = reopened }
        return reopened
    }

    /// Whether the directory behind `handle` was removed: it has no links left.
    private static func isRemoved(_ handle: DirectoryHandle) -> Bool {
        guard let status = try? Syscall.status(handle.descriptor) else { return false }
        return status.linkCount == 0
    }
}
