/* SPDX-License-Identifier: MIT */
/* report/jtable.h - the codec's field tables (json.c, summary.c): a
 * struct's members, kinds and keys, walked to write a document and to read
 * it back (a jansson tree, or jscan.h's tokens). A key is written when its
 * bit in the object's has is set; read, it sets the bit. */
#ifndef ATOMCOST_JTABLE_H
#define ATOMCOST_JTABLE_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "common.h"
#include "compare-n.h"
#include "jscan.h"

enum jkind {
	JK_INT,		/* int or long long, by size */
	JK_INTN,	/* long long, null when negative */
	JK_REAL,
	JK_BOOL,	/* bool, or an int (-1: not said), by size */
	JK_STR,		/* char[size] */
	JK_STRN,	/* the same, null when "" */
	JK_OBJ,		/* a struct of table sub (its has first) */
	JK_OBJN,	/* the same, null when its has is 0 (without has: its first member, a pointer, NULL) */
	JK_PSTR,	/* const char *, null when NULL; read: owned (jtable_free) */
	JK_POS,		/* double, null unless finite and above 0; read as JK_REAL (null: 0) */
	JK_REALN,	/* double, null when not finite; the same */
	JK_HOOK,	/* by the field's hook */
	JK_STRS,	/* char[max][size] strings, count at cnt */
	JK_INTS,	/* size_t *, owned, count at cnt; max: size_t[max] in place */
	JK_REALS,	/* double *, the same */
	JK_OBJS,	/* an owned array of table sub's structs, the same */
	JK_MATRIX,	/* double *, owned, n * n (n at cnt) as n rows; NAN: null */
};

/* A member written and read by functions: put gets the member and what
 * jtable_json was given (NULL: the key is left out), get reads the value
 * into the member (NULL: skipped). */
struct jhook {
	json_t *(*put)(const void *m, const void *root);
	int (*get)(struct jscan *s, void *m);
};

struct jtable;
struct jfield {
	const char *key;
	enum jkind kind;
	size_t off, size, cnt, max;
	const struct jtable *sub;
	size_t csize;		/* an array's count: a size_t, or an unsigned */
	bool opt;		/* an array left out when it has no items */
	const struct jhook *hook;
};
struct jtable {
	const struct jfield *f;
	size_t n, size;
	bool has;		/* the struct starts with its has bits */
};

#define JF(type, m, kind, key) { key, kind, offsetof(type, m), sizeof(((type *)0)->m), 0, 0, NULL, 0, false, NULL }
#define JTABLE(f, type) { f, ARRAY_SIZE(f), sizeof(type), true }
#define JPLAIN(f, type) { f, ARRAY_SIZE(f), sizeof(type), false }
/* a member's table, unnamed (a compound literal): its fields f, its size,
 * whether it starts with its has bits */
#define JT(f, size, has) (&(const struct jtable){ f, ARRAY_SIZE(f), size, has })
#define JSUB(type, m, kind, key, f) { key, kind, offsetof(type, m), sizeof(((type *)0)->m), 0, 0, \
				      JT(f, sizeof(((type *)0)->m), true), 0, false, NULL }
/* an object whose keys go to members of the same struct */
#define JFLAT(key, f) { key, JK_OBJ, 0, 0, 0, 0, JT(f, 0, false), 0, false, NULL }
/* an owned array at m, its count at n; JARR: of structs of fields f, count in n##m */
#define JA(type, m, n, kind, key, t) { key, kind, offsetof(type, m), 0, offsetof(type, n), 0, t, \
				       sizeof(((type *)0)->n), false, NULL }
#define JARR(type, m, key, f) JA(type, m, n##m, JK_OBJS, key, JT(f, sizeof(*((type *)0)->m), true))
/* an array in place, its count at n; JIN: under its own name, count in n##m;
 * JINS: of structs of fields f */
#define JAIN(type, m, n, kind, key, t) { key, kind, offsetof(type, m), sizeof(((type *)0)->m[0]), \
					 offsetof(type, n), ARRAY_SIZE(((type *)0)->m), t, sizeof(((type *)0)->n), \
					 false, NULL }
#define JIN(type, m, kind, t) JAIN(type, m, n##m, kind, #m, t)
#define JINS(type, m, f) JIN(type, m, JK_OBJS, JT(f, sizeof(((type *)0)->m[0]), true))

/* a member under its own name */
#define JM(type, m, kind) JF(type, m, kind, #m)

/* a hook for the keys of one object its table does not have: 1 read, 0
 * not its key (skipped), -errno */
typedef int (*jtable_other)(struct jscan *s, const char *key, void *ctx);
/* An object's members into p by t, the keys t has not to other (when
 * given); a value not an object is skipped. 0 or -errno. */
int jtable_scan(const struct jtable *t, struct jscan *s, void *p, jtable_other other, void *ctx);
/* A string into m (size bytes), "" when the value is none. */
int jtable_str(struct jscan *s, char *m, size_t size);
/* A typed section of the report (hierarchy, splitlock, c2c) into its
 * member of d: 1 read, 0 key is none, -errno. */
int jtable_section(struct jscan *s, const char *key, struct compare_n_doc *d);
/* p as its table writes it; hooks get p. */
json_t *jtable_json(const struct jtable *t, const void *p);
/* Free what jtable_scan allocated in p (strings, arrays), not p. */
void jtable_free(const struct jtable *t, void *p);
/* Room for one more of *n items of each bytes at *a (capacity *cap). */
int jtable_grow(void *a, size_t n, size_t *cap, size_t each);

#endif
