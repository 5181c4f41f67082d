#ifndef CGROUPIPC_H
#define CGROUPIPC_H

#include <sys/types.h>

// Small C shims for GroupMessaging: calls Swift cannot make directly (variadic sem_open) and
// structures the Swift Glibc module hides behind _GNU_SOURCE (struct ucred).

/// The peer of a connected Unix domain socket as the kernel recorded it at connect(2) time:
/// the layout of Linux's struct ucred, read with getsockopt(SOL_SOCKET, SO_PEERCRED).
typedef struct {
    pid_t pid;
    uid_t uid;
    gid_t gid;
} cgroupipc_peer_credentials;

/// sem_open(name, O_CREAT | (exclusive ? O_EXCL : 0), mode, value); returns NULL with errno set.
/// A file call: Swift code never calls it directly but hands it to SealedStorage's
/// Syscall.openSemaphore, which checks faults, retries EINTR and types the error (the file
/// layer, Sources/SealedStorage/Files, is the only caller of file functions).
void *cgroupipc_semaphore_create(const char *name, int exclusive, mode_t mode, unsigned int value);
/// sem_wait, sem_trywait, sem_post, sem_close: 0 or -1 with errno.
int cgroupipc_semaphore_wait(void *semaphore);
int cgroupipc_semaphore_try_wait(void *semaphore);
int cgroupipc_semaphore_post(void *semaphore);
int cgroupipc_semaphore_close(void *semaphore);

#endif
