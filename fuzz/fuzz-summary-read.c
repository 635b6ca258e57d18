/* SPDX-License-Identifier: MIT */
/* fuzz-summary-read.c - libFuzzer target: the summary reader that
 * `compare` side by side and `compare --fleet` use (report_read_summary:
 * the tokenizer of report/jscan.c walking json.c's field tables, and a full
 * report reduced), on arbitrary bytes. It must return 0 or -errno with one
 * message, never crash, leak or read out of bounds (built with
 * -fsanitize=fuzzer,address,undefined). */
#include <stdint.h>

#include "compare-n.h"
#include "fuzz-input.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct compare_n_doc d;
	char path[64];
	int fd = fuzz_input_file(data, size, path, sizeof(path));

	if (fd < 0)
		return 0;
	if (report_read_summary(path, &d) == 0)
		report_free_summary(&d);
	close(fd);
	return 0;
}
