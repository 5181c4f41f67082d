// Holding the benchmark's thread and its peer's child process on one CPU for a figure's rounds.
// With the child on the other CPU, this thread's CPU goes idle while the child answers, and a
// virtual CPU woken from idle runs the next contenders cold (Benchmarks/README.md, "Placement").
#define _GNU_SOURCE
#include "Floors.h"

#include <errno.h>
#include <sched.h>
#include <stdlib.h>

struct floor_placement {
    cpu_set_t thread;
    cpu_set_t *children;
    pid_t *pids;
    int count;
};

floor_placement *floor_place_on_one_cpu(const pid_t *pids, int count) {
    int cpu = sched_getcpu();
    if (cpu < 0 || count < 0) return NULL;
    floor_placement *saved = calloc(1, sizeof *saved);
    if (!saved) return NULL;
    saved->children = calloc((size_t)(count > 0 ? count : 1), sizeof *saved->children);
    saved->pids = calloc((size_t)(count > 0 ? count : 1), sizeof *saved->pids);
    if (!saved->children || !saved->pids || sched_getaffinity(0, sizeof saved->thread, &saved->thread) != 0) goto fail;
    for (int i = 0; i < count; i++) {
        if (sched_getaffinity(pids[i], sizeof saved->children[i], &saved->children[i]) != 0) goto fail;
        saved->pids[i] = pids[i];
    }
    saved->count = count;
    cpu_set_t one;
    CPU_ZERO(&one);
    CPU_SET(cpu, &one);
    // The thread first, so that it stays on the CPU the children are moved to.
    if (sched_setaffinity(0, sizeof one, &one) != 0) goto fail;
    for (int i = 0; i < count; i++) {
        if (sched_setaffinity(pids[i], sizeof one, &one) != 0) {
            int error = errno;
            floor_restore_placement(saved);
            errno = error;
            return NULL;
        }
    }
    return saved;
fail:;
    int error = errno;
    free(saved->children);
    free(saved->pids);
    free(saved);
    errno = error;
    return NULL;
}

int floor_restore_placement(floor_placement *saved) {
    int result = 0;
    for (int i = 0; i < saved->count; i++) {
        // A child that has exited since has nothing to restore.
        if (sched_setaffinity(saved->pids[i], sizeof saved->children[i], &saved->children[i]) != 0 && errno != ESRCH) result = -1;
    }
    if (sched_setaffinity(0, sizeof saved->thread, &saved->thread) != 0) result = -1;
    free(saved->children);
    free(saved->pids);
    free(saved);
    return result;
}
