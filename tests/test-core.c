/* SPDX-License-Identifier: MIT */
/* test-core.c - the core from CPUID facts (src/model/core.c), fed with the
 * lscpu of the two guests in tests/data (the facts src/arch reads from
 * CPUID, as the kernel shows them) and with synthetic facts. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core.h"
#include "harness.h"

/* An lscpu listing's facts: vendor, family, model, flags, hypervisor,
 * per-core L1D and L2 ("96 KiB (2 instances)"). 0 or -1. */
static int lscpu_facts(const char *name, struct core_facts *f)
{
	const char *src = getenv("ATOMCOST_SRCDIR");
	char path[4096], line[4096];
	FILE *in;

	memset(f, 0, sizeof(*f));
	snprintf(path, sizeof(path), "%s/tests/data/%s", src ? src : "..", name);
	in = fopen(path, "r");
	if (!in)
		return -1;
	while (fgets(line, sizeof(line), in)) {
		char *v = strchr(line, ':');
		unsigned size, inst = 1;
		char unit[8];

		if (!v)
			continue;
		*v++ = '\0';
		v += strspn(v, " ");
		v[strcspn(v, "\n")] = '\0';
		if (!strcmp(line, "Vendor ID"))
			snprintf(f->vendor, sizeof(f->vendor), "%s", v);
		else if (!strcmp(line, "CPU family"))
			f->family = (unsigned)atoi(v);
		else if (!strcmp(line, "Model"))
			f->model = (unsigned)atoi(v);
		else if (!strcmp(line, "Flags"))
			core_facts_set_flags(f, v);
		else if (!strcmp(line, "Hypervisor vendor"))
			snprintf(f->hv_vendor, sizeof(f->hv_vendor), "%s", v);
		else if ((!strcmp(line, "L1d cache") || !strcmp(line, "L2 cache")) &&
			 sscanf(v, "%u %7s (%u", &size, unit, &inst) >= 2)
			*(line[1] == '1' ? &f->l1d_kib : &f->l2_kib) = size * (unit[0] == 'M' ? 1024 : 1) / (inst ? inst : 1);
	}
	fclose(in);
	return 0;
}

int main(void)
{
	struct core_facts f;
	struct core_id id;

	/* the Intel Xeon guest: model 167 is a Rocket Lake's, the features a
	 * Sapphire Rapids': Golden Cove-class, 5 cycles */
	CHECK(lscpu_facts("intel-xeon-kvm-lscpu.txt", &f) == 0 && f.model == 167 && f.l1d_kib == 48 &&
		      f.l2_kib == 2048 && f.features & 1u << CF_AMX_TILE && !(f.features & 1u << CF_AMX_FP16),
	      "Intel facts: model %u, L1D %u KiB, L2 %u KiB, features %#x", f.model, f.l1d_kib, f.l2_kib,
	      f.features);
	CHECK(core_identify(&f, &id) && !strcmp(id.name, "Golden Cove") && id.l1_load_cycles == 5 &&
		      strstr(id.how, "Golden Cove-class: AVX512-FP16 present, AMX present, AMX-FP16 absent, 48 KiB "
				     "L1D, 2 MiB L2; model 167 (0xa7) is no Golden Cove part's: the hypervisor's"),
	      "Intel guest: %s (%g): %s", id.name, id.l1_load_cycles, id.how);
	CHECK(id.l1_source && strstr(id.l1_source, "5-cycle"), "its L1 figure says where from");
	/* this AMD guest: family 25 model 17 is a Zen 4 (Genoa), as are its features */
	CHECK(lscpu_facts("amd-epyc-zen4-kvm-lscpu.txt", &f) == 0 && core_identify(&f, &id) &&
		      !strcmp(id.name, "Zen 4") && id.l1_load_cycles == 4 &&
		      strstr(id.how, "family 25 model 17 (0x11) is one, and AVX-512 present, 32 KiB L1D, 1 MiB L2"),
	      "AMD guest: %s (%g): %s", id.name, id.l1_load_cycles, id.how);
	/* a Zen 4 whose hypervisor shows a Zen 3 model: the features decide */
	f.model = 0x01;
	CHECK(core_identify(&f, &id) && !strcmp(id.name, "Zen 4") && strstr(id.how, "the hypervisor's"),
	      "masked Zen 4: %s", id.how);
	/* AMX-FP16: a Granite Rapids core, not a Golden Cove */
	memset(&f, 0, sizeof(f));
	snprintf(f.vendor, sizeof(f.vendor), "GenuineIntel");
	f.family = 6;
	f.model = 0xad;
	core_facts_set_flags(&f, "fpu avx2 avx512f amx_tile amx_fp16 avx512_fp16");
	CHECK(core_identify(&f, &id) && !strcmp(id.name, "Redwood Cove") && strstr(id.how, "is one"),
	      "AMX-FP16: %s", id.how);
	/* AVX2 alone tells no core: a model the table lacks gets no expectation */
	f.features = 0;
	core_facts_set_flags(&f, "avx2 hypervisor");
	f.model = 0x3f;
	CHECK(!core_identify(&f, &id) && !id.name[0] && id.l1_load_cycles == 0 && strstr(id.how, "unknown core"),
	      "unknown: %s", id.how);
	snprintf(f.vendor, sizeof(f.vendor), "HygonGenuine");
	CHECK(!core_identify(&f, &id) && id.l1_load_cycles == 0, "another vendor: no expectation");
	return test_done("core");
}
