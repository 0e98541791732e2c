/* SPDX-License-Identifier: Apache-2.0 */
/* The fixture of the ib-host-local unit tests (test_store.c, test_index.c,
 * test_alloc.c): a real temporary store "net" under data, open in st, and
 * the helpers that write into it or lease from it. */
#ifndef IBCNI_TEST_IPAM_FIXTURE_H
#define IBCNI_TEST_IPAM_FIXTURE_H

#include <criterion/criterion.h>
#include <arpa/inet.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "alloc.h"
#include "base/util.h"
#include "helpers.h"
#include "store.h"

static char data[64];

static struct ipam_store st;

static inline void setup(void)
{
	struct cni_error err = {0};

	make_tmpdir(data, sizeof(data));
	cr_assert_eq(ipam_store_open(&st, data, data, "net", true, &err), 0, "%s", err.details);
}

static inline void teardown(void)
{
	ipam_store_close(&st);
	rm_tree(data);
}

static inline struct cni_addr ip(const char *s)
{
	struct cni_addr a;

	cr_assert(cni_addr_parse(s, &a), "%s", s);
	return a;
}

/* A set from "subnet[,subnet...]" with default bounds. */
static inline struct ipam_rangeset set_of(const char *subnets)
{
	static struct ipam_range r[4];
	char buf[256], why[256], *save = NULL;
	size_t n = 0;

	snprintf(buf, sizeof(buf), "%s", subnets);
	for (char *s = strtok_r(buf, ",", &save); s; s = strtok_r(NULL, ",", &save))
		cr_assert_eq(ipam_range_parse(&r[n++],
					      &(struct ipam_range_spec){s, NULL, NULL, NULL}, why,
					      sizeof(why)),
			     0, "%s", why);
	return (struct ipam_rangeset){r, n};
}

static inline void write_file(const char *name, const char *content)
{
	char path[256];
	int fd;

	snprintf(path, sizeof(path), "%s/net/%s", data, name);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	cr_assert(fd >= 0);
	cr_assert_eq(write(fd, content, strlen(content)), (ssize_t)strlen(content));
	close(fd);
}

static inline char *alloc_str(const struct ipam_rangeset *s, const char *id, const char *want,
			      struct cni_error *err)
{
	static char out[64];
	struct cni_ip got;
	struct cni_addr w;

	if (want)
		w = ip(want);
	memset(err, 0, sizeof(*err));
	if (ipam_alloc(&st, &(struct ipam_request){s, 0, id, "eth0", want ? &w : NULL, false}, &got,
		       err))
		return NULL;
	cni_prefix_str(&got.address, out, sizeof(out));
	return out;
}

static inline char *path_in(const char *rel)
{
	static char buf[4][256];
	static int i;

	i = (i + 1) % 4;
	snprintf(buf[i], sizeof(buf[i]), "%s/%s", data, rel);
	return buf[i];
}

static inline bool exists(const char *rel)
{
	struct stat sb;

	return lstat(path_in(rel), &sb) == 0;
}

#endif
