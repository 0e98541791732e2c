/* SPDX-License-Identifier: Apache-2.0 */
/* Shared assertions and fixtures for the Criterion unit tests. */
#ifndef TESTS_UNIT_HELPERS_H
#define TESTS_UNIT_HELPERS_H

#include <criterion/criterion.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/error.h"

/* An error with the exact code and message. */
#define assert_cni_error(e, c, m)                                                                  \
	do {                                                                                       \
		cr_assert_eq((e)->code, (c), "code %d, want %d (msg \"%s\": %s)", (e)->code, (c),  \
			     (e)->msg, (e)->details);                                              \
		cr_assert_str_eq((e)->msg, (m));                                                   \
	} while (0)

/* Where tests/fixtures lives (run.sh exports it). */
static inline const char *fixtures_dir(void)
{
	const char *d = getenv("IBCNI_FIXTURES");

	return d ? d : "tests/fixtures";
}

/* A fresh temporary directory; the path is static per call site. */
static inline char *make_tmpdir(char *buf, size_t len)
{
	snprintf(buf, len, "/tmp/ibcni-unit.XXXXXX");
	cr_assert_not_null(mkdtemp(buf));
	return buf;
}

/* Remove a tree made by a test (best effort). */
static inline void rm_tree(const char *dir)
{
	char cmd[512];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	if (system(cmd) != 0)
		cr_log_warn("could not remove %s", dir);
}

/* Test trees under base: a directory (with parents), a file holding text,
 * a symbolic link. Each asserts that it worked. */
static inline void tree_mkdir(const char *base, const char *rel)
{
	char cmd[600];

	snprintf(cmd, sizeof(cmd), "mkdir -p '%s/%s'", base, rel);
	cr_assert_eq(system(cmd), 0, "%s", cmd);
}

static inline void tree_put(const char *base, const char *rel, const char *text)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", base, rel);
	f = fopen(path, "w");
	cr_assert_not_null(f, "%s", path);
	cr_assert_geq(fputs(text, f), 0, "%s", path);
	fclose(f);
}

static inline void tree_link(const char *base, const char *target, const char *rel)
{
	char path[512];

	snprintf(path, sizeof(path), "%s/%s", base, rel);
	cr_assert_eq(symlink(target, path), 0, "%s", path);
}

/* The number of descriptors this process has open. */
static inline int open_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	int n = -3; /* ".", ".." and the stream's own */

	cr_assert_not_null(d);
	while (readdir(d))
		n++;
	closedir(d);
	return n;
}

#endif
