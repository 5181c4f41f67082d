#ifndef GROUPVAULT_BENCH_CSQLITE_SHIM_H
#define GROUPVAULT_BENCH_CSQLITE_SHIM_H
// The system libsqlite3, for the SQLite floors only.
#include <sqlite3.h>
#endif
