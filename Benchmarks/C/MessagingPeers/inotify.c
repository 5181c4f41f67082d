// The inotify ping-pong: GroupNotificationCenter's mechanism at its least. A post opens the
// notification's file in the watched directory for writing and closes it; the observer's
// blocking read of its inotify descriptor returns the IN_CLOSE_WRITE event with the name.
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/inotify.h>
#include <time.h>
#include <unistd.h>

#include "peers.h"

long long peers_now_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (long long)t.tv_sec * 1000000000LL + t.tv_nsec;
}

static int post(int directory, const char *name) {
    int file = openat(directory, name, O_WRONLY | O_CREAT | O_NONBLOCK | O_CLOEXEC, 0600);
    if (file < 0) return -1;
    return close(file);
}

// Blocks until an event for `name` arrives on `watcher`; other events (this process's own
// posts) are skipped.
static int wait_for(int watcher, const char *name) {
    char buffer[sizeof(struct inotify_event) + NAME_MAX + 1] __attribute__((aligned(__alignof__(struct inotify_event))));
    for (;;) {
        ssize_t length = read(watcher, buffer, sizeof buffer);
        if (length <= 0) return -1;
        for (char *at = buffer; at < buffer + length;) {
            struct inotify_event *event = (struct inotify_event *)at;
            if (event->len > 0 && strcmp(event->name, name) == 0) return 0;
            at += sizeof(struct inotify_event) + event->len;
        }
    }
}

// Watches `directory` and opens it for posting, then says "ready"; returns the inotify
// descriptor, or -1 after saying why on standard error as `who`.
static int open_watch(const char *directory, int *directory_fd, const char *who) {
    int watcher = inotify_init1(IN_CLOEXEC);
    if (watcher < 0 || inotify_add_watch(watcher, directory, IN_CLOSE_WRITE) < 0
        || (*directory_fd = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0) {
        perror(who);
        return -1;
    }
    printf("ready\n");
    fflush(stdout);
    return watcher;
}

int inotify_echo(const char *directory) {
    int directory_fd;
    int watcher = open_watch(directory, &directory_fd, "MessagingPeers inotify-echo");
    if (watcher < 0) return 1;
    for (;;) {
        if (wait_for(watcher, "ping") != 0 || post(directory_fd, "pong") != 0) { perror("MessagingPeers inotify-echo"); return 1; }
    }
}

int inotify_ping(const char *directory) {
    int directory_fd;
    int watcher = open_watch(directory, &directory_fd, "MessagingPeers inotify-ping");
    if (watcher < 0) return 1;
    char line[64];
    while (fgets(line, sizeof line, stdin)) {
        long long start = peers_now_ns();
        if (post(directory_fd, "ping") != 0 || wait_for(watcher, "pong") != 0) { perror("MessagingPeers inotify-ping"); return 1; }
        printf("%lld\n", (peers_now_ns() - start) / 2);
        fflush(stdout);
    }
    return 0;
}
