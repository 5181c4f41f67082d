// SQLCipherChild serve DATABASE HEXKEY
// SQLCipherChild cold DATABASE HEXKEY SERVICE ACCOUNT
// SQLCipherChild puts DATABASE HEXKEY COUNT new|same
//
// The SQLCipher peer: what a Linux user sharing secrets between processes would otherwise
// write, an encrypted SQLite database (Debian's libsqlcipher) holding one table of items keyed by
// service and account. A process of its own because libsqlcipher exports the same sqlite3_*
// symbols as libsqlite3, which the benchmark and GroupVault link.
//
// `serve` opens (creating) the database with a raw 256-bit key (no passphrase derivation, as
// GroupVault's keys are random too), WAL, synchronous=FULL, then answers one command per line on
// standard input with one line on standard output: the nanoseconds the command took, timed here
// so the pipe stays out of the figure, or "error <reason>".
//
//   put SERVICE ACCOUNT BYTES   upsert one row with a BYTES-byte secret (its own transaction
//                               unless inside begin/commit: one WAL commit, fsynced)
//   get SERVICE ACCOUNT         point select of the row's secret, every byte touched
//   del SERVICE ACCOUNT         delete the row
//   begin / commit              a transaction around many puts (filling the table)
//   reopen                      close, then the keyed open: open, PRAGMA key, the pragmas, the
//                               prepared statements and the first page read that checks the key
//   scan ROWS                   every row's secret read, every byte touched (each page decrypted
//                               and its HMAC checked unless SQLCipher's page cache holds it);
//                               an error unless there are ROWS rows
//   rekey HEXKEY                PRAGMA rekey: every page encrypted again under the new raw key,
//                               in one transaction; a later reopen uses the new key
//
// `cold` is the cold process: keyed open, one point select, exit 0 if the row was there.
//
// `puts` is the durable write alone, for the system-call counts (run under strace): keyed open,
// COUNT upserts of a 1 KiB secret, each its own fsynced WAL commit, into new rows (`new`, as an
// item add) or one row (`same`, as a record rewritten), then close. No pipe, no timing.
#include <sqlcipher/sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <signal.h>
#include <time.h>

static sqlite3 *database;
static sqlite3_stmt *put_statement, *get_statement, *del_statement;
static unsigned char secret[65536];

static long long now_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (long long)t.tv_sec * 1000000000LL + t.tv_nsec;
}

static int exec(const char *sql) {
    char *message = NULL;
    if (sqlite3_exec(database, sql, NULL, NULL, &message) != SQLITE_OK) {
        fprintf(stderr, "SQLCipherChild: %s: %s\n", sql, message ? message : "?");
        sqlite3_free(message);
        return -1;
    }
    return 0;
}

// Opens `path` with the raw key `hex` (64 hex digits) and reads the schema, which makes
// SQLCipher derive nothing (a raw key) but decrypt and authenticate the first page.
static int keyed_open(const char *path, const char *hex, int prepare_writes) {
    if (sqlite3_open_v2(path, &database, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, NULL) != SQLITE_OK) return -1;
    char pragma[128];
    snprintf(pragma, sizeof pragma, "PRAGMA key = \"x'%s'\"", hex);
    if (exec(pragma) != 0) return -1;
    if (exec("PRAGMA journal_mode = WAL") != 0 || exec("PRAGMA synchronous = FULL") != 0) return -1;
    if (exec("CREATE TABLE IF NOT EXISTS items(service TEXT NOT NULL, account TEXT NOT NULL, "
             "secret BLOB NOT NULL, PRIMARY KEY(service, account))") != 0) return -1;
    if (sqlite3_prepare_v2(database, "SELECT secret FROM items WHERE service = ?1 AND account = ?2", -1, &get_statement, NULL) != SQLITE_OK) return -1;
    if (!prepare_writes) return 0;
    // INSERT OR REPLACE: Debian's SQLCipher 3.4 is built on SQLite 3.15, older than UPSERT.
    if (sqlite3_prepare_v2(database, "INSERT OR REPLACE INTO items(service, account, secret) VALUES (?1, ?2, ?3)",
                           -1, &put_statement, NULL) != SQLITE_OK) return -1;
    if (sqlite3_prepare_v2(database, "DELETE FROM items WHERE service = ?1 AND account = ?2", -1, &del_statement, NULL) != SQLITE_OK) return -1;
    return 0;
}

static void keyed_close(void) {
    sqlite3_finalize(put_statement);
    sqlite3_finalize(get_statement);
    sqlite3_finalize(del_statement);
    put_statement = get_statement = del_statement = NULL;
    sqlite3_close(database);
    database = NULL;
}

// Runs `statement` bound to service and account (and a secret when `bytes` > 0) to its end.
// For a select, returns the secret's length after touching every byte; -1 on error or no row.
static long step(sqlite3_stmt *statement, const char *service, const char *account, long bytes) {
    sqlite3_reset(statement);
    sqlite3_bind_text(statement, 1, service, -1, SQLITE_STATIC);
    sqlite3_bind_text(statement, 2, account, -1, SQLITE_STATIC);
    if (bytes > 0) sqlite3_bind_blob(statement, 3, secret, (int)bytes, SQLITE_STATIC);
    int code = sqlite3_step(statement);
    if (code == SQLITE_ROW) {
        const unsigned char *value = sqlite3_column_blob(statement, 0);
        long length = sqlite3_column_bytes(statement, 0);
        volatile unsigned sum = 0;
        for (long i = 0; i < length; i++) sum += value[i];
        sqlite3_reset(statement);
        return length;
    }
    sqlite3_reset(statement);
    return code == SQLITE_DONE && statement != get_statement ? 0 : -1;
}

// Reads every row's secret, touching every byte; returns the number of rows, -1 on error.
static long scan(void) {
    sqlite3_stmt *statement;
    if (sqlite3_prepare_v2(database, "SELECT secret FROM items", -1, &statement, NULL) != SQLITE_OK) return -1;
    long rows = 0;
    volatile unsigned sum = 0;
    int code;
    while ((code = sqlite3_step(statement)) == SQLITE_ROW) {
        const unsigned char *value = sqlite3_column_blob(statement, 0);
        long length = sqlite3_column_bytes(statement, 0);
        for (long i = 0; i < length; i++) sum += value[i];
        rows++;
    }
    sqlite3_finalize(statement);
    return code == SQLITE_DONE ? rows : -1;
}

static int serve(const char *path, const char *initial_hex) {
    // The key a reopen uses: the one given, until a rekey replaces it.
    char hex[65];
    snprintf(hex, sizeof hex, "%s", initial_hex);
    if (keyed_open(path, hex, 1) != 0) {
        fprintf(stderr, "SQLCipherChild: cannot open %s: %s\n", path, database ? sqlite3_errmsg(database) : "?");
        return 1;
    }
    printf("ready\n");
    fflush(stdout);
    char line[1024], command[16], service[256], account[256];
    long bytes = 0;
    while (fgets(line, sizeof line, stdin)) {
        int fields = sscanf(line, "%15s %255s %255s %ld", command, service, account, &bytes);
        long long start = now_ns();
        long result;
        if (fields == 4 && strcmp(command, "put") == 0 && bytes > 0 && bytes <= (long)sizeof secret) {
            result = step(put_statement, service, account, bytes);
        } else if (fields == 3 && strcmp(command, "get") == 0) {
            result = step(get_statement, service, account, 0);
        } else if (fields == 3 && strcmp(command, "del") == 0) {
            result = step(del_statement, service, account, 0);
        } else if (fields == 1 && strcmp(command, "begin") == 0) {
            result = exec("BEGIN");
        } else if (fields == 1 && strcmp(command, "commit") == 0) {
            result = exec("COMMIT");
        } else if (fields == 2 && strcmp(command, "scan") == 0) {
            long rows = scan();
            if (rows >= 0 && rows != atol(service)) {
                printf("error scan: %ld rows, not %s\n", rows, service);
                fflush(stdout);
                continue;
            }
            result = rows;
        } else if (fields == 2 && strcmp(command, "rekey") == 0 && strlen(service) == 64) {
            char pragma[128];
            snprintf(pragma, sizeof pragma, "PRAGMA rekey = \"x'%s'\"", service);
            result = exec(pragma);
            if (result == 0) snprintf(hex, sizeof hex, "%s", service);
        } else if (fields == 1 && strcmp(command, "reopen") == 0) {
            keyed_close();
            start = now_ns();
            result = keyed_open(path, hex, 1);
        } else {
            printf("error unknown command: %s", line);
            fflush(stdout);
            continue;
        }
        long long elapsed = now_ns() - start;
        if (result < 0) printf("error %s: %s\n", command, database ? sqlite3_errmsg(database) : "not open");
        else printf("%lld\n", elapsed);
        fflush(stdout);
    }
    keyed_close();
    return 0;
}

static int put_many(const char *path, const char *hex, long count, const char *rows) {
    int same = strcmp(rows, "same") == 0;
    if (count <= 0 || (!same && strcmp(rows, "new") != 0)) {
        fprintf(stderr, "SQLCipherChild: puts needs a positive COUNT and new or same\n");
        return 2;
    }
    if (keyed_open(path, hex, 1) != 0) {
        fprintf(stderr, "SQLCipherChild: cannot open %s: %s\n", path, database ? sqlite3_errmsg(database) : "?");
        return 1;
    }
    char account[32];
    for (long i = 0; i < count; i++) {
        snprintf(account, sizeof account, "account-%ld", same ? 0L : i);
        if (step(put_statement, "bench", account, 1024) < 0) {
            fprintf(stderr, "SQLCipherChild: put: %s\n", sqlite3_errmsg(database));
            return 1;
        }
    }
    keyed_close();
    return 0;
}

int main(int argc, char **argv) {
    // Never outlive the benchmark that started it.
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    for (size_t i = 0; i < sizeof secret; i++) secret[i] = (unsigned char)(i * 31);
    if (argc == 4 && strcmp(argv[1], "serve") == 0) return serve(argv[2], argv[3]);
    if (argc == 6 && strcmp(argv[1], "cold") == 0) {
        if (keyed_open(argv[2], argv[3], 0) != 0) return 1;
        long length = step(get_statement, argv[4], argv[5], 0);
        keyed_close();
        return length > 0 ? 0 : 1;
    }
    if (argc == 6 && strcmp(argv[1], "puts") == 0) return put_many(argv[2], argv[3], atol(argv[4]), argv[5]);
    fprintf(stderr, "usage: SQLCipherChild serve DATABASE HEXKEY | cold DATABASE HEXKEY SERVICE ACCOUNT"
                    " | puts DATABASE HEXKEY COUNT new|same\n");
    return 2;
}
