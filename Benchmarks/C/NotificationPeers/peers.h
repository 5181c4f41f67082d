#ifndef GROUPVAULT_BENCH_NOTIFICATION_PEERS_H
#define GROUPVAULT_BENCH_NOTIFICATION_PEERS_H
// Each returns the process's exit status.

/// Answers every Ping signal on the bus at `address` with a Pong signal.
int dbus_echo(const char *address);
/// For every line on standard input, one Ping/Pong round trip; prints half of it in ns.
int dbus_ping(const char *address);
/// Answers every close-after-write of "ping" in `directory` with one of "pong".
int inotify_echo(const char *directory);
/// For every line on standard input, one ping/pong round trip; prints half of it in ns.
int inotify_ping(const char *directory);

/// CLOCK_MONOTONIC in nanoseconds.
long long peers_now_ns(void);
#endif
