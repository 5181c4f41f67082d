// NotificationPeers dbus-echo ADDRESS | dbus-ping ADDRESS | inotify-echo DIRECTORY | inotify-ping DIRECTORY
//
// The other ways a Linux process tells another "something changed", as the notification
// figure's peer and floor, each a ping-pong between two processes of this program:
//
// - D-Bus: a `Ping` signal on the bus at ADDRESS (a dbus-daemon the benchmark started), answered by
//   the echo with a `Pong` signal; libdbus-1, the reference implementation.
// - inotify: the mechanism GroupNotificationCenter uses, without GroupVault: the poster opens and
//   closes (IN_CLOSE_WRITE) a file named for the notification in DIRECTORY, which the other
//   process watches with inotify.
//
// An echo prints "ready" once it listens, then answers every ping until it is killed (or its
// parent dies). A pinger prints "ready", then for every line on standard input sends one ping,
// waits for the pong and prints half the round trip in nanoseconds, timed here so the pipe to
// the benchmark stays out of the figure.
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>

#include "peers.h"

int main(int argc, char **argv) {
    // Never outlive the benchmark that started it.
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (argc == 3 && strcmp(argv[1], "dbus-echo") == 0) return dbus_echo(argv[2]);
    if (argc == 3 && strcmp(argv[1], "dbus-ping") == 0) return dbus_ping(argv[2]);
    if (argc == 3 && strcmp(argv[1], "inotify-echo") == 0) return inotify_echo(argv[2]);
    if (argc == 3 && strcmp(argv[1], "inotify-ping") == 0) return inotify_ping(argv[2]);
    fprintf(stderr, "usage: NotificationPeers dbus-echo ADDRESS | dbus-ping ADDRESS | inotify-echo DIRECTORY | inotify-ping DIRECTORY\n");
    return 2;
}
