#ifndef GROUPVAULT_CSQLITE_SHIM_H
#define GROUPVAULT_CSQLITE_SHIM_H
// The system libsqlite3, imported whole: only the keyring's store (Sources/Keyring/Store) calls it.
#include <sqlite3.h>

// SQLITE_TRANSIENT is a macro casting -1 to a function pointer, which Swift cannot import.
// Binding with it makes SQLite copy the bytes before the call returns.
static inline void (*groupvault_sqlite_transient(void))(void *) { return SQLITE_TRANSIENT; }
#endif
