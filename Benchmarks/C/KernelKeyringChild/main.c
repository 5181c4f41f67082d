// KernelKeyringChild KEYRING DESCRIPTION
//
// The kernel keyring peer's cold process: what a command-line tool or a widget that keeps its
// secret in the kernel keyring does to read it once. It searches the keyring with serial KEYRING
// for the "user" key DESCRIPTION, reads its payload and exits: 0 once read, 1 if not found or
// unreadable, 2 for bad arguments. The benchmark links that keyring into its session keyring,
// which this process inherits, so this process possesses it and may search and read it.
#include <keyutils.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
    if (argc != 3) {
        fprintf(stderr, "usage: KernelKeyringChild KEYRING DESCRIPTION\n");
        return 2;
    }
    char *end;
    long keyring = strtol(argv[1], &end, 10);
    if (end == argv[1] || *end != '\0' || keyring <= 0) {
        fprintf(stderr, "KernelKeyringChild: not a keyring serial: %s\n", argv[1]);
        return 2;
    }
    long key = keyctl_search((key_serial_t)keyring, "user", argv[2], 0);
    if (key < 0) {
        perror("KernelKeyringChild: keyctl_search");
        return 1;
    }
    static unsigned char payload[65536];
    long length = keyctl_read((key_serial_t)key, (char *)payload, sizeof payload);
    if (length < 0 || length > (long)sizeof payload) {
        perror("KernelKeyringChild: keyctl_read");
        return 1;
    }
    // Every byte used, as a reader would use its secret, so no read can be cut short.
    unsigned sum = 0;
    for (long i = 0; i < length; i++) sum += payload[i];
    printf("%ld bytes, sum %u\n", length, sum);
    return 0;
}
