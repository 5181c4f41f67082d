// The D-Bus ping-pong: a `Ping` signal broadcast on the bus, delivered by dbus-daemon to the echo
// (which matched it), answered with a `Pong` signal delivered back to the pinger. Signals, not
// method calls: a notification has no reply, and a signal is what a desktop service emits.
#include <dbus/dbus.h>
#include <stdio.h>
#include <string.h>

#include "peers.h"

DBusConnection *peers_dbus_connect(const char *address, const char *member) {
    DBusError error;
    dbus_error_init(&error);
    DBusConnection *connection = dbus_connection_open_private(address, &error);
    if (connection && dbus_bus_register(connection, &error) && member) {
        char rule[128];
        snprintf(rule, sizeof rule, "type='signal',interface='" PEERS_DBUS_INTERFACE "',member='%s'", member);
        dbus_bus_add_match(connection, rule, &error);
    }
    if (dbus_error_is_set(&error)) {
        fprintf(stderr, "MessagingPeers: D-Bus at %s: %s\n", address, error.message);
        dbus_error_free(&error);
        return NULL;
    }
    return connection;
}

static int emit(DBusConnection *connection, const char *member) {
    DBusMessage *signal = dbus_message_new_signal(PEERS_DBUS_PATH, PEERS_DBUS_INTERFACE, member);
    if (!signal || !dbus_connection_send(connection, signal, NULL)) return -1;
    dbus_message_unref(signal);
    dbus_connection_flush(connection);
    return 0;
}

// Blocks until the signal `member` arrives; anything else (the bus's NameAcquired) is dropped.
static int wait_for(DBusConnection *connection, const char *member) {
    for (;;) {
        DBusMessage *message;
        while ((message = dbus_connection_pop_message(connection))) {
            int found = dbus_message_is_signal(message, PEERS_DBUS_INTERFACE, member);
            dbus_message_unref(message);
            if (found) return 0;
        }
        if (!dbus_connection_read_write(connection, -1)) return -1;
    }
}

int dbus_echo(const char *address) {
    DBusConnection *connection = peers_dbus_connect(address, "Ping");
    if (!connection) return 1;
    printf("ready\n");
    fflush(stdout);
    for (;;) {
        if (wait_for(connection, "Ping") != 0 || emit(connection, "Pong") != 0) {
            fprintf(stderr, "MessagingPeers dbus-echo: the bus connection failed\n");
            return 1;
        }
    }
}

int dbus_ping(const char *address) {
    DBusConnection *connection = peers_dbus_connect(address, "Pong");
    if (!connection) return 1;
    printf("ready\n");
    fflush(stdout);
    char line[64];
    while (fgets(line, sizeof line, stdin)) {
        long long start = peers_now_ns();
        if (emit(connection, "Ping") != 0 || wait_for(connection, "Pong") != 0) {
            fprintf(stderr, "MessagingPeers dbus-ping: the bus connection failed\n");
            return 1;
        }
        printf("%lld\n", (peers_now_ns() - start) / 2);
        fflush(stdout);
    }
    return 0;
}
