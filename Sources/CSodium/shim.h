#ifndef GROUPVAULT_CSODIUM_SHIM_H
#define GROUPVAULT_CSODIUM_SHIM_H
// libsodium, imported whole: SealedStorage is the only module that calls it.
#include <sodium.h>
#endif
