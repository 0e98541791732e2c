// SPDX-License-Identifier: Apache-2.0
/* `rdma-ns reconcile [--dry-run] [--grace SECONDS]`: one pass of the node
 * agent over rdma-ns's records (ib-sriov reconcile runs it from its own
 * directory). A record whose pod is gone (its netns path no longer exists,
 * in a directory that shows this mount view the runtime's namespace
 * mounts: cni_netns_gone, or it now names another namespace than the one
 * ADD recorded) and that is older than the grace is
 * released as DEL releases it: the kernel gave the devices back with the
 * namespace, the record goes. Actions are log lines on stderr; the pass's
 * counts one line on stdout, which ib-sriov reconcile adds to its own. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "base/cleanup.h"
#include "base/util.h"
#include "kernel/netns.h"
#include "rdmans.h"
#include "state/state.h"

#define GRACE_DEFAULT 120
#define SECONDS_MAX   (7 * 24 * 3600)
#define MAX_ENTRIES   65536

static const char usage[] = "usage: rdma-ns reconcile [--dry-run] [--grace SECONDS]\n";

struct pass {
	struct cni_sys *sys;
	bool dry_run;
	unsigned int grace;
	time_t now;
	unsigned int records, released, kept, skipped;
	struct cni_netns_blind blind; /* said once, at the pass's end */
};

static bool young(const struct pass *p, int dirfd, const char *name, long *age)
{
	struct stat st;

	*age = 0;
	if (fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
		return true;
	*age = (long)(p->now - st.st_mtime);
	return *age < (long)p->grace;
}

static void release(struct pass *p, const char *name, const struct rdmans_record *rec, bool other)
{
	struct cni_error err = {0};

	if (p->dry_run) {
		p->released++;
		log_info("would release %s: its netns %s is gone%s", name, rec->netns,
			 other ? " (another namespace is there now)" : "");
	} else if (rdmans_release(p->sys, name, rec, &err)) {
		p->kept++;
		log_warn("cannot release %s: %s: %s; the next pass retries", name, err.msg,
			 err.details);
	} else {
		p->released++;
		log_info("released %s (device %s): its netns %s is gone and DEL never came", name,
			 rec->deviceid, rec->netns);
	}
}

/* The path is a namespace, but not the one ADD recorded (a recycled
 * /proc/<pid>/ns/net): the pod's is gone as surely as an absent path. */
static bool replaced(struct pass *p, const struct rdmans_record *rec)
{
	struct cni_netns_id found;
	int fd = -1, ret = rdmans_open_recorded(p->sys, rec, &fd, &found);

	if (fd >= 0)
		close(fd);
	return ret == RDMANS_NETNS_REPLACED;
}

static int one(int dirfd, const char *name, void *arg)
{
	struct pass *p = arg;
	struct rdmans_record rec;
	long age;
	int got = rdmans_record_load(name, &rec), gone;
	bool other = false;

	if (got == -ENOENT)
		return 0;
	p->records++;
	/* Unreadable, or no path recorded: nothing tells, so it is kept. */
	gone = got || !(rec.has & RDMANS_REC_HAS_NETNS) ? 0 : cni_netns_gone(rec.netns);
	if (gone == 0 && !got && replaced(p, &rec)) {
		other = true;
		gone = 1;
	}
	if (gone < 0 && !cni_netns_blind_note(&p->blind, rec.netns, gone))
		log_warn("cannot tell whether netns %s of %s is gone (%s): kept", rec.netns, name,
			 strerror(-gone));
	if (gone <= 0) {
		p->kept++;
	} else if (young(p, dirfd, name, &age)) {
		p->skipped++;
		log_info("skipped %s: its netns %s is gone, but the record is %lds old (grace %us)",
			 name, rec.netns, age, p->grace);
	} else {
		release(p, name, &rec, other);
	}
	return 0;
}

static int parse_args(int argc, char **argv, struct pass *p)
{
	p->grace = GRACE_DEFAULT;
	for (int i = 2; i < argc; i++) {
		const char *a = argv[i], *v = NULL;
		uint64_t n;

		if (!strcmp(a, "--dry-run")) {
			p->dry_run = true;
			continue;
		}
		if (!strncmp(a, "--grace=", 8))
			v = a + 8;
		else if (!strcmp(a, "--grace") && i + 1 < argc)
			v = argv[++i];
		if (!v || parse_u64(v, 10, SECONDS_MAX, &n)) {
			fprintf(stderr, "rdma-ns reconcile: bad argument \"%s\"\n%s", a, usage);
			return -EINVAL;
		}
		p->grace = (unsigned int)n;
	}
	return 0;
}

int rdmans_reconcile_main(int argc, char **argv)
{
	_cleanup_sys_ struct cni_sys sys = CNI_SYS_INIT;
	struct pass p = {.sys = &sys, .now = time(NULL)};
	int ret;

	if (parse_args(argc, argv, &p))
		return 2;
	cni_log_setup("info", NULL);
	cni_log_context("rdma-ns", "reconcile", "", "");
	ret = cni_state_each(RDMANS_STATE_DIR, MAX_ENTRIES, one, &p);
	if (ret < 0 && ret != -ELOOP)
		log_warn("cannot list %s: %s", RDMANS_STATE_DIR, strerror(-ret));
	cni_netns_blind_report(&p.blind);
	printf("reconcile: %u records, released %u, kept %u, skipped %u (young/locked)\n",
	       p.records, p.released, p.kept, p.skipped);
	cni_log_close();
	return fflush(stdout) ? 1 : 0;
}
