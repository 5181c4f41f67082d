// The floors' blocking I/O loops, shared by floors.c and echo.c (not part of the public header).
#ifndef GROUPVAULT_BENCH_FLOORS_IO_H
#define GROUPVAULT_BENCH_FLOORS_IO_H

#include <stddef.h>
#include <stdint.h>

/// Reads from `fd` until `capacity` bytes or end of file; returns the length read, or -1.
long floor_io_read_all(int fd, uint8_t *buffer, size_t capacity);

/// Reads exactly `length` bytes from `fd`; returns 0, or -1 on an error or an early end.
int floor_io_read_exactly(int fd, uint8_t *buffer, size_t length);

/// Writes all `length` bytes of `data` to `fd`; returns 0, or -1.
int floor_io_write_all(int fd, const uint8_t *data, size_t length);

#endif
