import Foundation
import GRDB
import SealedStorage
import SystemPackage

/// The change signal of one database: after each commit of this process, the file
/// `<name>.sqlite-commit` is replaced by a new empty file (renamed into place), which inotify
/// reports to every watcher of the directory (``GroupDatabase/changes()``).
///
/// Why a signal file, not a watch on the `-wal` file: the WAL is written during a transaction
/// (several events per commit, some before the commit is visible), written by checkpoints too,
/// and can be truncated or deleted; and SQLite keeps it open, so it never yields a
/// close-after-write. The signal file is replaced only after `COMMIT` returned, so an observer
/// that reads after the signal sees the commit. The cost is one create, close and rename per
/// commit.
///
/// Only commits through GroupDatabase signal: a write made with the `sqlite3` shell, or through
/// another library, is not announced.
final class CommitSignal: TransactionObserver, Sendable {
    /// The signal file's name in ``directory``.
    let name: String
    /// The database's directory, held open: the signal file is opened relative to it.
    let directory: DirectoryHandle
    /// The signal file's path, for messages and for watchers matching event names.
    var path: FilePath { directory.path.appending(name) }

    init(name: String, in directory: DirectoryHandle) {
        self.name = name
        self.directory = directory
    }

    /// Creates the signal file with the sharing's mode, so a watcher never sees it appear with
    /// a wider one, and vets an existing one: a regular file with one link, owned and moded as
    /// the sharing allows.
    func prepare() throws(StorageError) {
        if try directory.status(of: name) == nil {
            do {
                // The exact mode, whatever the umask.
                Syscall.close(try directory.createFile(name, .writeOnly))
            } catch .fileExists {
                // Another process created it first: vetted below like any other.
            } catch {
                throw StorageError(.system(error), operation: "create", path: path)
            }
        }
        guard try DatabaseFile.vet(name, in: directory) != nil else {
            throw StorageError(.system(.noSuchFileOrDirectory), operation: "check", path: path)
        }
    }

    /// Announces a commit: a new empty file, written under a temporary name and renamed over
    /// the signal file, which inotify reports to every watcher as the signal file's name moved
    /// in (``DirectoryWatcher``'s `.written`).
    ///
    /// Why not open the existing signal file and close it: whatever has that name could be
    /// another name of the database or of its `-shm` file (a member can link or rename one
    /// there), and closing *any* descriptor of those drops every POSIX lock SQLite holds on
    /// them in this process. A file this call created exclusively is one nobody holds a lock on.
    func touch() {
        // A failure only costs observers one notification; the commit itself has succeeded and
        // must not be reported as failed. Not fsynced: the signal carries no data. The layer's
        // calls are made without the Vault write steps' fault points, which a test arms for a
        // Vault write, not for this.
        let temporary = AtomicFile.temporaryPrefix(for: FilePath(name)) + SecureRandom.hex(count: AtomicFile.suffixLength / 2)
        do {
            Syscall.close(try directory.createFile(temporary, .writeOnly))
        } catch {
            return  // nothing was left behind
        }
        do {
            try Syscall.rename(temporary, to: name, in: directory.descriptor)
        } catch {
            try? Syscall.unlink(temporary, in: directory.descriptor)
        }
    }

    // MARK: TransactionObserver

    /// No row-level events: only commits matter.
    func observes(eventsOfKind eventKind: DatabaseEventKind) -> Bool { false }
    func databaseDidChange(with event: DatabaseEvent) {}
    func databaseDidCommit(_ db: Database) { touch() }
    func databaseDidRollback(_ db: Database) {}
}
