/* SPDX-License-Identifier: MIT */
/* harness.h - tiny check macros shared by the C tests: print each check,
 * count failures; main returns 0 (pass), 1 (fail) or 77 (skip). */
#ifndef ATOMCOST_TEST_HARNESS_H
#define ATOMCOST_TEST_HARNESS_H

#include <stdio.h>

static int t_failed, t_passed;

#define CHECK(cond, ...)							\
	do {									\
		if (cond) {							\
			t_passed++;						\
		} else {							\
			t_failed++;						\
			printf("FAIL %s:%d: ", __FILE__, __LINE__);		\
			printf(__VA_ARGS__);					\
			printf("  [%s]\n", #cond);				\
		}								\
	} while (0)

#define TEST_SKIP 77

/* What a call printing to the FILE *f it names writes, as a malloc'd
 * string (NULL when no stream could be opened): TEST_TEXT(card_write_text(rep, f)). */
#define TEST_TEXT(call)								\
	({									\
		char *buf_ = NULL;						\
		size_t len_ = 0;						\
		FILE *f = open_memstream(&buf_, &len_);				\
		if (f) {							\
			call;							\
			fclose(f);						\
		}								\
		buf_;								\
	})

static inline int test_done(const char *name)
{
	printf("%s: %d passed, %d failed\n", name, t_passed, t_failed);
	return t_failed ? 1 : 0;
}

#endif
