import CSQLite
import SealedStorage
import SystemPackage

/// What every SQLite connection GroupVault opens on a file in shared storage goes through
/// before its first statement reads the file: the keyring's store and GroupDatabase (which
/// calls it from GRDB's `prepareDatabase`, hence `package` and a raw connection handle).
///
/// - **The file SQLite opened is the file that was vetted.** SQLite opens by path; the
///   ``DatabaseFile`` was vetted relative to a held directory. ``checkOpenedFile(_:_:path:sharing:)``
///   finds the descriptor SQLite holds and compares its device and inode, so a file or directory
///   swapped in between is refused before a byte of it is read or written.
/// - **Defensive mode** (`SQLITE_DBCONFIG_DEFENSIVE`): no SQL can corrupt the file directly
///   (`PRAGMA writable_schema`, writes to shadow tables, `journal_mode=OFF`).
/// - **Untrusted schema** (`SQLITE_DBCONFIG_TRUSTED_SCHEMA` off, i.e. `trusted_schema=OFF`):
///   SQL functions with side effects and virtual tables are refused inside schema objects
///   (triggers, views, defaults) that come from the file, which anyone who can write it could
///   have planted.
package enum SQLiteDefenses {
    /// The descriptor SQLite's unix VFS holds for `connection`'s main database, or -1 when it
    /// cannot be found (another VFS, an unexpected layout).
    package static func mainFileDescriptor(_ connection: OpaquePointer) -> Int32 {
        groupvault_sqlite_unix_descriptor(connection, 0)
    }

    /// The descriptor of `connection`'s WAL, once SQLite opened it; -1 otherwise.
    package static func walFileDescriptor(_ connection: OpaquePointer) -> Int32 {
        groupvault_sqlite_unix_descriptor(connection, 1)
    }

    /// Refuses `connection` unless the file it has open is `file`, still regular, with one
    /// link, owned and moded as `sharing` allows (``DatabaseFile/checkOpened(descriptor:path:sharing:)``).
    package static func checkOpenedFile(_ connection: OpaquePointer, _ file: DatabaseFile, path: FilePath, sharing: FileSharing) throws(StorageError) {
        try file.checkOpened(descriptor: mainFileDescriptor(connection), path: path, sharing: sharing)
    }

    /// Turns on defensive mode and turns off trust in the file's schema; returns what could not
    /// be set (`nil` when both are in force). Settings are read back: a build of SQLite that
    /// ignored them is reported, not assumed.
    package static func harden(_ connection: OpaquePointer) -> String? {
        if groupvault_sqlite_set_config(connection, SQLITE_DBCONFIG_DEFENSIVE, 1) != 1 {
            return "SQLite refused to enter defensive mode (SQLITE_DBCONFIG_DEFENSIVE)"
        }
        if groupvault_sqlite_set_config(connection, SQLITE_DBCONFIG_TRUSTED_SCHEMA, 0) != 0 {
            return "SQLite refused to stop trusting the database's schema (SQLITE_DBCONFIG_TRUSTED_SCHEMA)"
        }
        return nil
    }
}
