// SPDX-License-Identifier: Apache-2.0
/* RDMA devices into a pod and back to the host (rdma_move.h). Into the pod
 * by the indices the lookup found, under rdmaName when set; back, each
 * asked for by index (one GET, in the pod and on the host: never a dump of
 * the host, which a pod grows at will in exclusive mode), under a name the
 * pod cannot choose (Linux 7.3 names devices per network namespace), and
 * looked for on the host after. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base/cleanup.h"
#include "base/log.h"
#include "base/util.h"
#include "kernel/netns.h"
#include "kernel/rdma_move.h"

int cni_rdma_found_indices(struct cni_sys *sys, struct cni_rdma_found *f, const char **failed)
{
	_cleanup_free_ struct cni_rdma_dev *devs = NULL;
	size_t n = 0;
	int ret;

	*failed = NULL;
	if (f->indexed || !f->n)
		return 0;
	*failed = f->names[0];
	ret = cni_rdma_devs(sys, &devs, &n);
	for (size_t i = 0; !ret && i < f->n; i++) {
		size_t j = 0;

		while (j < n && strcmp(devs[j].name, f->names[i]))
			j++;
		if (j == n) {
			*failed = f->names[i];
			return -ENODEV;
		}
		f->index[i] = devs[j].index;
	}
	if (ret)
		return ret;
	*failed = NULL;
	f->indexed = true;
	return 0;
}

int cni_rdma_send(struct cni_sys *sys, const struct cni_rdma_found *f, int pod_fd, const char *name,
		  const char **failed)
{
	bool named = name && *name;
	int ret = 0;

	*failed = NULL;
	if (named && f->n > 1) {
		*failed = f->names[1];
		return -E2BIG;
	}
	for (size_t i = 0; i < f->n && !ret; i++) {
		struct cni_rdma_dev d = {.index = f->index[i]};

		copy_str(d.name, sizeof(d.name), f->names[i]);
		ret = named ? cni_rdma_move_named(sys, &d, pod_fd, name)
			    : cni_rdma_move(sys, d.index, pod_fd);
		if (ret)
			*failed = f->names[i];
		else
			log_info("moved RDMA device %s (index %u) into the pod%s%s", d.name,
				 d.index, named ? " as " : "", named ? name : "");
	}
	return ret;
}

int cni_rdma_send_error(struct cni_sys *sys, struct cni_error *err, int ret, const char *name,
			const char *failed)
{
	if (!failed)
		failed = "(none)";
	if (ret == -E2BIG)
		return cni_errorf(err, ret, CNI_ERR_INVALID_CONFIG,
				  "rdmaName names one RDMA device",
				  "%s is one of several RDMA devices of the function; remove "
				  "\"rdmaName\"",
				  failed);
	if (ret == -ENOSYS)
		return cni_errorf(
		    err, ret, CNI_ERR_INVALID_CONFIG,
		    "rdmaName needs RDMA device names per network namespace",
		    "\"rdmaName\" is \"%s\" but this kernel names RDMA devices once for "
		    "the whole node: it renamed %s without moving it (undone). Remove "
		    "rdmaName, or run Linux 7 or later (ib-sriov doctor says which)",
		    name ? name : "", failed);
	return cni_errorf(err, ret, CNI_ERR_DEVICE, "cannot move the RDMA device into the pod",
			  "%s: %s %s", failed, cni_rdma_strerror(ret), cni_sys_ext_ack(sys));
}

/* One try of a name: a move from the pod carrying it (home >= 0), or a
 * rename on the host (home < 0). */
static int try_name(struct cni_sys *sys, const struct cni_rdma_dev *d, int home, const char *name)
{
	return home >= 0 ? cni_rdma_move_named(sys, d, home, name)
			 : cni_rdma_rename(sys, d->index, name);
}

/* The home names in turn (cni_rdma_home_name): the kernel's EEXIST (held
 * on the host) moves on to the next, any other answer ends it. Never the
 * name the device has in the pod: the pod chose it. */
static int home_name(struct cni_sys *sys, const struct cni_rdma_dev *d, const char *want, int home)
{
	char name[CNI_RDMA_NAME_MAX], tried[CNI_RDMA_HOME_TRIES * (CNI_RDMA_NAME_MAX + 2)] = "";
	size_t used = 0;
	int ret = -EEXIST;

	for (unsigned int k = 0; ret == -EEXIST; k++) {
		ret = cni_rdma_home_name(want, d->index, k, name);
		if (ret)
			break;
		if (!check_snprintf(tried + used, sizeof(tried) - used, "%s%s", used ? ", " : "",
				    name))
			used += strlen(tried + used);
		ret = try_name(sys, d, home, name);
	}
	if (ret == -ENOTUNIQ)
		log_err("RDMA device %s (index %u): every name tried is held on the host: %s",
			d->name, d->index, tried);
	return ret;
}

/* In the pod: find ref's device there (-ENODEV: not there) and move it
 * home. *rename: a kernel without per-namespace names moved it under its
 * pod name, which the host must change. */
static int from_pod(struct cni_sys *sys, const struct cni_rdma_ref *ref, int home,
		    struct cni_rdma_dev *d, bool *rename)
{
	char ack[CNI_SYS_EXT_ACK];
	struct cni_rdma_dev again;
	int ret = cni_rdma_dev_get(sys, ref->has_index ? NULL : ref->name, ref->index, d);

	*rename = false;
	if (ret)
		return ret;
	ret = home_name(sys, d, ref->name, home);
	if (ret == -ENOSYS) {
		ret = cni_rdma_move(sys, d->index, home);
		*rename = !ret;
	}
	if (!ret) {
		log_info("moved RDMA device %s (index %u) back to the host", d->name, d->index);
		return 0;
	}
	/* Refused because it left meanwhile? Keep the kernel's text for the
	 * refusal across the second look. */
	memcpy(ack, sys->ext_ack, sizeof(ack));
	if (cni_rdma_dev_get(sys, NULL, d->index, &again) == -ENODEV)
		return -ENODEV;
	memcpy(sys->ext_ack, ack, sizeof(ack));
	return ret;
}

/* Whether name is one home_name gives for want and index: want itself,
 * or "<want>_<index>" with or without a suffix. */
static bool a_home_name(const char *name, const char *want, uint32_t index)
{
	char derived[CNI_RDMA_NAME_MAX];

	if (!strcmp(name, want))
		return true;
	if (cni_rdma_home_name(want, index, 1, derived))
		return false;
	return !strncmp(name, derived, strlen(derived));
}

/* A device that came home by another way than our move (its namespace
 * died, or a kernel before Linux 7.3 moved it plainly and the rename
 * failed): under a name the pod may have chosen, renamed to a home name. */
static int own_name(struct cni_sys *sys, const struct cni_rdma_ref *ref,
		    const struct cni_rdma_dev *now)
{
	if (!*ref->name || a_home_name(now->name, ref->name, now->index))
		return 0;
	log_info("RDMA device %s (index %u) is on the host under a name its pod may have "
		 "chosen: renamed",
		 now->name, now->index);
	return home_name(sys, now, ref->name, -1);
}

/* On the host, after from_pod (pod_ret its answer, d the device it found):
 * the name a plain move kept replaced, then the device looked for by
 * index. Seen in neither namespace, it is gone (a pod with CAP_NET_ADMIN
 * deletes its rxe): said, and done. A record without index whose device is
 * not in the pod cannot be looked for without a dump of the host: done. */
static int on_host(struct cni_sys *sys, const struct cni_rdma_ref *ref, int pod_ret,
		   const struct cni_rdma_dev *d, bool rename, int pod_fd)
{
	bool found = !pod_ret || d->name[0];
	uint32_t index = found ? d->index : ref->index;
	struct cni_rdma_dev now;
	struct stat st = {0};
	int ret = rename ? home_name(sys, d, ref->name, -1) : 0;

	if (ret || (!found && !ref->has_index))
		return ret;
	ret = cni_rdma_dev_get(sys, NULL, index, &now);
	if (!ret)
		return own_name(sys, ref, &now);
	if (ret != -ENODEV)
		return ret == -EPROTONOSUPPORT ? 0 : ret;
	if (fstat(pod_fd, &st))
		st.st_ino = 0;
	log_warn("RDMA device %s (index %u) is in neither the pod's network namespace "
		 "(net:[%lu]) nor the host's: gone (deleted in the pod?); released",
		 ref->name, index, (unsigned long)st.st_ino);
	return 0;
}

/* One device: in the pod (the kernel requires a move to be asked from the
 * device's namespace), then on the host. */
static int return_one(struct cni_sys *sys, int pod_fd, int home, const struct cni_rdma_ref *ref)
{
	struct cni_rdma_dev d = {0};
	bool rename = false;
	int saved = -1, ret = cni_netns_enter(sys, pod_fd, &saved);

	if (ret)
		return ret;
	ret = from_pod(sys, ref, home, &d, &rename);
	if (cni_netns_restore(sys, &saved) && (!ret || ret == -ENODEV))
		return -EIO;
	if (ret && ret != -ENODEV)
		return ret;
	return on_host(sys, ref, ret, &d, rename, pod_fd);
}

int cni_rdma_return(struct cni_sys *sys, int pod_fd, const struct cni_rdma_ref *refs, size_t n,
		    const char **failed)
{
	_cleanup_close_ int home = cni_netns_open_current(sys);
	int ret = 0;

	*failed = NULL;
	if (home < 0)
		return home;
	for (size_t i = 0; i < n && !ret; i++) {
		ret = return_one(sys, pod_fd, home, &refs[i]);
		if (ret == -EPROTONOSUPPORT)
			return 0; /* no RDMA subsystem: nothing can be in the pod */
		if (ret)
			*failed = refs[i].name;
	}
	return ret;
}
