/* SPDX-License-Identifier: MIT */
/* registry.c - the probe table built from the PROBES() list (the names of
 * modes and atomicity classes are the model's: src/model/vocab.c). */
#include "probes.h"

#include <errno.h>
#include <string.h>

#define PROBE_ENTRY(id) &probe_##id,
const struct probe *const probe_table[] = { PROBES(PROBE_ENTRY) };
const size_t probe_count = sizeof(probe_table) / sizeof(probe_table[0]);

#define TPUT_FOOT_(w, l, ...) { w, l },
const struct tput_footprint tput_footprints[TPUT_NFOOT] = { TPUT_FOOTPRINTS(TPUT_FOOT_, ) };

const struct probe *probe_find(const char *name)
{
	for (size_t i = 0; i < probe_count; i++)
		if (!strcmp(probe_table[i]->name, name))
			return probe_table[i];
	return NULL;
}
