#include "Floors.h"

#include <errno.h>
#include <arpa/inet.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

struct floor_echo {
    int listener;
    int client;
    pthread_t thread;
    char path[sizeof(((struct sockaddr_un *)0)->sun_path)];
    uint8_t *buffer;
    size_t capacity;
};

// The server: accepts one connection and writes back whatever it reads until the client closes.
static void *floor_echo_serve(void *argument) {
    floor_echo *echo = argument;
    int connection = accept(echo->listener, NULL, NULL);
    if (connection < 0) return NULL;
    uint8_t buffer[65536];
    for (;;) {
        ssize_t got = read(connection, buffer, sizeof buffer);
        if (got < 0 && errno == EINTR) continue;
        if (got <= 0) break;
        for (ssize_t sent = 0; sent < got;) {
            ssize_t wrote = write(connection, buffer + sent, (size_t)(got - sent));
            if (wrote < 0 && errno == EINTR) continue;
            if (wrote <= 0) goto done;
            sent += wrote;
        }
    }
done:
    close(connection);
    return NULL;
}

floor_echo *floor_echo_start(const char *path) {
    struct sockaddr_un address = {.sun_family = AF_UNIX};
    if (strlen(path) >= sizeof address.sun_path) { errno = ENAMETOOLONG; return NULL; }
    strcpy(address.sun_path, path);
    floor_echo *echo = calloc(1, sizeof *echo);
    if (!echo) return NULL;
    strcpy(echo->path, path);
    echo->client = -1;
    echo->listener = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (echo->listener < 0) goto fail;
    if (bind(echo->listener, (struct sockaddr *)&address, sizeof address) != 0) goto fail;
    if (listen(echo->listener, 1) != 0) goto fail;
    if (pthread_create(&echo->thread, NULL, floor_echo_serve, echo) != 0) goto fail;
    echo->client = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (echo->client < 0 || connect(echo->client, (struct sockaddr *)&address, sizeof address) != 0) {
        int saved = errno;
        floor_echo_stop(echo);
        errno = saved;
        return NULL;
    }
    return echo;
fail:;
    int saved = errno;
    if (echo->listener >= 0) close(echo->listener);
    unlink(path);
    free(echo);
    errno = saved;
    return NULL;
}

int floor_echo_round_trip(floor_echo *echo, size_t length) {
    size_t total = length + 4;
    if (echo->capacity < total) {
        uint8_t *grown = realloc(echo->buffer, total);
        if (!grown) return -1;
        echo->buffer = grown;
        echo->capacity = total;
        memset(grown, 'a', total);
    }
    uint32_t prefix = htonl((uint32_t)length);
    memcpy(echo->buffer, &prefix, 4);
    for (size_t sent = 0; sent < total;) {
        ssize_t wrote = write(echo->client, echo->buffer + sent, total - sent);
        if (wrote < 0 && errno == EINTR) continue;
        if (wrote <= 0) return -1;
        sent += (size_t)wrote;
    }
    for (size_t received = 0; received < total;) {
        ssize_t got = read(echo->client, echo->buffer + received, total - received);
        if (got < 0 && errno == EINTR) continue;
        if (got <= 0) return -1;
        received += (size_t)got;
    }
    return 0;
}

void floor_echo_stop(floor_echo *echo) {
    if (!echo) return;
    if (echo->client >= 0) {
        shutdown(echo->client, SHUT_RDWR);
        close(echo->client);
        pthread_join(echo->thread, NULL);
    }
    close(echo->listener);
    unlink(echo->path);
    free(echo->buffer);
    free(echo);
}
