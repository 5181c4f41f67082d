#ifndef CGROUPIPC_H
#define CGROUPIPC_H

#include <sys/types.h>

// Small C shims for GroupMessaging: semaphore calls on a handle, and structures the Swift Glibc
// module hides behind _GNU_SOURCE (struct ucred). Opening a semaphore is a file call: it lives in
// the file layer's own shim (CFileLayer), called only from Sources/SealedStorage/Files.

/// The peer of a connected Unix domain socket as the kernel recorded it at connect(2) time:
/// the layout of Linux's struct ucred, read with getsockopt(SOL_SOCKET, SO_PEERCRED).
typedef struct {
    pid_t pid;
    uid_t uid;
    gid_t gid;
} cgroupipc_peer_credentials;

/// sem_wait, sem_trywait, sem_post, sem_close: 0 or -1 with errno.
int cgroupipc_semaphore_wait(void *semaphore);
int cgroupipc_semaphore_try_wait(void *semaphore);
int cgroupipc_semaphore_post(void *semaphore);
int cgroupipc_semaphore_close(void *semaphore);

#endif
