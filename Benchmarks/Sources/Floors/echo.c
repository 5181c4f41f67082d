#include "Floors.h"
#include "io.h"

#include <errno.h>
#include <arpa/inet.h>
#include <pthread.h>
#include <sodium.h>
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
    // The sealed echo: each direction's key, and each end's counters, as the channel keeps
    // them (the server's two are touched only by its thread, the client's by the caller's).
    int sealed;
    uint8_t client_to_server[crypto_aead_xchacha20poly1305_ietf_KEYBYTES];
    uint8_t server_to_client[crypto_aead_xchacha20poly1305_ietf_KEYBYTES];
    uint64_t client_sent, client_received, server_sent, server_received;
    uint8_t *plaintext;
    size_t plaintext_capacity;
};

// The channel's sealed frame body: counter (8, big endian) | ciphertext | tag. The nonce is 16
// zero bytes and the counter; the additional data "GVM1", the direction and the counter.
enum { SEAL_COUNTER = 8, SEAL_AD = 13, SEAL_OVERHEAD = FLOOR_CHANNEL_OVERHEAD };

static void seal_parameters(uint64_t counter, char direction, uint8_t *nonce, uint8_t *ad) {
    memset(nonce, 0, crypto_aead_xchacha20poly1305_ietf_NPUBBYTES);
    memcpy(ad, "GVM1", 4);
    ad[4] = (uint8_t)direction;
    for (int i = 0; i < 8; i++) {
        uint8_t byte = (uint8_t)(counter >> (56 - 8 * i));
        nonce[16 + i] = byte;
        ad[5 + i] = byte;
    }
}

void floor_channel_seal(uint8_t *body, const uint8_t *plaintext, size_t length,
                        uint64_t counter, char direction, const uint8_t *key) {
    uint8_t nonce[crypto_aead_xchacha20poly1305_ietf_NPUBBYTES], ad[SEAL_AD];
    seal_parameters(counter, direction, nonce, ad);
    memcpy(body, nonce + 16, SEAL_COUNTER);
    crypto_aead_xchacha20poly1305_ietf_encrypt(body + SEAL_COUNTER, NULL, plaintext, length, ad, SEAL_AD, NULL, nonce, key);
}

int floor_channel_open(uint8_t *plaintext, const uint8_t *body, size_t length,
                       uint64_t counter, char direction, const uint8_t *key) {
    if (length < SEAL_OVERHEAD) return -1;
    uint8_t nonce[crypto_aead_xchacha20poly1305_ietf_NPUBBYTES], ad[SEAL_AD];
    seal_parameters(counter, direction, nonce, ad);
    if (memcmp(body, nonce + 16, SEAL_COUNTER) != 0) return -1;
    return crypto_aead_xchacha20poly1305_ietf_decrypt(plaintext, NULL, NULL, body + SEAL_COUNTER, length - SEAL_COUNTER,
                                                      ad, SEAL_AD, nonce, key);
}

// The sealed server: reads each whole frame, opens it (it cannot answer before the tag
// verifies), seals the plaintext back under its own direction's key and writes that frame.
static void serve_sealed(floor_echo *echo, int connection) {
    uint8_t *frame = malloc(4 + 65536), *plaintext = malloc(65536);
    while (frame && plaintext) {
        uint32_t prefix;
        if (floor_io_read_exactly(connection, (uint8_t *)&prefix, 4) != 0) break;
        size_t length = ntohl(prefix);
        if (length < SEAL_OVERHEAD || length > 65536) break;
        if (floor_io_read_exactly(connection, frame + 4, length) != 0) break;
        size_t plain = length - SEAL_OVERHEAD;
        if (floor_channel_open(plaintext, frame + 4, length, echo->server_received++, 'C', echo->client_to_server) != 0) break;
        memcpy(frame, &prefix, 4);
        floor_channel_seal(frame + 4, plaintext, plain, echo->server_sent++, 'S', echo->server_to_client);
        if (floor_io_write_all(connection, frame, 4 + length) != 0) break;
    }
    free(frame);
    free(plaintext);
}

// The server: accepts one connection and writes back whatever it reads until the client closes.
static void *floor_echo_serve(void *argument) {
    floor_echo *echo = argument;
    int connection = accept(echo->listener, NULL, NULL);
    if (connection < 0) return NULL;
    if (echo->sealed) {
        serve_sealed(echo, connection);
        close(connection);
        return NULL;
    }
    uint8_t buffer[65536];
    for (;;) {
        ssize_t got = read(connection, buffer, sizeof buffer);
        if (got < 0 && errno == EINTR) continue;
        if (got <= 0) break;
        if (floor_io_write_all(connection, buffer, (size_t)got) != 0) break;
    }
    close(connection);
    return NULL;
}

static floor_echo *start(const char *path, int sealed) {
    struct sockaddr_un address = {.sun_family = AF_UNIX};
    if (strlen(path) >= sizeof address.sun_path) { errno = ENAMETOOLONG; return NULL; }
    strcpy(address.sun_path, path);
    floor_echo *echo = calloc(1, sizeof *echo);
    if (!echo) return NULL;
    echo->sealed = sealed;
    if (sealed) {
        crypto_aead_xchacha20poly1305_ietf_keygen(echo->client_to_server);
        crypto_aead_xchacha20poly1305_ietf_keygen(echo->server_to_client);
    }
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

floor_echo *floor_echo_start(const char *path) {
    return start(path, 0);
}

floor_echo *floor_echo_start_sealed(const char *path) {
    return start(path, 1);
}

// Grows the echo's buffers to hold a frame of `total` bytes and a plaintext of `plain`.
static int reserve(floor_echo *echo, size_t total, size_t plain) {
    if (echo->capacity < total) {
        uint8_t *grown = realloc(echo->buffer, total);
        if (!grown) return -1;
        echo->buffer = grown;
        echo->capacity = total;
        memset(grown, 'a', total);
    }
    if (echo->plaintext_capacity < plain) {
        uint8_t *grown = realloc(echo->plaintext, plain);
        if (!grown) return -1;
        echo->plaintext = grown;
        echo->plaintext_capacity = plain;
        memset(grown, 'a', plain);
    }
    return 0;
}

int floor_echo_sealed_round_trip(floor_echo *echo, size_t plaintext_length) {
    size_t length = plaintext_length + SEAL_OVERHEAD;
    if (!echo->sealed || length > 65536 || reserve(echo, length + 4, plaintext_length) != 0) return -1;
    uint32_t prefix = htonl((uint32_t)length);
    memcpy(echo->buffer, &prefix, 4);
    floor_channel_seal(echo->buffer + 4, echo->plaintext, plaintext_length, echo->client_sent++, 'C', echo->client_to_server);
    if (floor_io_write_all(echo->client, echo->buffer, length + 4) != 0) return -1;
    if (floor_io_read_exactly(echo->client, echo->buffer, length + 4) != 0) return -1;
    return floor_channel_open(echo->plaintext, echo->buffer + 4, length, echo->client_received++, 'S', echo->server_to_client);
}

int floor_echo_round_trip(floor_echo *echo, size_t length) {
    size_t total = length + 4;
    if (reserve(echo, total, 0) != 0) return -1;
    uint32_t prefix = htonl((uint32_t)length);
    memcpy(echo->buffer, &prefix, 4);
    if (floor_io_write_all(echo->client, echo->buffer, total) != 0) return -1;
    return floor_io_read_exactly(echo->client, echo->buffer, total);
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
    free(echo->plaintext);
    sodium_memzero(echo->client_to_server, sizeof echo->client_to_server);
    sodium_memzero(echo->server_to_client, sizeof echo->server_to_client);
    free(echo);
}
