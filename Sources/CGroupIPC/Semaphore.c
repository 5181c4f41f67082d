#include "CGroupIPC.h"
#include <semaphore.h>
#include <stddef.h>

int cgroupipc_semaphore_wait(void *semaphore) { return sem_wait((sem_t *)semaphore); }
int cgroupipc_semaphore_try_wait(void *semaphore) { return sem_trywait((sem_t *)semaphore); }
int cgroupipc_semaphore_post(void *semaphore) { return sem_post((sem_t *)semaphore); }
int cgroupipc_semaphore_close(void *semaphore) { return sem_close((sem_t *)semaphore); }
