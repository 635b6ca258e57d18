/* SPDX-License-Identifier: MIT */
/* fuzz-report-read.c - libFuzzer target: the JSON report reader that
 * `compare` and `report` use (report_read), on arbitrary bytes. It must
 * return 0 or -errno with one message, never crash, leak or read out of
 * bounds (built with -fsanitize=fuzzer,address,undefined). */
#include <stdint.h>

#include "fuzz-input.h"
#include "report.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct report rep;
	char path[64];
	int fd = fuzz_input_file(data, size, path, sizeof(path));

	if (fd < 0)
		return 0;
	if (report_read(path, &rep) == 0)
		report_free(&rep);
	close(fd);
	return 0;
}
