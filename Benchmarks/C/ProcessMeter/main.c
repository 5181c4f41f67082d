// ProcessMeter PROGRAM [ARGUMENT...]
//
// Runs PROGRAM once (fork, execv, wait4) with its standard output discarded, and prints
// "<wall nanoseconds> <peak RSS KiB> <wait status>" on one line.
//
// A separate, small process on purpose: Linux charges a child's peak RSS with the peak of the
// address space it replaced at exec, so a child forked straight from the large benchmark
// process would report the benchmark's RSS instead of its own. Forked from this process, the
// inherited figure is this process's (about a megabyte), below any program measured.
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

int main(int argc, char **argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: ProcessMeter PROGRAM [ARGUMENT...]\n");
        return 2;
    }
    int null_fd = open("/dev/null", O_WRONLY | O_CLOEXEC);
    if (null_fd < 0) {
        perror("ProcessMeter: /dev/null");
        return 2;
    }
    struct timespec start, end;
    clock_gettime(CLOCK_MONOTONIC, &start);
    pid_t child = fork();
    if (child < 0) {
        perror("ProcessMeter: fork");
        return 2;
    }
    if (child == 0) {
        dup2(null_fd, STDOUT_FILENO);
        execv(argv[1], argv + 1);
        perror("ProcessMeter: exec");
        _exit(127);
    }
    int status = 0;
    struct rusage usage;
    while (wait4(child, &status, 0, &usage) < 0) {
        if (errno == EINTR) continue;
        perror("ProcessMeter: wait4");
        return 2;
    }
    clock_gettime(CLOCK_MONOTONIC, &end);
    long long nanoseconds = (long long)(end.tv_sec - start.tv_sec) * 1000000000LL + (end.tv_nsec - start.tv_nsec);
    printf("%lld %ld %d\n", nanoseconds, usage.ru_maxrss, status);
    return 0;
}
