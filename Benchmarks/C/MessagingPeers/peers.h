#ifndef GROUPVAULT_BENCH_MESSAGING_PEERS_H
#define GROUPVAULT_BENCH_MESSAGING_PEERS_H
#include <dbus/dbus.h>

// Each returns the process's exit status.

/// Answers every Ping signal on the bus at `address` with a Pong signal.
int dbus_echo(const char *address);
/// For every line on standard input, one Ping/Pong round trip; prints half of it in ns.
int dbus_ping(const char *address);
/// Owns PEERS_DBUS_ECHO_NAME on the bus at `address` and answers every `Echo` method call
/// with its byte array.
int dbus_serve(const char *address);
/// For every line on standard input (a byte count), one `Echo` method call carrying that many
/// bytes, waiting for the reply; prints the whole round trip in ns.
int dbus_call(const char *address);
/// Answers every close-after-write of "ping" in `directory` with one of "pong".
int inotify_echo(const char *directory);
/// For every line on standard input, one ping/pong round trip; prints half of it in ns.
int inotify_ping(const char *directory);

/// A private connection to the bus at `address`, registered, matching the signal `member` of
/// PEERS_DBUS_INTERFACE unless it is NULL; NULL after saying why on standard error.
DBusConnection *peers_dbus_connect(const char *address, const char *member);

/// CLOCK_MONOTONIC in nanoseconds.
long long peers_now_ns(void);

#define PEERS_DBUS_PATH "/com/example/bench"
#define PEERS_DBUS_INTERFACE "com.example.bench"
#define PEERS_DBUS_ECHO_NAME "com.example.bench.Echo"
#endif
