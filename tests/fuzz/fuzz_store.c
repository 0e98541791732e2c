// SPDX-License-Identifier: Apache-2.0
/* ib-host-local's lease directory as a planted one may look: NUL-separated
 * contents of the lease of 10.1.2.3, of fd00::1 (an empty part: no file),
 * of last_reserved_ip.0, and of every owner index file. The store is opened
 * (the index rebuilt from the leases), listed and queried by owner, then
 * the index files are overwritten and the store is queried again. The index
 * is removed before the first open: a foreign writer within one timestamp
 * tick goes unnoticed by design (README), and this harness writes faster. */
#include <errno.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fuzz.h"
#include "store.h"
#include "base/util.h"

static char data_dir[4096], dir[4096], idx[4096];
static const char *index_text;

static void open_store(struct ipam_store *s);

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	struct ipam_store s;

	cni_log_setup("panic", NULL);
	if (check_snprintf(data_dir, sizeof(data_dir), "%s/data", fuzz_tmpdir()) ||
	    check_snprintf(dir, sizeof(dir), "%s/net", data_dir) ||
	    check_snprintf(idx, sizeof(idx), "%s/%s", data_dir, IPAM_INDEX_DIR))
		abort();
	open_store(&s); /* creates the directories */
	ipam_store_close(&s);
	return 0;
}

static void open_store(struct ipam_store *s)
{
	struct cni_error err = {0};

	/* Planted lease contents must never make the directory unusable. */
	if (ipam_store_open(s, data_dir, data_dir, "net", true, &err)) {
		fprintf(stderr, "ipam_store_open: %s: %s\n", err.msg, err.details);
		abort();
	}
}

static void put(const char *name, const char *text)
{
	char path[4096];

	if (*text) {
		fuzz_write(dir, name, text, strlen(text));
		return;
	}
	if (check_snprintf(path, sizeof(path), "%s/%s", dir, name) ||
	    (unlink(path) && errno != ENOENT))
		abort();
}

/* Every address owned() returns is leased to that owner (or legacy id). */
static void owned(struct ipam_store *s, const char *id, const char *ifname,
		  const struct cni_addr *must)
{
	struct cni_addr *ips;
	bool legacy, found = !must;
	size_t n;

	if (ipam_store_owned(s, id, ifname, &ips, &n, &legacy))
		abort();
	for (size_t i = 0; i < n; i++) {
		struct ipam_lease l;

		if (ipam_store_lease(s, &ips[i], &l) || !l.id || strcmp(l.id, id) ||
		    (legacy ? !!l.ifname : !l.ifname || strcmp(l.ifname, ifname)))
			abort();
		ipam_lease_clear(&l);
		found |= must && ips[i].family == must->family &&
			 !memcmp(ips[i].a, must->a, sizeof(must->a));
	}
	if (!found)
		abort();
	free(ips);
}

static int tamper(const char *path, const struct stat *st, int type, struct FTW *f)
{
	const char *base = path + f->base;

	if (type == FTW_F && strcmp(base, "token") && strncmp(base, ".", 1))
		fuzz_write(strndupa(path, (size_t)f->base - 1), base, index_text,
			   strlen(index_text));
	return 0;
}

static int rm(const char *path, const struct stat *st, int type, struct FTW *f)
{
	if (f->level && remove(path))
		abort();
	return 0;
}

static void query(struct ipam_store *s, bool fresh)
{
	struct ipam_lease *leases;
	struct cni_addr last;
	size_t n;

	if (ipam_store_list(s, &leases, &n))
		abort();
	/* The ifname "x\n" can never be parsed from a lease (it is trimmed). */
	for (size_t i = 0; i < n; i++)
		if (leases[i].id)
			owned(s, leases[i].id, leases[i].ifname ? leases[i].ifname : "x\n",
			      fresh ? &leases[i].ip : NULL);
	ipam_leases_free(leases, n);
	owned(s, "c1", "eth0", NULL);
	ipam_store_last_reserved(s, 0, &last);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *p[4];
	char *copy = fuzz_split(data, size, p, 4);
	struct ipam_store s;

	put("10.1.2.3", p[0]);
	put("fd00::1", p[1]);
	put("last_reserved_ip.0", p[2]);
	nftw(idx, rm, 8, FTW_PHYS | FTW_DEPTH);
	open_store(&s);
	query(&s, true);
	ipam_store_close(&s);
	if (*p[3]) {
		index_text = p[3];
		nftw(idx, tamper, 8, FTW_PHYS);
		open_store(&s);
		query(&s, false);
		ipam_store_close(&s);
	}
	free(copy);
	return 0;
}
