#ifndef CFILELAYER_H
#define CFILELAYER_H

#include <sys/types.h>

// The file calls SealedStorage's file layer makes that Swift cannot make directly. Only
// Sources/SealedStorage/Files calls these (FileLayerScanTests enforces it): they are file
// calls like any other, and go through Syscall's fault checks, EINTR retries and typed errors.

/// sem_open(name, O_CREAT | (exclusive ? O_EXCL : 0), mode, value), which is variadic;
/// returns NULL with errno set instead of SEM_FAILED.
void *filelayer_semaphore_create(const char *name, int exclusive, mode_t mode, unsigned int value);

#endif
