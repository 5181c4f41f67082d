#ifndef GROUPVAULT_BENCH_CLIBSODIUM_SHIM_H
#define GROUPVAULT_BENCH_CLIBSODIUM_SHIM_H
// The system libsodium, for the cryptographic floors only. (A module of its own name: the
// library's CSodium target is not a product, and two modules may not share a name.)
#include <sodium.h>
#endif
