#include "Floors.h"
#include "io.h"

#include <errno.h>
#include <fcntl.h>
#include <sodium.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int floor_initialize(void) {
    return sodium_init() < 0 ? -1 : 0;
}

void floor_random_key(uint8_t *key) {
    crypto_aead_xchacha20poly1305_ietf_keygen(key);
}

int floor_seal(uint8_t *sealed, const uint8_t *message, size_t length,
               const uint8_t *context, size_t context_length, const uint8_t *key) {
    randombytes_buf(sealed, FLOOR_NONCE_BYTES);
    unsigned long long sealed_length = 0;
    return crypto_aead_xchacha20poly1305_ietf_encrypt(
        sealed + FLOOR_NONCE_BYTES, &sealed_length, message, length,
        context, context_length, NULL, sealed, key);
}

long floor_open(uint8_t *message, const uint8_t *sealed, size_t sealed_length,
                const uint8_t *context, size_t context_length, const uint8_t *key) {
    if (sealed_length < FLOOR_NONCE_BYTES + FLOOR_TAG_BYTES) return -1;
    unsigned long long length = 0;
    if (crypto_aead_xchacha20poly1305_ietf_decrypt(
            message, &length, NULL, sealed + FLOOR_NONCE_BYTES, sealed_length - FLOOR_NONCE_BYTES,
            context, context_length, sealed, key) != 0) {
        return -1;
    }
    return (long)length;
}

long floor_read_open(const char *path, uint8_t *message, size_t capacity,
                     const uint8_t *context, size_t context_length, const uint8_t *key) {
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return -1;
    // fstat sizes the read as a reader that cannot trust the file's length must.
    struct stat status;
    if (fstat(fd, &status) != 0 || status.st_size < FLOOR_NONCE_BYTES + FLOOR_TAG_BYTES ||
        (size_t)status.st_size > capacity + FLOOR_NONCE_BYTES + FLOOR_TAG_BYTES) {
        close(fd);
        return -1;
    }
    size_t size = (size_t)status.st_size;
    uint8_t sealed[size];
    long count = floor_io_read_all(fd, sealed, size);
    close(fd);
    if (count != (long)size) return -1;
    return floor_open(message, sealed, size, context, context_length, key);
}

int floor_write_plain(const char *path, const uint8_t *data, size_t length) {
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (fd < 0) return -1;
    int result = floor_io_write_all(fd, data, length);
    if (close(fd) != 0) result = -1;
    return result;
}

int floor_durable_replace(int directory_fd, const char *temporary, const char *name,
                          const uint8_t *data, size_t length) {
    int fd = openat(directory_fd, temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (fd < 0) return -1;
    if (floor_io_write_all(fd, data, length) != 0 || fsync(fd) != 0) {
        close(fd);
        unlinkat(directory_fd, temporary, 0);
        return -1;
    }
    if (close(fd) != 0 || renameat(directory_fd, temporary, directory_fd, name) != 0) {
        unlinkat(directory_fd, temporary, 0);
        return -1;
    }
    return fsync(directory_fd);
}

int floor_seal_durable_replace(int directory_fd, const char *temporary, const char *name,
                               const uint8_t *message, size_t length,
                               const uint8_t *context, size_t context_length, const uint8_t *key) {
    size_t sealed_length = FLOOR_NONCE_BYTES + length + FLOOR_TAG_BYTES;
    uint8_t sealed[sealed_length];
    if (floor_seal(sealed, message, length, context, context_length, key) != 0) return -1;
    return floor_durable_replace(directory_fd, temporary, name, sealed, sealed_length);
}

int floor_reseal(int directory_fd, const char *temporary, const char *name,
                 const uint8_t *context, size_t context_length,
                 const uint8_t *old_key, const uint8_t *new_key) {
    int fd = openat(directory_fd, name, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return -1;
    struct stat status;
    if (fstat(fd, &status) != 0 || status.st_size < FLOOR_NONCE_BYTES + FLOOR_TAG_BYTES ||
        status.st_size > 1 << 16) {  // the floor's files are 1 KiB; bounds the stack buffers below
        close(fd);
        return -1;
    }
    size_t size = (size_t)status.st_size;
    uint8_t sealed[size];
    long count = floor_io_read_all(fd, sealed, size);
    close(fd);
    if (count != (long)size) return -1;
    uint8_t message[size];
    long length = floor_open(message, sealed, size, context, context_length, old_key);
    if (length < 0) return -1;
    return floor_seal_durable_replace(directory_fd, temporary, name, message, (size_t)length,
                                      context, context_length, new_key);
}

struct floor_database {
    sqlite3 *connection;
    sqlite3_stmt *upsert;
    sqlite3_stmt *delete;
    sqlite3_stmt *select;
};

// Row `index`'s 16-byte primary key: the index and a fixed pattern, like a keyed hash's width.
static void row_key(long index, uint8_t key[16]) {
    memset(key, 0xA5, 16);
    memcpy(key, &index, sizeof(index));
}

static void set_reason(char *reason, size_t capacity, const char *what, sqlite3 *connection) {
    snprintf(reason, capacity, "%s: %s", what, connection ? sqlite3_errmsg(connection) : "out of memory");
}

floor_database *floor_database_create(const char *path, int synchronous_full, long rows,
                                      size_t value_length, char *reason, size_t reason_capacity) {
    floor_database *database = calloc(1, sizeof(*database));
    if (!database) {
        snprintf(reason, reason_capacity, "out of memory");
        return NULL;
    }
    if (sqlite3_open_v2(path, &database->connection,
                        SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_EXCLUSIVE, NULL) != SQLITE_OK) {
        set_reason(reason, reason_capacity, "open", database->connection);
        floor_database_close(database);
        return NULL;
    }
    const char *setup = synchronous_full
        ? "PRAGMA journal_mode=WAL; PRAGMA synchronous=FULL;"
          "CREATE TABLE items(lookup BLOB PRIMARY KEY, value BLOB NOT NULL) WITHOUT ROWID;"
        : "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;"
          "CREATE TABLE items(lookup BLOB PRIMARY KEY, value BLOB NOT NULL) WITHOUT ROWID;";
    if (sqlite3_exec(database->connection, setup, NULL, NULL, NULL) != SQLITE_OK ||
        sqlite3_prepare_v3(database->connection,
                           "INSERT INTO items(lookup, value) VALUES(?1, ?2) "
                           "ON CONFLICT(lookup) DO UPDATE SET value = excluded.value",
                           -1, SQLITE_PREPARE_PERSISTENT, &database->upsert, NULL) != SQLITE_OK ||
        sqlite3_prepare_v3(database->connection, "DELETE FROM items WHERE lookup = ?1",
                           -1, SQLITE_PREPARE_PERSISTENT, &database->delete, NULL) != SQLITE_OK ||
        sqlite3_prepare_v3(database->connection, "SELECT value FROM items WHERE lookup = ?1",
                           -1, SQLITE_PREPARE_PERSISTENT, &database->select, NULL) != SQLITE_OK) {
        set_reason(reason, reason_capacity, "set up", database->connection);
        floor_database_close(database);
        return NULL;
    }
    uint8_t *value = calloc(1, value_length ? value_length : 1);
    if (!value) {
        snprintf(reason, reason_capacity, "out of memory");
        floor_database_close(database);
        return NULL;
    }
    randombytes_buf(value, value_length);
    int failed = sqlite3_exec(database->connection, "BEGIN", NULL, NULL, NULL) != SQLITE_OK;
    for (long index = 0; index < rows && !failed; index++) {
        failed = floor_database_upsert(database, index, value, value_length) != 0;
    }
    free(value);
    if (failed || sqlite3_exec(database->connection, "COMMIT", NULL, NULL, NULL) != SQLITE_OK) {
        set_reason(reason, reason_capacity, "fill", database->connection);
        floor_database_close(database);
        return NULL;
    }
    return database;
}

int floor_database_upsert(floor_database *database, long index, const uint8_t *value, size_t length) {
    uint8_t key[16];
    row_key(index, key);
    sqlite3_bind_blob(database->upsert, 1, key, sizeof(key), SQLITE_STATIC);
    sqlite3_bind_blob(database->upsert, 2, value, (int)length, SQLITE_STATIC);
    int result = sqlite3_step(database->upsert);
    sqlite3_reset(database->upsert);
    return result == SQLITE_DONE ? 0 : -1;
}

int floor_database_delete(floor_database *database, long index) {
    uint8_t key[16];
    row_key(index, key);
    sqlite3_bind_blob(database->delete, 1, key, sizeof(key), SQLITE_STATIC);
    int result = sqlite3_step(database->delete);
    sqlite3_reset(database->delete);
    return result == SQLITE_DONE ? 0 : -1;
}

long floor_database_select(floor_database *database, long index) {
    uint8_t key[16];
    row_key(index, key);
    sqlite3_bind_blob(database->select, 1, key, sizeof(key), SQLITE_STATIC);
    long length = -1;
    if (sqlite3_step(database->select) == SQLITE_ROW) {
        // Touch the value as a reader would before copying it out.
        (void)sqlite3_column_blob(database->select, 0);
        length = sqlite3_column_bytes(database->select, 0);
    }
    sqlite3_reset(database->select);
    return length;
}

const char *floor_database_error(floor_database *database) {
    return sqlite3_errmsg(database->connection);
}

void floor_database_close(floor_database *database) {
    if (!database) return;
    sqlite3_finalize(database->upsert);
    sqlite3_finalize(database->delete);
    sqlite3_finalize(database->select);
    sqlite3_close_v2(database->connection);
    free(database);
}
