/* SPDX-License-Identifier: MIT */
/* fuzz-input.h - hand a fuzzer's bytes to a parser that reads a file: an
 * anonymous memory file (memfd) named by /proc/self/fd/N, so the parsers are
 * fuzzed through the very entry points the commands use, unchanged. */
#ifndef ATOMCOST_FUZZ_INPUT_H
#define ATOMCOST_FUZZ_INPUT_H

#include <stdint.h>
#include <stdio.h>
#include <sys/mman.h>
#include <unistd.h>

#include "common.h"

/* Write data to a fresh memfd; path receives its /proc/self/fd name.
 * Returns the fd (close it after parsing) or -1. */
static inline int fuzz_input_file(const uint8_t *data, size_t size, char *path, size_t len)
{
	int fd = memfd_create("atomcost-fuzz", 0);
	size_t done = 0;

	if (fd < 0)
		return -1;
	while (done < size) {
		ssize_t w = write(fd, data + done, size - done);

		if (w <= 0) {
			close(fd);
			return -1;
		}
		done += (size_t)w;
	}
	snprintf(path, len, "/proc/self/fd/%d", fd);
	return fd;
}

#endif
