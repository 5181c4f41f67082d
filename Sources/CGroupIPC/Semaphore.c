#include "CGroupIPC.h"
#include <fcntl.h>
#include <semaphore.h>
#include <stddef.h>

void *cgroupipc_semaphore_create(const char *name, int exclusive, mode_t mode, unsigned int value) {
    sem_t *semaphore = sem_open(name, O_CREAT | (exclusive ? O_EXCL : 0), mode, value);
    return semaphore == SEM_FAILED ? NULL : semaphore;
}

int cgroupipc_semaphore_wait(void *semaphore) { return sem_wait((sem_t *)semaphore); }
int cgroupipc_semaphore_try_wait(void *semaphore) { return sem_trywait((sem_t *)semaphore); }
int cgroupipc_semaphore_post(void *semaphore) { return sem_post((sem_t *)semaphore); }
int cgroupipc_semaphore_close(void *semaphore) { return sem_close((sem_t *)semaphore); }
