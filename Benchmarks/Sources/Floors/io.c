#include "io.h"

#include <errno.h>
#include <unistd.h>

long floor_io_read_all(int fd, uint8_t *buffer, size_t capacity) {
    size_t total = 0;
    while (total < capacity) {
        ssize_t count = read(fd, buffer + total, capacity - total);
        if (count < 0) {
            if (errno == EINTR) continue;
            return -1;
        }
        if (count == 0) break;
        total += (size_t)count;
    }
    return (long)total;
}

int floor_io_read_exactly(int fd, uint8_t *buffer, size_t length) {
    return floor_io_read_all(fd, buffer, length) == (long)length ? 0 : -1;
}

int floor_io_write_all(int fd, const uint8_t *data, size_t length) {
    size_t total = 0;
    while (total < length) {
        ssize_t count = write(fd, data + total, length - total);
        if (count < 0 && errno == EINTR) continue;
        if (count <= 0) return -1;
        total += (size_t)count;
    }
    return 0;
}
