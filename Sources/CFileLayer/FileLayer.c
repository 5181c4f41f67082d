#include "CFileLayer.h"
#include <fcntl.h>
#include <semaphore.h>
#include <stddef.h>

void *filelayer_semaphore_create(const char *name, int exclusive, mode_t mode, unsigned int value) {
    sem_t *semaphore = sem_open(name, O_CREAT | (exclusive ? O_EXCL : 0), mode, value);
    return semaphore == SEM_FAILED ? NULL : semaphore;
}
