/* SPDX-License-Identifier: MIT */
/* fuzz-config-load.c - libFuzzer target: experiment files (config_load:
 * inih, then the schema checks) on arbitrary bytes: truncated files, binary
 * garbage, huge lines, unknown sections, duplicate keys. 0 or -errno with
 * one message, never a crash. */
#include <stdint.h>

#include "config.h"
#include "fuzz-input.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct experiment *e = NULL;
	char path[64];
	int fd = fuzz_input_file(data, size, path, sizeof(path));

	if (fd < 0)
		return 0;
	if (config_load(path, NULL, 0, &e) == 0)
		config_free(e);
	close(fd);
	return 0;
}
