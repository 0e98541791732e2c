// SPDX-License-Identifier: Apache-2.0
/* The doctor's attachments: our records, ib-sriov-cni's caches and
 * rdma-ns's records, each read through its record module, each listing
 * through cni_state_each; a leftover attachment is a finding. */
#include <errno.h>
#include <fcntl.h>
#include <linux/magic.h>
#include <stdio.h>
#include <string.h>
#include <sys/vfs.h>

#include "base/cleanup.h"
#include "doctor.h"
#include "ibsriov.h"
#include "state/record_rdmans.h"
#include "state/state.h"

/* One attachment as the report shows it. */
struct attachment {
	const char *file, *network, *id, *ifname, *device, *netns;
	bool gone;
};

/* A netns path whose namespace is gone: absent, or the plain file an
 * unmounted bind leaves. Anything we cannot tell is not called gone. */
static bool netns_gone(const char *path)
{
	_cleanup_close_ int fd = -1;
	struct statfs sfs;

	if (!path || !*path)
		return false;
	fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	if (fd < 0)
		return errno == ENOENT;
	return fstatfs(fd, &sfs) == 0 && sfs.f_type != NSFS_MAGIC;
}

static struct json_object *attachment_json(const struct attachment *a)
{
	struct json_object *o = json_object_new_object();

	doctor_put(o, "file", doctor_str(a->file));
	doctor_put(o, "network", doctor_str(a->network));
	doctor_put(o, "containerID", doctor_str(a->id));
	doctor_put(o, "ifname", doctor_str(a->ifname));
	doctor_put(o, "deviceID", doctor_str(a->device));
	doctor_put(o, "netns", doctor_str(a->netns));
	doctor_put(o, "netnsGone", json_object_new_boolean(a->gone));
	return o;
}

static void leftover(struct doctor *d, const char *plugin, const struct attachment *a)
{
	const char *network = "(unknown)", *netns = "(not recorded)";
	char fix[768];

	if (a->network && *a->network)
		network = a->network;
	if (a->netns && *a->netns)
		netns = a->netns;
	snprintf(
	    fix, sizeof(fix),
	    "the runtime's CNI GC of network %s releases it; or run DEL by hand: "
	    "CNI_COMMAND=DEL CNI_CONTAINERID=%s CNI_IFNAME=%s CNI_NETNS= CNI_PATH=/opt/cni/bin "
	    "/opt/cni/bin/%s < (the network's config)",
	    network, a->id, a->ifname, plugin);
	doctor_finding(d, "warning", a->file, fix,
		       "leftover attachment %s/%s of %s: its network namespace %s is gone, so its "
		       "VF or RDMA device is held for a pod that no longer exists",
		       a->id, a->ifname, plugin, netns);
}

/* What a listing's callback gets. */
struct scan {
	struct doctor *d;
	struct json_object *arr;
};

/* Our records: netns recorded, so a gone one is certain. */
static int record_ours(int dirfd, const char *name, void *arg)
{
	struct scan *s = arg;
	struct ibsriov_record r;
	struct attachment a;
	char path[PATH_MAX];

	(void)dirfd;
	snprintf(path, sizeof(path), "%s/%s", IBSRIOV_STATE_DIR, name);
	if (ibsriov_record_load(name, &r)) {
		doctor_finding(s->d, "warning", path,
			       "look at it, then remove it (it is not one ib-sriov wrote)",
			       "unreadable ib-sriov record");
		return 0;
	}
	a = (struct attachment){path,	  r.network, r.container_id,	 r.ifname,
				r.device, r.netns,   netns_gone(r.netns)};
	json_object_array_add(s->arr, attachment_json(&a));
	doctor_put(s->d->held, r.device, doctor_str(path));
	if (a.gone)
		leftover(s->d, "ib-sriov", &a);
	ibsriov_record_clear(&r);
	return 0;
}

/* A Go cache's VF netdev back on the host: the pod it was for is gone. */
static bool go_netdev_home(struct cni_sys *sys, const struct ibsriov_record *r)
{
	char name[IFNAMSIZ];
	struct cni_link l;

	if (r->kind == IBSRIOV_VFIO)
		return false;
	if (*r->orig_name && !cni_link_get(sys, r->orig_name, 0, &l))
		return true;
	return !cni_pci_netdev(CNI_PCI_ROOT, r->device, name) && !cni_link_get(sys, name, 0, &l);
}

/* ib-sriov-cni's caches record no netns: one is stale when its VF netdev
 * is back on the host (a pod's namespace holds it while the pod lives). */
static int record_go(int dirfd, const char *name, void *arg)
{
	_cleanup_json_ struct json_object *o = NULL;
	struct scan *s = arg;
	struct ibsriov_record r;
	struct attachment a;
	char path[PATH_MAX];

	(void)dirfd;
	if (cni_state_read(IBSRIOV_GO_DIR, name, &o) ||
	    json_object_object_get_ex(o, "ibcni", NULL) || ibsriov_gocache_parse(o, name, "", &r))
		return 0;
	snprintf(path, sizeof(path), "%s/%s", IBSRIOV_GO_DIR, name);
	a = (struct attachment){
	    path, NULL, r.container_id, r.ifname, r.device, NULL, go_netdev_home(s->d->sys, &r)};
	json_object_array_add(s->arr, attachment_json(&a));
	if (!json_object_object_get_ex(s->d->held, r.device, NULL))
		doctor_put(s->d->held, r.device, doctor_str(path));
	if (a.gone)
		doctor_finding(s->d, "warning", path,
			       "DEL it with the network's config (ib-sriov reads this cache), or "
			       "remove it",
			       "leftover ib-sriov-cni cache %s/%s: VF %s is back on the host, so "
			       "the pod it was for is gone",
			       r.container_id, r.ifname, r.device);
	ibsriov_record_clear(&r);
	return 0;
}

/* rdma-ns's records, read as rdma-ns reads them. */
static int record_rdmans(int dirfd, const char *name, void *arg)
{
	struct scan *s = arg;
	struct rdmans_record rec;
	struct attachment a;
	char path[PATH_MAX];

	(void)dirfd;
	if (rdmans_record_load(name, &rec))
		return 0;
	snprintf(path, sizeof(path), "%s/%s", RDMANS_STATE_DIR, name);
	a = (struct attachment){path,	      rec.network, rec.containerid,	 rec.ifname,
				rec.deviceid, rec.netns,   netns_gone(rec.netns)};
	json_object_array_add(s->arr, attachment_json(&a));
	if (a.gone)
		leftover(s->d, "rdma-ns", &a);
	return 0;
}

void doctor_records(struct doctor *d, struct json_object *arr)
{
	struct scan s = {d, arr};

	/* A listing that fails shows as no attachments, as before. */
	cni_state_each(IBSRIOV_STATE_DIR, IBSRIOV_RECORDS_MAX, record_ours, &s);
	cni_state_each(IBSRIOV_GO_DIR, IBSRIOV_RECORDS_MAX, record_go, &s);
	cni_state_each(RDMANS_STATE_DIR, IBSRIOV_RECORDS_MAX, record_rdmans, &s);
}
