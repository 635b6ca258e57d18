/* registry.c - the probe table built from the PROBES() list, and the names
 * of modes and atomicity classes. */
#include "probes.h"

#include <errno.h>
#include <string.h>

#define PROBE_ENTRY(id) &probe_##id,
const struct probe *const probe_table[] = { PROBES(PROBE_ENTRY) };
const size_t probe_count = sizeof(probe_table) / sizeof(probe_table[0]);

const unsigned tput_footprints[TPUT_NFOOT] = { 1, 2, 4, 8, 16, 32 };

const struct probe *probe_find(const char *name)
{
	for (size_t i = 0; i < probe_count; i++)
		if (!strcmp(probe_table[i]->name, name))
			return probe_table[i];
	return NULL;
}

static const char *const mode_names[MODE__COUNT] = {
	[MODE_LATENCY] = "latency",
	[MODE_THROUGHPUT] = "throughput",
};

const char *probe_mode_name(enum probe_mode m)
{
	return m < MODE__COUNT ? mode_names[m] : "?";
}

int probe_mode_parse(const char *s, enum probe_mode *out)
{
	for (int m = 0; m < MODE__COUNT; m++) {
		if (!strcmp(s, mode_names[m]) || (!strcmp(s, m == MODE_LATENCY ? "lat" : "tput"))) {
			*out = (enum probe_mode)m;
			return 0;
		}
	}
	return -EINVAL;
}

const char *probe_atomicity_name(enum atomicity a)
{
	switch (a) {
	case ATOMICITY_BASELINE:
		return "baseline";
	case ATOMICITY_ATOMIC:
		return "atomic";
	case ATOMICITY_LOCAL:
		return "local-only";
	case ATOMICITY_NONATOMIC:
		return "non-atomic";
	}
	return "?";
}
