/* SPDX-License-Identifier: MIT */
/* core.c - the core from CPUID facts (core.h): one table of core classes,
 * each with the features that tell it, the model numbers its real parts
 * carry and the L1 load-to-use its vendor publishes. */
#include "core.h"

#include <stdio.h>
#include <string.h>

#include "common.h"

static const char *const feature_names[CF__COUNT] = {
	[CF_HYPERVISOR] = "hypervisor", [CF_AVX2] = "avx2", [CF_AVX512F] = "avx512f",
	[CF_AVX512_VNNI] = "avx512_vnni", [CF_AVX512_VBMI2] = "avx512_vbmi2", [CF_AVX512_BF16] = "avx512_bf16",
	[CF_AVX512_FP16] = "avx512_fp16", [CF_AMX_TILE] = "amx_tile", [CF_AMX_FP16] = "amx_fp16",
	[CF_HYBRID] = "hybrid_cpu",
};

/* As the evidence says them. */
static const char *const feature_words[CF__COUNT] = {
	[CF_HYPERVISOR] = "hypervisor flag", [CF_AVX2] = "AVX2", [CF_AVX512F] = "AVX-512",
	[CF_AVX512_VNNI] = "AVX512-VNNI", [CF_AVX512_VBMI2] = "AVX512-VBMI2", [CF_AVX512_BF16] = "AVX512-BF16",
	[CF_AVX512_FP16] = "AVX512-FP16", [CF_AMX_TILE] = "AMX", [CF_AMX_FP16] = "AMX-FP16",
	[CF_HYBRID] = "hybrid",
};

void core_facts_set_flags(struct core_facts *f, const char *flags)
{
	size_t n;

	for (const char *p = flags; *p; p += n) {
		p += strspn(p, " \t");
		n = strcspn(p, " \t\n");
		for (unsigned k = 0; n && k < CF__COUNT; k++)
			if (strlen(feature_names[k]) == n && !strncmp(p, feature_names[k], n))
				f->features |= 1u << k;
		if (!n)
			break;
	}
}

#define F(x) (1u << CF_##x)
#define MODELS(...) { __VA_ARGS__, 0 }
#define INTEL_ORM "Intel 64 and IA-32 Architectures Optimization Reference Manual"

/* Model ranges as the Linux kernel names the parts (intel-family.h;
 * amd.c for Zen), lo << 8 | hi, the list ending at 0. */
#define R(lo, hi) ((lo) << 8 | (hi))
static const struct core_class {
	const char *name, *vendor;
	unsigned family;
	unsigned models[10];
	unsigned need, absent;	/* features */
	unsigned core_type;	/* a hybrid's core (leaf 0x1a), 0: any */
	bool model_required;	/* the features alone cannot tell it */
	double l1;		/* L1 load-to-use of a pointer chase */
	const char *l1_source;
} classes[] = {
	{ "Redwood Cove", "GenuineIntel", 6, MODELS(R(0xaa, 0xaa), R(0xac, 0xae)), F(AMX_TILE) | F(AMX_FP16), 0, 0,
	  false, 5, INTEL_ORM ": Redwood Cove, 48 KiB L1D, 5-cycle load-to-use" },
	/* Sapphire and Emerald Rapids (Raptor Cove: the same core's L1) */
	{ "Golden Cove", "GenuineIntel", 6, MODELS(R(0x8f, 0x8f), R(0xcf, 0xcf)), F(AMX_TILE) | F(AVX512_FP16),
	  F(AMX_FP16), 0, false, 5, INTEL_ORM ": Golden Cove, 48 KiB L1D, 5-cycle load-to-use" },
	/* Alder and Raptor Lake's P-cores */
	{ "Golden Cove", "GenuineIntel", 6, MODELS(R(0x97, 0x97), R(0x9a, 0x9a), R(0xb7, 0xb7), R(0xba, 0xba),
						   R(0xbf, 0xbf)), F(HYBRID), 0, 0x40, false, 5,
	  INTEL_ORM ": Golden Cove, 48 KiB L1D, 5-cycle load-to-use" },
	/* Ice Lake, Tiger Lake (Willow Cove), Rocket Lake (Cypress Cove) */
	{ "Sunny Cove", "GenuineIntel", 6, MODELS(R(0x6a, 0x6a), R(0x6c, 0x6c), R(0x7d, 0x7e), R(0x8c, 0x8d),
						  R(0xa7, 0xa8)), F(AVX512F) | F(AVX512_VBMI2), F(AMX_TILE), 0, false, 5,
	  INTEL_ORM ": Sunny Cove, 48 KiB L1D, 5-cycle load-to-use" },
	/* Skylake-SP, Cascade Lake, Cooper Lake */
	{ "Skylake", "GenuineIntel", 6, MODELS(R(0x55, 0x55)), F(AVX512F), F(AVX512_VBMI2), 0, false, 4,
	  INTEL_ORM ": Skylake, 4-cycle load-to-use (simple addressing)" },
	{ "Skylake", "GenuineIntel", 6, MODELS(R(0x4e, 0x4e), R(0x5e, 0x5e), R(0x8e, 0x8e), R(0x9e, 0x9e),
					       R(0xa5, 0xa6)), F(AVX2), F(AVX512F) | F(HYBRID), 0, true, 4,
	  INTEL_ORM ": Skylake, 4-cycle load-to-use (simple addressing)" },
	{ "Zen 5", "AuthenticAMD", 0x1a, MODELS(R(0x00, 0x2f), R(0x40, 0x4f), R(0x60, 0x7f)), F(AVX512F), 0, 0,
	  false, 4, "AMD SOG Zen 5 (58455): L1D integer load-to-use 4 cycles" },
	{ "Zen 4", "AuthenticAMD", 0x19, MODELS(R(0x10, 0x1f), R(0x60, 0xaf)), F(AVX512F), 0, 0, false, 4,
	  "AMD SOG Zen 4 (57647): L1D integer load-to-use 4 cycles" },
	{ "Zen 3", "AuthenticAMD", 0x19, MODELS(R(0x00, 0x0f), R(0x20, 0x5f)), 0, F(AVX512F), 0, false, 4,
	  "AMD SOG family 19h (56665): L1D integer load-to-use 4 cycles" },
	{ "Zen 2", "AuthenticAMD", 0x17, MODELS(R(0x30, 0xff)), F(AVX2), 0, 0, true, 4,
	  "AMD SOG family 17h models 30h+ (56305): L1D integer load-to-use 4 cycles" },
};

static bool model_in(const struct core_class *c, unsigned model)
{
	for (const unsigned *r = c->models; *r; r++)
		if (model >= *r >> 8 && model <= (*r & 0xff))
			return true;
	return false;
}

/* "AMX present, AMX-FP16 absent, 48 KiB L1D, 2 MiB L2" */
static void evidence(const struct core_class *c, const struct core_facts *f, char *buf, size_t len)
{
	size_t o = 0;

	buf[0] = '\0';
	for (unsigned k = 0; k < CF__COUNT && o < len; k++)
		if ((c->need | c->absent) & 1u << k)
			o += (size_t)snprintf(buf + o, len - o, "%s%s %s", o ? ", " : "", feature_words[k],
					      c->need & 1u << k ? "present" : "absent");
	if (c->core_type && o < len)
		o += (size_t)snprintf(buf + o, len - o, "%s%s core", o ? ", " : "", c->core_type == 0x40 ? "a Core" : "an Atom");
	if (f->l1d_kib && o < len)
		o += (size_t)snprintf(buf + o, len - o, "%s%u KiB L1D", o ? ", " : "", f->l1d_kib);
	if (f->l2_kib && o < len)
		snprintf(buf + o, len - o, f->l2_kib % 1024 ? "%s%u KiB L2" : "%s%u MiB L2", o ? ", " : "",
			 f->l2_kib % 1024 ? f->l2_kib : f->l2_kib / 1024);
}

bool core_identify(const struct core_facts *f, struct core_id *id)
{
	char ev[160];

	memset(id, 0, sizeof(*id));
	for (size_t i = 0; i < ARRAY_SIZE(classes); i++) {
		const struct core_class *c = &classes[i];
		bool real = model_in(c, f->model);

		if (strcmp(c->vendor, f->vendor) || c->family != f->family || (f->features & c->need) != c->need ||
		    f->features & c->absent || (c->core_type && c->core_type != f->core_type) ||
		    (c->model_required && !real))
			continue;
		evidence(c, f, ev, sizeof(ev));
		snprintf(id->name, sizeof(id->name), "%s", c->name);
		if (real)
			snprintf(id->how, sizeof(id->how), "%s: family %u model %u (0x%02x) is one, and %s", c->name,
				 f->family, f->model, f->model, ev[0] ? ev : "no feature says otherwise");
		else
			snprintf(id->how, sizeof(id->how), "%s-class: %s; model %u (0x%02x) is no %s part's: %s",
				 c->name, ev, f->model, f->model, c->name,
				 f->features & F(HYPERVISOR) ? "the hypervisor's" : "unexplained");
		id->l1_load_cycles = c->l1;
		id->l1_source = c->l1_source;
		return true;
	}
	snprintf(id->how, sizeof(id->how), "unknown core: %s family %u model %u matches no class of src/model/core.c%s",
		 f->vendor[0] ? f->vendor : "no CPUID vendor", f->family, f->model,
		 f->features & F(HYPERVISOR) ? " (a hypervisor's model number?)" : "");
	return false;
}
