#ifndef GROUPVAULT_CSQLITE_SHIM_H
#define GROUPVAULT_CSQLITE_SHIM_H
// The system libsqlite3, imported whole: only the keyring's store (Sources/Keyring/Store) calls it.
#include <sqlite3.h>
#include <string.h>

// SQLITE_TRANSIENT is a macro casting -1 to a function pointer, which Swift cannot import.
// Binding with it makes SQLite copy the bytes before the call returns.
static inline void (*groupvault_sqlite_transient(void))(void *) { return SQLITE_TRANSIENT; }

// sqlite3_db_config is variadic, which Swift cannot call: sets the boolean option `op`
// (SQLITE_DBCONFIG_DEFENSIVE, SQLITE_DBCONFIG_TRUSTED_SCHEMA, ...) to `value` and returns the
// setting now in force (0 or 1), or -1 when SQLite refused the call.
static inline int groupvault_sqlite_set_config(sqlite3 *db, int op, int value) {
    int now = -1;
    if (sqlite3_db_config(db, op, value, &now) != SQLITE_OK) return -1;
    return now;
}

// The file descriptor SQLite's default "unix" VFS holds for the main database of `db`
// (`wal` = 0) or for its WAL (`wal` = 1, once SQLite opened it), or -1.
//
// SQLite has no public call for it. SQLITE_FCNTL_FILE_POINTER gives the sqlite3_file, which
// for the unix VFS is os_unix.c's unixFile: { pMethod, pVfs, pInode, h, ... }. The layout is
// checked before `h` is read: the VFS must be the one named "unix", large enough, and the
// second field must point at that very VFS. A different layout then yields -1, or at worst a
// number that is not a descriptor of the vetted file, which the caller's fstat refuses: this
// can only refuse, never vouch for the wrong file.
static inline int groupvault_sqlite_unix_descriptor(sqlite3 *db, int wal) {
    struct groupvault_unix_file_head {
        const sqlite3_io_methods *pMethod;
        sqlite3_vfs *pVfs;
        void *pInode;
        int h;
    };
    sqlite3_vfs *vfs = NULL;
    sqlite3_file *file = NULL;
    if (sqlite3_file_control(db, "main", SQLITE_FCNTL_VFS_POINTER, &vfs) != SQLITE_OK || vfs == NULL) return -1;
    if (vfs->zName == NULL || strcmp(vfs->zName, "unix") != 0) return -1;
    if (vfs->szOsFile < (int)sizeof(struct groupvault_unix_file_head)) return -1;
    if (sqlite3_file_control(db, "main", wal ? SQLITE_FCNTL_JOURNAL_POINTER : SQLITE_FCNTL_FILE_POINTER, &file) != SQLITE_OK) return -1;
    if (file == NULL || file->pMethods == NULL) return -1;
    const struct groupvault_unix_file_head *head = (const struct groupvault_unix_file_head *)file;
    if (head->pVfs != vfs || head->h < 0) return -1;
    return head->h;
}
#endif
