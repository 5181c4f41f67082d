import Foundation
import GRDB
import SealedStorage
import SystemPackage

/// The change signal of one database: after each commit of this process, the file
/// `<name>.sqlite-commit` is opened for writing and closed, which inotify reports to every
/// watcher of the directory as a close-after-write (``GroupDatabase/changes()``).
///
/// Why a signal file, not a watch on the `-wal` file: the WAL is written during a transaction
/// (several events per commit, some before the commit is visible), written by checkpoints too,
/// and can be truncated or deleted; and SQLite keeps it open, so it never yields a
/// close-after-write. The signal file is touched only after `COMMIT` returned, so an observer
/// that reads after the signal sees the commit. The cost is one `open`/`close` per commit.
///
/// Only commits through GroupDatabase signal: a write made with the `sqlite3` shell, or through
/// another library, is not announced.
final class CommitSignal: TransactionObserver, Sendable {
    let path: FilePath
    let sharing: FileSharing

    init(path: FilePath, sharing: FileSharing) {
        self.path = path
        self.sharing = sharing
    }

    /// Creates the signal file with the sharing's mode, so a watcher never sees it appear with
    /// a wider one, and vets an existing one.
    func prepare() throws(StorageError) {
        try GroupDatabase.createFile(path, sharing: sharing)
    }

    /// Touches the file: an open for writing and a close, no data.
    func touch() {
        // A failure only costs observers one notification; the commit itself has succeeded and
        // must not be reported as failed.
        // Created again (with at most the sharing's mode) if someone removed it.
        guard let descriptor = try? FileDescriptor.open(
            path, .writeOnly, options: [.create, .noFollow, .closeOnExec],
            permissions: FilePermissions(rawValue: CModeT(sharing.fileMode))) else { return }
        try? descriptor.close()
    }

    // MARK: TransactionObserver

    /// No row-level events: only commits matter.
    func observes(eventsOfKind eventKind: DatabaseEventKind) -> Bool { false }
    func databaseDidChange(with event: DatabaseEvent) {}
    func databaseDidCommit(_ db: Database) { touch() }
    func databaseDidRollback(_ db: Database) {}
}
