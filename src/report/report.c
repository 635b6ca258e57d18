/* SPDX-License-Identifier: MIT */
/* report/report.c - the writer table and atomic report files. */
#include "report.h"

#include <libgen.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common.h"

const struct report_writer report_writers[] = {
	{ "text", "txt", report_write_text },
	{ "json", "json", report_write_json },
	{ "csv", "csv", report_write_csv },
	{ "mail", "mail", report_write_mail },
	{ "html", "html", report_write_html },
	{ "summary", "summary.json", report_write_summary },
};
const size_t report_writer_count = ARRAY_SIZE(report_writers);

const struct report_writer *report_writer_find(const char *name)
{
	for (size_t i = 0; i < report_writer_count; i++)
		if (!strcmp(report_writers[i].name, name))
			return &report_writers[i];
	return NULL;
}

/* The writer whose extension is the longest one that ends the path after a
 * dot ("x.summary.json" is a summary, "x.json" a full report). */
const struct report_writer *report_writer_for_path(const char *path)
{
	const struct report_writer *best = NULL;
	size_t plen = strlen(path);

	for (size_t i = 0; i < report_writer_count; i++) {
		size_t elen = strlen(report_writers[i].ext);

		if (plen > elen + 1 && path[plen - elen - 1] == '.' &&
		    !strcmp(path + plen - elen, report_writers[i].ext) &&
		    (!best || elen > strlen(best->ext)))
			best = &report_writers[i];
	}
	return best;
}

const char *report_writer_names(bool exts)
{
	static char buf[2][128];
	char *b = buf[exts];

	if (!b[0])
		for (size_t i = 0; i < report_writer_count; i++)
			snprintf(b + strlen(b), sizeof(buf[0]) - strlen(b), "%s%s%s", i ? ", " : "",
				 exts ? "." : "", exts ? report_writers[i].ext : report_writers[i].name);
	return b;
}

static void dir_of(const char *path, char *dir, size_t len)
{
	char tmp[PATH_MAX];

	snprintf(tmp, sizeof(tmp), "%s", path);
	snprintf(dir, len, "%s", dirname(tmp));
}

int report_check_path(const char *path, bool overwrite)
{
	char dir[PATH_MAX];
	struct stat st;

	dir_of(path, dir, sizeof(dir));
	if (stat(dir, &st) < 0 || !S_ISDIR(st.st_mode)) {
		pr_err("output: directory '%s' does not exist (create it, or choose another -o path)", dir);
		return -ENOENT;
	}
	if (access(dir, W_OK) < 0) {
		pr_err("output: directory '%s' is not writable (%s): choose another -o path", dir,
		       strerror(errno));
		return -EACCES;
	}
	if (!overwrite && access(path, F_OK) == 0) {
		pr_err("output: '%s' exists: a previous report is never overwritten (use --force, or another -o path)",
		       path);
		return -EEXIST;
	}
	return 0;
}

int report_write_atomic(const char *path, bool overwrite,
			int (*write)(void *arg, FILE *f), void *arg)
{
	char dir[PATH_MAX], tmp[PATH_MAX + 32];
	FILE *f;
	int fd, ret;

	ret = report_check_path(path, overwrite);
	if (ret < 0)
		return ret;
	dir_of(path, dir, sizeof(dir));
	snprintf(tmp, sizeof(tmp), "%s/.atomcost-XXXXXX", dir);
	fd = mkstemp(tmp);
	if (fd < 0) {
		ret = -errno;
		pr_err("output: cannot create a temporary file in '%s': %s", dir, strerror(errno));
		return ret;
	}
	fchmod(fd, 0644);
	f = fdopen(fd, "w");
	if (!f) {
		ret = -errno;
		close(fd);
		goto out_unlink;
	}
	errno = 0;
	ret = write(arg, f);
	if (ret < 0 || ferror(f)) {
		/* the writer's stdio flushes failed (ENOSPC, EIO): say so, once */
		int err = ferror(f) && errno ? errno : ret < 0 ? -ret : EIO;

		pr_err("output: writing '%s' failed: %s%s", path, strerror(err),
		       err == ENOSPC ? " (free some space, or choose another -o path)" : "");
		ret = -err;
		goto out_close;
	}
	if (fflush(f) == EOF || fsync(fileno(f)) < 0) {
		ret = -errno;
		pr_err("output: writing '%s' failed: %s (disk full?)", path, strerror(errno));
		goto out_close;
	}
	if (fclose(f) == EOF) {
		ret = -errno;
		pr_err("output: writing '%s' failed: %s", path, strerror(errno));
		goto out_unlink;
	}
	/* link() fails if path appeared meanwhile: no silent overwrite */
	if ((overwrite ? rename(tmp, path) : link(tmp, path)) < 0) {
		ret = -errno;
		pr_err("output: cannot %s '%s': %s", overwrite ? "rename to" : "create", path,
		       strerror(errno));
		goto out_unlink;
	}
	if (!overwrite)
		unlink(tmp);
	return 0;
out_close:
	fclose(f);
out_unlink:
	unlink(tmp);
	return ret;
}

struct writer_call {
	const struct report *rep;
	const struct report_writer *w;
};

static int call_writer(void *arg, FILE *f)
{
	const struct writer_call *c = arg;

	return c->w->write(c->rep, f);
}

int report_write_file(const struct report *rep, const struct report_writer *w,
		      const char *path, bool overwrite)
{
	struct writer_call c = { rep, w };

	return report_write_atomic(path, overwrite, call_writer, &c);
}
