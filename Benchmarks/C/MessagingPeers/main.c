// MessagingPeers dbus-echo ADDRESS | dbus-ping ADDRESS | dbus-serve ADDRESS | dbus-call ADDRESS
//                | inotify-echo DIRECTORY | inotify-ping DIRECTORY
//
// The other ways Linux processes tell each other "something changed" and ask each other for
// something, as the messaging figures' peers and floor, each between two processes of this
// program:
//
// - D-Bus signals: a `Ping` signal on the bus at ADDRESS (a dbus-daemon the benchmark started),
//   answered by the echo with a `Pong` signal; libdbus-1, the reference implementation.
// - D-Bus method calls: an `Echo` call carrying N bytes to the process that serves it, whose
//   reply carries them back (the channel's request and response).
// - inotify: the mechanism GroupNotificationCenter uses, without GroupVault: the poster opens and
//   closes (IN_CLOSE_WRITE) a file named for the notification in DIRECTORY, which the other
//   process watches with inotify.
//
// An echo (or server) prints "ready" once it listens, then answers every ping (or call) until it
// is killed or its parent dies. A pinger prints "ready", then for every line on standard input
// sends one ping, waits for the pong and prints half the round trip in nanoseconds; a caller
// reads a byte count on each line and prints the whole call's round trip. Timed here, so the
// pipe to the benchmark stays out of the figure.
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
    if (argc == 3 && strcmp(argv[1], "dbus-serve") == 0) return dbus_serve(argv[2]);
    if (argc == 3 && strcmp(argv[1], "dbus-call") == 0) return dbus_call(argv[2]);
    if (argc == 3 && strcmp(argv[1], "inotify-echo") == 0) return inotify_echo(argv[2]);
    if (argc == 3 && strcmp(argv[1], "inotify-ping") == 0) return inotify_ping(argv[2]);
    fprintf(stderr, "usage: MessagingPeers dbus-echo ADDRESS | dbus-ping ADDRESS | dbus-serve ADDRESS | dbus-call ADDRESS\n"
                    "                      | inotify-echo DIRECTORY | inotify-ping DIRECTORY\n");
    return 2;
}
