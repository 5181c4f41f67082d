#ifndef GROUPVAULT_BENCH_FLOORS_H
#define GROUPVAULT_BENCH_FLOORS_H
// The floors GroupVault's figures are compared with: the least work, in plain C against
// libsodium and SQLite, that the operation measured cannot avoid. Each function does one
// operation and nothing else, so the Swift harness can time it exactly like the GroupVault call
// beside it. All return 0 (or a length) on success and -1 on failure with errno or a message.

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/// Key, nonce and tag sizes of XChaCha20-Poly1305 (IETF), as libsodium defines them.
#define FLOOR_KEY_BYTES 32
#define FLOOR_NONCE_BYTES 24
#define FLOOR_TAG_BYTES 16

/// Initializes libsodium; call once before anything else. Returns 0 on success.
int floor_initialize(void);

/// Fills `key` with FLOOR_KEY_BYTES random bytes.
void floor_random_key(uint8_t *key);

/// Seals `length` bytes of `message` with a fresh random nonce: writes nonce || ciphertext || tag
/// (FLOOR_NONCE_BYTES + length + FLOOR_TAG_BYTES bytes) to `sealed`. `context` is the
/// additional data, as a record's identity is in GroupVault.
int floor_seal(uint8_t *sealed, const uint8_t *message, size_t length,
               const uint8_t *context, size_t context_length, const uint8_t *key);

/// Authenticates and decrypts what floor_seal wrote. Returns the plaintext length, or -1.
long floor_open(uint8_t *message, const uint8_t *sealed, size_t sealed_length,
                const uint8_t *context, size_t context_length, const uint8_t *key);

/// Reads a whole sealed file (open, fstat, read, close) and opens it into `message` (capacity
/// `capacity`). Returns the plaintext length, or -1.
long floor_read_open(const char *path, uint8_t *message, size_t capacity,
                     const uint8_t *context, size_t context_length, const uint8_t *key);

/// Writes `data` to `path` with no fsync: for setting up files, never a floor.
int floor_write_plain(const char *path, const uint8_t *data, size_t length);

/// The durable replace recipe: write `data` to `temporary` (created exclusively in the
/// directory `directory_fd`), fsync it, rename it over `name`, fsync the directory.
int floor_durable_replace(int directory_fd, const char *temporary, const char *name,
                          const uint8_t *data, size_t length);

/// Seals `message` (random nonce) and replaces `name` durably: a sealed write's floor.
int floor_seal_durable_replace(int directory_fd, const char *temporary, const char *name,
                               const uint8_t *message, size_t length,
                               const uint8_t *context, size_t context_length, const uint8_t *key);

/// Reads and opens `name` with `old_key`, seals the plaintext with `new_key` and replaces the
/// file durably: one record's reseal, at its floor.
int floor_reseal(int directory_fd, const char *temporary, const char *name,
                 const uint8_t *context, size_t context_length,
                 const uint8_t *old_key, const uint8_t *new_key);

/// A SQLite database in WAL mode with one table of `rows` rows (a 16-byte primary key and a
/// value blob), and its prepared statements.
typedef struct floor_database floor_database;

/// Creates the database at `path` (which must not exist) with `synchronous` FULL (1) or
/// NORMAL (0), and `rows` rows of `value_length` bytes inserted in one transaction. On failure
/// returns NULL and writes a reason to `reason` (capacity `reason_capacity`).
floor_database *floor_database_create(const char *path, int synchronous_full, long rows,
                                      size_t value_length, char *reason, size_t reason_capacity);

/// Inserts or replaces row `index` (`INSERT ... ON CONFLICT DO UPDATE`, one autocommit
/// transaction). Returns 0, or -1.
int floor_database_upsert(floor_database *database, long index, const uint8_t *value, size_t length);

/// Deletes row `index` (one autocommit transaction). Returns 0, or -1.
int floor_database_delete(floor_database *database, long index);

/// Looks row `index` up by primary key and copies nothing: returns the value's length, or -1
/// if there is no such row or on error.
long floor_database_select(floor_database *database, long index);

/// The last SQLite error message of `database`.
const char *floor_database_error(floor_database *database);

/// Finalizes the statements and closes the database.
void floor_database_close(floor_database *database);

/// Bytes the channel's sealing adds to a frame body: an 8-byte counter and a 16-byte tag.
#define FLOOR_CHANNEL_OVERHEAD 24

/// Seals `length` bytes of `plaintext` as the channel seals a frame body, into `body`
/// (FLOOR_CHANNEL_OVERHEAD more bytes): counter (8, big endian) | ciphertext | tag, with the
/// nonce 16 zero bytes and the counter, the additional data "GVM1", `direction` ('C' or 'S')
/// and the counter, under the 32-byte `key`.
void floor_channel_seal(uint8_t *body, const uint8_t *plaintext, size_t length,
                        uint64_t counter, char direction, const uint8_t *key);

/// Opens a body floor_channel_seal wrote (`length` bytes) into `plaintext`. Returns 0, or -1
/// unless it authenticates as frame `counter` of `direction`.
int floor_channel_open(uint8_t *plaintext, const uint8_t *body, size_t length,
                       uint64_t counter, char direction, const uint8_t *key);

/// An echo over a Unix domain stream socket (AF_UNIX, SOCK_STREAM) served by a thread: plain
/// (every byte read is written back at once) or sealed (the channel round trip's floor: each
/// frame sealed as the channel seals it, opened whole by the server, sealed again for the
/// way back, opened whole by the client).
typedef struct floor_echo floor_echo;

/// Binds `path` (which must not exist), starts the plain echo thread and connects a client to
/// it. Returns NULL on failure, with errno set. Call floor_initialize() first.
floor_echo *floor_echo_start(const char *path);

/// floor_echo_start for the sealed echo, with a fresh key for each direction.
floor_echo *floor_echo_start_sealed(const char *path);

/// One sealed round trip of a sealed echo: seals `plaintext_length` bytes
/// (XChaCha20-Poly1305, the channel's nonce, additional data and counter), writes the framed
/// body (`plaintext_length` + 24 bytes), reads the server's sealed frame back and opens it.
/// Returns 0, or -1 when anything fails or does not authenticate.
int floor_echo_sealed_round_trip(floor_echo *echo, size_t plaintext_length);

/// One round trip: writes a 4-byte length and `length` bytes (the framing the channel and the
/// SwiftNIO echo use) and reads back as many. Returns 0, or -1.
int floor_echo_round_trip(floor_echo *echo, size_t length);

/// Closes the client, which ends the echo thread, joins it and removes the socket file.
void floor_echo_stop(floor_echo *echo);

/// The kernel keyring peer (keyutils): a keyring of its own, linked into this process's
/// keyring so the kernel discards it when the process exits, or, `shared_with_children`, into
/// the session keyring, which child processes inherit, so that they possess it and may read it
/// (unlinked again by floor_kernel_keyring_destroy). Returns its serial, or -1.
int32_t floor_kernel_keyring_create(const char *name, bool shared_with_children);

/// Adds a "user" key `description` holding `length` bytes to `keyring`. Returns 0, or -1.
int floor_kernel_key_add(int32_t keyring, const char *description, size_t length);

/// Finds the "user" key `description` in `keyring` (keyctl_search) and reads its payload
/// (keyctl_read) into a buffer, touching every byte. Returns the payload's length, or -1.
long floor_kernel_key_read(int32_t keyring, const char *description);

/// Finds the key `description` in `keyring` and unlinks it. Returns 0, or -1.
int floor_kernel_key_remove(int32_t keyring, const char *description);

/// Clears `keyring` and unlinks it from the keyring floor_kernel_keyring_create linked it into.
void floor_kernel_keyring_destroy(int32_t keyring, bool shared_with_children);

/// Where the calling thread and some child processes were allowed to run before
/// floor_place_on_one_cpu, for floor_restore_placement to put back.
typedef struct floor_placement floor_placement;

/// Restricts the calling thread, then each of the `count` processes in `pids`, to the CPU the
/// thread is running on, so that neither side's CPU idles while the other answers. Returns what
/// to restore, or NULL with errno set (nothing changed).
floor_placement *floor_place_on_one_cpu(const pid_t *pids, int count);

/// Gives the thread and the processes back the CPUs they had, and frees `saved`. Returns 0, or
/// -1 if one of them could not be restored (a process that has exited is skipped).
int floor_restore_placement(floor_placement *saved);

#endif
