#ifndef GROUPVAULT_CSQLITE_SHIM_H
#define GROUPVAULT_CSQLITE_SHIM_H
// The system libsqlite3, imported whole: only the keyring's store (Sources/Keyring/Store) calls it.
#include <sqlite3.h>
#include <stdint.h>
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

// The header of a WAL database's wal-index (the "-shm" file SQLite maps into every process
// using the database): SQLite 3.7.0's WalIndexHdr, 48 bytes in the machine's byte order,
// kept twice at the start of the index (docs/ARCHITECTURE.md, "An unchanged database is seen
// without a transaction"). Twelve 32-bit words: version, unused, change counter, isInit,
// bigEndCksum and page size (one word), last valid frame, page count, two frame checksums,
// two salts, and the header's own checksum pair.
typedef struct { uint32_t words[12]; } groupvault_wal_index_header;

// Reads the header from `region` (the index's first bytes) the way SQLite's readers do before
// they take any lock (wal.c, walIndexTryHdr): the first copy, a full barrier, the second copy
// (a writer writes the second copy, a barrier, then the first). Returns 1 and fills `header`
// only when both copies agree, the header is initialised, of version 3007000 and its checksum
// is right: what SQLite itself would accept. Anything else, a write in progress included,
// returns 0, and the caller asks SQLite instead. Relaxed atomic loads: the words may change
// under the read, which the comparison of the two copies detects.
static inline int groupvault_wal_index_header_read(const void *region, groupvault_wal_index_header *header) {
    const uint32_t *words = (const uint32_t *)region;
    groupvault_wal_index_header first, second;
    for (int i = 0; i < 12; i++) first.words[i] = __atomic_load_n(&words[i], __ATOMIC_RELAXED);
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
    for (int i = 0; i < 12; i++) second.words[i] = __atomic_load_n(&words[12 + i], __ATOMIC_RELAXED);
    __atomic_thread_fence(__ATOMIC_ACQUIRE);
    if (memcmp(&first, &second, sizeof first) != 0) return 0;
    if (first.words[0] != 3007000) return 0;
    if (((const unsigned char *)&first.words[3])[0] != 1) return 0;  // isInit
    // walChecksumBytes over the first 40 bytes, native order, from zero.
    uint32_t s1 = 0, s2 = 0;
    for (int i = 0; i < 10; i += 2) {
        s1 += first.words[i] + s2;
        s2 += first.words[i + 1] + s1;
    }
    if (s1 != first.words[10] || s2 != first.words[11]) return 0;
    *header = first;
    return 1;
}

// The wal-index header of `db`'s main database, read as groupvault_wal_index_header_read does,
// from the region SQLite already maps for the connection (the VFS's xShmMap of region 0, 32 KiB,
// never extending). Returns 1 with `header` filled, or 0 when it cannot be read so.
//
// Call it only on a connection in WAL mode that has run a read transaction: the unix VFS's
// xShmMap opens the -shm file when the connection has not mapped it yet, and this must never
// be the call that does.
static inline int groupvault_sqlite_wal_index_header(sqlite3 *db, groupvault_wal_index_header *header) {
    sqlite3_file *file = NULL;
    if (sqlite3_file_control(db, "main", SQLITE_FCNTL_FILE_POINTER, &file) != SQLITE_OK) return 0;
    if (file == NULL || file->pMethods == NULL || file->pMethods->iVersion < 2 || file->pMethods->xShmMap == NULL) return 0;
    void volatile *region = NULL;
    if (file->pMethods->xShmMap(file, 0, 32768, 0, &region) != SQLITE_OK || region == NULL) return 0;
    return groupvault_wal_index_header_read((const void *)region, header);
}
#endif
