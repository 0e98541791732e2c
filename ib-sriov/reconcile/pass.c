// SPDX-License-Identifier: Apache-2.0
/* What the agent's steps share (reconcile.h): the stop test, the grace,
 * whether a container still has a record, whether a pod is gone. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <string.h>
#include <sys/stat.h>

#include "release/release.h"
#include "reconcile.h"
#include "state/record_rdmans.h"
#include "state/state.h"

bool reconcile_stop(void)
{
	sigset_t pending;

	if (sigpending(&pending))
		return false;
	return sigismember(&pending, SIGTERM) == 1 || sigismember(&pending, SIGINT) == 1;
}

bool reconcile_gone(struct reconcile_pass *p, const struct ibsriov_record *r)
{
	int ret = ibsriov_pod_gone(p->sys, r);

	if (ret < 0)
		cni_netns_blind_note(&p->blind, r->netns, ret);
	return ret > 0;
}

bool reconcile_young(const struct reconcile_pass *p, int dirfd, const char *name, long *age)
{
	struct stat st;

	*age = 0;
	if (fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
		return true;
	*age = (long)(p->now - st.st_mtime);
	return *age < (long)p->o->grace;
}

static bool name_of(const char *id, const char *name, char sep)
{
	size_t n = strlen(id);

	return !strncmp(name, id, n) && name[n] == sep;
}

struct has_id {
	const char *id;
	bool found;
};

static int rdmans_has(int dirfd, const char *name, void *arg)
{
	struct has_id *h = arg;
	struct rdmans_record rec;

	(void)dirfd;
	/* Unreadable: it may be of id, so it counts (keep the lease). */
	if (rdmans_record_load(name, &rec) || !strcmp(rec.containerid, h->id))
		h->found = true;
	return h->found;
}

static int ibsriov_has(int dirfd, const char *name, void *arg)
{
	struct has_id *h = arg;

	(void)dirfd;
	h->found = name_of(h->id, name, ':');
	return h->found;
}

bool reconcile_has_record(const char *id)
{
	struct has_id h = {.id = id};

	/* A directory that cannot be listed may hold one. */
	if (cni_state_each(IBSRIOV_STATE_DIR, IBSRIOV_RECORDS_MAX, ibsriov_has, &h) < 0)
		return true;
	if (!h.found && cni_state_each(RDMANS_STATE_DIR, IBSRIOV_RECORDS_MAX, rdmans_has, &h) < 0)
		return true;
	return h.found;
}
