// SPDX-License-Identifier: Apache-2.0
/* `ib-sriov reconcile [--dry-run] [--grace SECONDS] [--every SECONDS]`: the
 * node agent. Multus forwards GC to the cluster network only, so ibcni's GC
 * never comes on a real node; the DaemonSet runs this every 60 s instead.
 * A pass: every ib-sriov record whose pod is gone (release/gone.c's test) is
 * released as a healing ADD releases it, under its VF lock; rdma-ns's
 * records by `rdma-ns reconcile` (rdmans.c); ib-host-local
 * leases only when the admin enables it (leases.c). A record
 * younger than the grace, or whose VF lock is held (an ADD or DEL in
 * progress), is left for the next pass. Every action is one log line
 * (stderr), every pass one summary line; a kill at any step leaves what
 * the next pass finishes (each release is DEL's, which is idempotent). A
 * mount view that cannot see the runtime's netns mounts releases nothing
 * there and says so in one line per directory and pass (kernel/netns.h). */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "release/release.h"
#include "base/cleanup.h"
#include "base/util.h"
#include "reconcile.h"
#include "state/lock.h"
#include "state/record_rdmans.h"
#include "state/state.h"

#define GRACE_DEFAULT	 120
#define SECONDS_MAX	 (7 * 24 * 3600)
#define LOCK_WAIT_MS	 200 /* a VF lock held longer is an ADD or DEL at work */
#define CNI_PATH_DEFAULT "/opt/cni/bin"

static const char usage[] =
    "usage: ib-sriov reconcile [--dry-run] [--grace SECONDS] [--every SECONDS]\n"
    "  release the attachments of pods gone without DEL (see docs/operators.md)\n";

static sigset_t stop_set;

/* Under the VF lock, the record as it is now (r): a DEL, or an ADD healing
 * it, may have released it since the listing. */
static void settle_locked(struct reconcile_pass *p, struct ibsriov_record *r)
{
	struct cni_error err = {0};

	if (!reconcile_gone(p, r)) {
		p->kept++;
	} else if (p->o->dry_run) {
		p->released++;
		log_info("would release %s of container %s (network %s, VF %s): its netns %s is "
			 "gone",
			 r->ifname, r->container_id, r->network, r->device, r->netns);
	} else if (ibsriov_release_gone(p->sys, r, NULL, p->cni_path, &err)) {
		p->kept++;
		log_warn("cannot release %s of container %s (VF %s, netns %s gone): %s: %s; the "
			 "next pass retries",
			 r->ifname, r->container_id, r->device, r->netns, err.msg, err.details);
	} else {
		p->released++;
		log_info("released %s of container %s (network %s, VF %s): its netns %s is gone "
			 "and DEL never came",
			 r->ifname, r->container_id, r->network, r->device, r->netns);
	}
}

/* One record whose pod is gone and older than the grace: its VF's lock
 * with a short wait, else left for the next pass; under it, the record
 * again as DEL and GC read it (ibsriov_record_hold). */
static void settle(struct reconcile_pass *p, const struct ibsriov_record *seen)
{
	struct cni_error err = {0};
	struct ibsriov_record r;
	int lock = ibsriov_record_hold(seen, LOCK_WAIT_MS, &r, &err);

	if (lock == -EAGAIN) {
		p->skipped++;
		log_info("skipped %s: VF %s is locked (an ADD or DEL at work)", seen->name,
			 seen->device);
		return;
	}
	if (lock == -ENOENT) {
		p->kept++;
		log_debug("%s was released by another since the listing", seen->name);
		return;
	}
	if (lock < 0) {
		p->kept++;
		log_warn("kept %s: %s: %s", seen->name, err.msg, err.details);
		return;
	}
	settle_locked(p, &r);
	ibsriov_record_clear(&r);
	cni_lock_release(lock);
}

static int one_record(int dirfd, const char *name, void *arg)
{
	struct reconcile_pass *p = arg;
	struct ibsriov_record r;
	long age;
	int got = ibsriov_record_load(name, &r);

	if (got == -ENOENT)
		return 0; /* released since the listing */
	p->records++;
	if (got) {
		/* Unreadable for good or for now: DEL's to judge, never ours. */
		p->kept++;
		log_debug("kept %s: cannot read it: %s", name, strerror(-got));
		return reconcile_stop();
	}
	if (!reconcile_gone(p, &r)) {
		p->kept++;
	} else if (reconcile_young(p, dirfd, name, &age)) {
		p->skipped++;
		log_info("skipped %s: its netns %s is gone, but the record is %lds old (grace %us)",
			 name, r.netns, age, p->o->grace);
	} else {
		settle(p, &r);
	}
	ibsriov_record_clear(&r);
	return reconcile_stop();
}

static int parse_secs(const char *opt, const char *s, unsigned int *out)
{
	uint64_t v;

	if (!s || parse_u64(s, 10, SECONDS_MAX, &v)) {
		fprintf(stderr, "ib-sriov reconcile: %s takes a number of seconds, 0 to %d\n%s",
			opt, SECONDS_MAX, usage);
		return -EINVAL;
	}
	*out = (unsigned int)v;
	return 0;
}

/* --grace N and --grace=N alike. */
static int parse_args(int argc, char **argv, struct reconcile_opts *o)
{
	o->grace = GRACE_DEFAULT;
	for (int i = 2; i < argc; i++) {
		const char *a = argv[i], *eq = strchr(a, '=');
		size_t n = eq ? (size_t)(eq - a) : strlen(a);
		unsigned int *secs = NULL;
		int ret;

		if (!strcmp(a, "--dry-run")) {
			o->dry_run = true;
			continue;
		}
		if (n == 7 && !strncmp(a, "--grace", n))
			secs = &o->grace;
		else if (n == 7 && !strncmp(a, "--every", n))
			secs = &o->every;
		if (!secs) {
			fprintf(stderr, "ib-sriov reconcile: unknown argument \"%s\"\n%s", a,
				usage);
			return -EINVAL;
		}
		ret = parse_secs(a, eq ? eq + 1 : (i + 1 < argc ? argv[++i] : NULL), secs);
		if (ret)
			return ret;
		if (secs == &o->every && !o->every) {
			fprintf(stderr, "ib-sriov reconcile: --every takes 1 second or more\n%s",
				usage);
			return -EINVAL;
		}
	}
	return 0;
}

static void self_dir(char *dir, size_t len)
{
	ssize_t n = readlink("/proc/self/exe", dir, len - 1);
	char *slash;

	dir[n > 0 ? n : 0] = '\0';
	slash = strrchr(dir, '/');
	if (slash)
		*slash = '\0';
	else
		copy_str(dir, len, CNI_PATH_DEFAULT);
}

static void run_pass(const struct reconcile_opts *o)
{
	_cleanup_sys_ struct cni_sys sys = CNI_SYS_INIT;
	struct reconcile_pass p = {.o = o, .sys = &sys, .now = time(NULL)};
	const char *env_path = getenv("CNI_PATH");
	int ret;

	self_dir(p.self_dir, sizeof(p.self_dir));
	p.cni_path = env_path && *env_path ? env_path : CNI_PATH_DEFAULT;
	ret = cni_state_each(IBSRIOV_STATE_DIR, IBSRIOV_RECORDS_MAX, one_record, &p);
	if (ret < 0 && ret != -ELOOP)
		log_warn("cannot list %s: %s", IBSRIOV_STATE_DIR, strerror(-ret));
	if (!reconcile_stop())
		reconcile_rdmans(&p);
	if (!reconcile_stop())
		reconcile_leases(&p);
	cni_netns_blind_report(&p.blind);
	log_info("reconcile: %u records, %s %u, kept %u, skipped %u (young/locked), leases "
		 "freed %u%s",
		 p.records, o->dry_run ? "would release" : "released", p.released, p.kept,
		 p.skipped, p.leases, o->dry_run ? " (dry run: nothing changed)" : "");
}

/* Until the next pass or a stop signal: false on a stop. */
static bool wait_next(unsigned int secs)
{
	struct timespec ts = {.tv_sec = secs};

	for (;;) {
		int sig = sigtimedwait(&stop_set, NULL, &ts);

		if (sig == SIGTERM || sig == SIGINT)
			return false;
		if (sig < 0 && errno == EAGAIN)
			return true;
		/* EINTR (another signal): wait the whole interval again. */
	}
}

int ibsriov_reconcile_main(int argc, char **argv)
{
	struct reconcile_opts o = {0};

	if (argc > 2 && (!strcmp(argv[2], "--help") || !strcmp(argv[2], "-h"))) {
		fputs(usage, stderr);
		return 0;
	}
	if (parse_args(argc, argv, &o))
		return 2;
	cni_log_setup("info", NULL);
	cni_log_context("ib-sriov", "reconcile", "", "");
	/* Blocked, so that a pass ends between two records and a wait at
	 * once; the exec'ed rdma-ns gets them unblocked. */
	sigemptyset(&stop_set);
	sigaddset(&stop_set, SIGTERM);
	sigaddset(&stop_set, SIGINT);
	sigprocmask(SIG_BLOCK, &stop_set, NULL);
	do {
		run_pass(&o);
	} while (o.every && !reconcile_stop() && wait_next(o.every));
	cni_log_close();
	return 0;
}
