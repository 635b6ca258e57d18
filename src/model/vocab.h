/* SPDX-License-Identifier: MIT */
/* vocab.h - the enums that results, sections and writers speak, with their
 * names and parsers. The engines' headers include this one, never the reverse. */
#ifndef ATOMCOST_VOCAB_H
#define ATOMCOST_VOCAB_H

#include <stddef.h>

/* names[i], "?" past n; the index of s among names[0..n), -EINVAL when
 * none (s NULL too): every name and parser here is one of the two. */
const char *vocab_name(const char *const *names, size_t n, unsigned i);
int vocab_index(const char *const *names, size_t n, const char *s);

enum atomicity {
	ATOMICITY_BASELINE,	/* reference loop, not a primitive */
	ATOMICITY_ATOMIC,	/* atomic against every CPU */
	ATOMICITY_LOCAL,	/* atomic only against this CPU (irq/preempt) */
	ATOMICITY_NONATOMIC,	/* plain read-modify-write */
};

enum probe_mode {
	MODE_LATENCY,		/* each op depends on the previous op */
	MODE_THROUGHPUT,	/* independent ops on different hot lines */
	MODE__COUNT,
};

const char *probe_mode_name(enum probe_mode m);
/* "latency"/"lat", "throughput"/"tput". The parsers say nothing: the
 * caller names the context in its message. */
int probe_mode_parse(const char *s, enum probe_mode *out);
const char *probe_atomicity_name(enum atomicity a);

/* Classes of PU pairs, closest first. */
enum pair_class {
	PAIR_SMT,	/* same core (SMT siblings) */
	PAIR_L2,	/* different cores sharing an L2 */
	PAIR_L3,	/* sharing an L3 (last level) but not an L2 */
	PAIR_NUMA,	/* same NUMA node, no shared cache */
	PAIR_PACKAGE,	/* same package, different NUMA node */
	PAIR_CROSS,	/* different packages */
	PAIR__COUNT,
};

const char *topo_pair_class_name(enum pair_class c);
int topo_pair_class_parse(const char *s, enum pair_class *out);

/* How c2c moves a line between two PUs (c2c.h says what each does). */
enum c2c_method { C2C_CMPXCHG, C2C_LOADSTORE, C2C_FLAGACK, C2C__COUNT };

/* "load-store", its JSON key "load_store", and what one round trip moves. */
const char *c2c_method_name(enum c2c_method m);
const char *c2c_method_key(enum c2c_method m);
const char *c2c_method_transfers(enum c2c_method m);
/* What the load-store round trip moved on this machine, from a store and
 * fence timed right after the read miss against the same on a local line
 * (ticks, medians) and the round trip's median: its transfers text when
 * the store's extra cost is under C2C_EXCLUSIVE_MAX of a one-way transfer
 * (the read miss took the line exclusive, read-for-ownership) or over
 * C2C_UPGRADE_MIN of one (the store upgraded a shared line); NULL when
 * not measured or in between (c2c_method_transfers then says both). */
#define C2C_EXCLUSIVE_MAX 0.2
#define C2C_UPGRADE_MIN 0.6
const char *c2c_loadstore_seen(double store_after_read, double store_local, double round_trip);
/* "cmpxchg,load-store" (any subset) into 1u << C2C_*; -EINVAL, said. */
int c2c_parse_methods(const char *s, unsigned *mask);

/* What the threads of a contention case share (contention.h). */
enum sharing {
	SHARING_TRUE,	/* every thread on the same word */
	SHARING_FALSE,	/* each thread its own word, all in one line */
	SHARING_NONE,	/* each thread its own line (own page) */
	SHARING__COUNT,
};

/* "true", "false", "none" (command line) and the result pattern names. */
const char *contention_sharing_name(enum sharing s);
const char *contention_sharing_pattern(enum sharing s);
/* "true,false,none" (any subset; NULL: all) into 1u << SHARING_*; -EINVAL, said. */
int contention_parse_sharing(const char *list, unsigned *mask);

/* What the kernel does to a split lock (splitlock.h). */
enum splitlock_mode {
	SPLITLOCK_UNDETECTED,	/* the CPU (as the kernel sees it) cannot detect split locks */
	SPLITLOCK_OFF,		/* detection turned off on the command line */
	SPLITLOCK_WARN,		/* warn (and, with split_lock_mitigate, slow the task) */
	SPLITLOCK_FATAL,	/* SIGBUS */
	SPLITLOCK_RATELIMIT,	/* bus locks limited to N per second per task */
};

const char *splitlock_mode_name(enum splitlock_mode m);

#endif
