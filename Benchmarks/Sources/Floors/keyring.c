// The kernel keyring peer: what a Linux program can use instead of a keychain when secrets need
// not survive a reboot. Keys live in kernel memory; nothing is written to disk.
#include "Floors.h"

#include <keyutils.h>
#include <stdbool.h>
#include <string.h>

// Written by floor_kernel_keyring_create; a read reads into it after an add has copied from it,
// and the benchmark runs one contender at a time.
static unsigned char payload[65536];

int32_t floor_kernel_keyring_create(const char *name, bool shared_with_children) {
    // The secret bytes every add stores, written once so an add times only the kernel's work.
    for (size_t i = 0; i < sizeof payload; i++) payload[i] = (unsigned char)(i * 31);
    return add_key("keyring", name, NULL, 0, shared_with_children ? KEY_SPEC_SESSION_KEYRING : KEY_SPEC_PROCESS_KEYRING);
}

int floor_kernel_key_add(int32_t keyring, const char *description, size_t length) {
    if (length > sizeof payload) return -1;
    return add_key("user", description, payload, length, keyring) < 0 ? -1 : 0;
}

long floor_kernel_key_read(int32_t keyring, const char *description) {
    long key = keyctl_search(keyring, "user", description, 0);
    if (key < 0) return -1;
    long length = keyctl_read((key_serial_t)key, (char *)payload, sizeof payload);
    if (length < 0 || length > (long)sizeof payload) return -1;
    volatile unsigned sum = 0;
    for (long i = 0; i < length; i++) sum += payload[i];
    return length;
}

int floor_kernel_key_remove(int32_t keyring, const char *description) {
    long key = keyctl_search(keyring, "user", description, 0);
    if (key < 0) return -1;
    return keyctl_unlink((key_serial_t)key, keyring) < 0 ? -1 : 0;
}

void floor_kernel_keyring_destroy(int32_t keyring, bool shared_with_children) {
    keyctl_clear(keyring);
    keyctl_unlink(keyring, shared_with_children ? KEY_SPEC_SESSION_KEYRING : KEY_SPEC_PROCESS_KEYRING);
}
