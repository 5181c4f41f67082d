// The D-Bus request and response: an `Echo` method call carrying a byte array (`ay`) to a
// process that owns a well-known name, routed by dbus-daemon, answered with the same bytes.
// What a Linux daemon and its clients use for request/response, beside the sealed channel's
// round trip. Nothing is sealed: the bus carries plaintext.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "peers.h"

int dbus_serve(const char *address) {
    DBusConnection *connection = peers_dbus_connect(address, NULL);
    if (!connection) return 1;
    DBusError error;
    dbus_error_init(&error);
    int owned = dbus_bus_request_name(connection, PEERS_DBUS_ECHO_NAME, DBUS_NAME_FLAG_DO_NOT_QUEUE, &error);
    if (owned != DBUS_REQUEST_NAME_REPLY_PRIMARY_OWNER) {
        fprintf(stderr, "MessagingPeers dbus-serve: cannot own %s: %s\n", PEERS_DBUS_ECHO_NAME,
                dbus_error_is_set(&error) ? error.message : "another process owns it");
        return 1;
    }
    printf("ready\n");
    fflush(stdout);
    for (;;) {
        DBusMessage *message;
        while ((message = dbus_connection_pop_message(connection))) {
            if (dbus_message_is_method_call(message, PEERS_DBUS_INTERFACE, "Echo")) {
                const unsigned char *bytes;
                int length;
                DBusMessage *reply;
                if (dbus_message_get_args(message, NULL, DBUS_TYPE_ARRAY, DBUS_TYPE_BYTE, &bytes, &length, DBUS_TYPE_INVALID)) {
                    reply = dbus_message_new_method_return(message);
                    if (reply) dbus_message_append_args(reply, DBUS_TYPE_ARRAY, DBUS_TYPE_BYTE, &bytes, length, DBUS_TYPE_INVALID);
                } else {
                    reply = dbus_message_new_error(message, DBUS_ERROR_INVALID_ARGS, "Echo takes one byte array");
                }
                if (!reply || !dbus_connection_send(connection, reply, NULL)) {
                    fprintf(stderr, "MessagingPeers dbus-serve: cannot reply\n");
                    return 1;
                }
                dbus_message_unref(reply);
                dbus_connection_flush(connection);
            }
            dbus_message_unref(message);
        }
        if (!dbus_connection_read_write(connection, -1)) {
            fprintf(stderr, "MessagingPeers dbus-serve: the bus connection failed\n");
            return 1;
        }
    }
}

int dbus_call(const char *address) {
    DBusConnection *connection = peers_dbus_connect(address, NULL);
    if (!connection) return 1;
    static unsigned char payload[65536];
    for (size_t i = 0; i < sizeof payload; i++) payload[i] = (unsigned char)('a' + i % 26);
    printf("ready\n");
    fflush(stdout);
    char line[64];
    while (fgets(line, sizeof line, stdin)) {
        char *end;
        long count = strtol(line, &end, 10);
        if (end == line || count < 0 || count > (long)sizeof payload) {
            fprintf(stderr, "MessagingPeers dbus-call: not a byte count up to %zu: %s", sizeof payload, line);
            return 1;
        }
        long long start = peers_now_ns();
        DBusMessage *call = dbus_message_new_method_call(PEERS_DBUS_ECHO_NAME, PEERS_DBUS_PATH, PEERS_DBUS_INTERFACE, "Echo");
        const unsigned char *bytes = payload;
        if (!call || !dbus_message_append_args(call, DBUS_TYPE_ARRAY, DBUS_TYPE_BYTE, &bytes, (int)count, DBUS_TYPE_INVALID)) {
            fprintf(stderr, "MessagingPeers dbus-call: cannot build the call\n");
            return 1;
        }
        DBusError error;
        dbus_error_init(&error);
        DBusMessage *reply = dbus_connection_send_with_reply_and_block(connection, call, 30000, &error);
        dbus_message_unref(call);
        const unsigned char *answer;
        int length = -1;
        if (!reply || !dbus_message_get_args(reply, &error, DBUS_TYPE_ARRAY, DBUS_TYPE_BYTE, &answer, &length, DBUS_TYPE_INVALID)
            || length != count || memcmp(answer, payload, (size_t)count) != 0) {
            fprintf(stderr, "MessagingPeers dbus-call: no echo of %ld bytes: %s\n", count,
                    dbus_error_is_set(&error) ? error.message : "a different answer");
            return 1;
        }
        dbus_message_unref(reply);
        printf("%lld\n", peers_now_ns() - start);
        fflush(stdout);
    }
    return 0;
}
