#ifndef GROUPVAULT_BENCH_SQLCIPHER_SHIM_H
#define GROUPVAULT_BENCH_SQLCIPHER_SHIM_H
// Debian's libsqlcipher, for the SQLCipher peer child only. It exports the same sqlite3_*
// symbols as libsqlite3, so only SQLCipherChild depends on it: linked into a process with
// libsqlite3 (the benchmark, GroupVault), one library's symbols would silently serve the other.
#include <sqlcipher/sqlite3.h>
#endif
