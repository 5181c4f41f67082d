#ifndef CFILELAYER_H
#define CFILELAYER_H

#include <sys/types.h>
#ifdef __linux__
// epoll, which Swift's Glibc module leaves out: the directory watchers' one reader thread
// waits on an epoll set of their inotify descriptors (Syscalls+Epoll.swift).
#include <sys/epoll.h>
// eventfd, also left out: it ends a wait on a watch read by the waiting thread itself
// (Syscalls+Wait.swift).
#include <sys/eventfd.h>

/// pthread_setname_np(pthread_self(), name), which needs _GNU_SOURCE: names the watchers'
/// reader thread (at most 15 bytes), as `top -H`, `perf` and /proc/<pid>/task/*/comm show it.
int filelayer_name_thread(const char *name);
#endif

// The file calls SealedStorage's file layer makes that Swift cannot make directly. Only
// Sources/SealedStorage/Files calls these (FileLayerScanTests enforces it): they are file
// calls like any other, and go through Syscall's fault checks, EINTR retries and typed errors.

/// sem_open(name, O_CREAT | (exclusive ? O_EXCL : 0), mode, value), which is variadic;
/// returns NULL with errno set instead of SEM_FAILED.
void *filelayer_semaphore_create(const char *name, int exclusive, mode_t mode, unsigned int value);

#endif
