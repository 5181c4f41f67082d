#ifdef __linux__
#define _GNU_SOURCE  // pthread_setname_np
#endif
#include "CFileLayer.h"
#include <fcntl.h>
#include <semaphore.h>
#include <stddef.h>
#include <pthread.h>

void *filelayer_semaphore_create(const char *name, int exclusive, mode_t mode, unsigned int value) {
    sem_t *semaphore = sem_open(name, O_CREAT | (exclusive ? O_EXCL : 0), mode, value);
    return semaphore == SEM_FAILED ? NULL : semaphore;
}

#ifdef __linux__
int filelayer_name_thread(const char *name) {
    return pthread_setname_np(pthread_self(), name);
}
#endif
