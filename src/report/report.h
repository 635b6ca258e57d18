/* SPDX-License-Identifier: MIT */
/* report.h - report writers (one per format, behind one table) and the
 * atomic file writer. Writers read a struct report; they never measure. */
#ifndef ATOMCOST_REPORT_H
#define ATOMCOST_REPORT_H

#include <stdbool.h>
#include <stdio.h>

#include "result.h"

#define REPORT_SCHEMA "atomcost-report/1"

struct report_writer {
	const char *name;	/* --format value */
	const char *ext;	/* file extension */
	int (*write)(const struct report *rep, FILE *f);
};

const struct report_writer *report_writer_find(const char *name);
/* NULL when the extension is unknown. */
const struct report_writer *report_writer_for_path(const char *path);
extern const struct report_writer report_writers[];
extern const size_t report_writer_count;
/* "text, json, csv, mail, html" (exts: ".txt, .json, ..."), for messages. */
const char *report_writer_names(bool exts);

int report_write_text(const struct report *rep, FILE *f);
int report_write_json(const struct report *rep, FILE *f);
int report_write_csv(const struct report *rep, FILE *f);
int report_write_mail(const struct report *rep, FILE *f);
int report_write_html(const struct report *rep, FILE *f);
/* fprintf for an HTML page, with every %s argument escaped: markup goes in
 * the format, never in an argument. Conversions: %s, %d, %u, %zu, %lld,
 * %%, and %f or %g with any flags. */
void __attribute__((format(printf, 2, 3))) report_htmlf(FILE *f, const char *fmt, ...);
/* A CSV field (RFC 4180: quoted when it holds a comma, quote or newline). */
void report_csv_str(FILE *f, const char *s);
/* The summary JSON without samples (report/summary.c): reference cards. */
int report_write_summary(const struct report *rep, FILE *f);
/* text word-wrapped at 72 columns, each line after prefix; _wrapf formats
 * it first (at most 700 characters). */
void report_mail_wrap(FILE *f, const char *prefix, const char *text);
void __attribute__((format(printf, 3, 4))) report_mail_wrapf(FILE *f, const char *prefix, const char *fmt, ...);
/* jansson flags of report_write_json (the golden test dumps with them). */
#define REPORT_JSON_FLAGS (JSON_INDENT(1) | JSON_REAL_PRECISION(10))

json_t *report_to_json(const struct report *rep);
/* v as a JSON number, or null where it is not finite (never 0). */
json_t *report_real(double v);
/* Read a JSON report back (for compare and report). 0 or -errno. */
int report_read(const char *path, struct report *rep);
/* rep->fp from meta.fingerprint, once it is set: with clock, after its
 * core and timer frequencies are recorded there (fingerprint_set_clock).
 * 0 or -ENOMEM. */
int report_fingerprint(struct report *rep, const struct calibration *clock);

/* Write through a temporary file, fsync, rename: a reader never sees a
 * half-written report. An existing file is kept unless overwrite: -EEXIST. */
int report_write_file(const struct report *rep, const struct report_writer *w,
		      const char *path, bool overwrite);

/* The same for any content: write(arg, f) fills the temporary file. */
int report_write_atomic(const char *path, bool overwrite,
			int (*write)(void *arg, FILE *f), void *arg);

/* Check up front that path's directory is writable: a long run must not
 * end in a lost report. */
int report_check_path(const char *path, bool overwrite);

#endif
