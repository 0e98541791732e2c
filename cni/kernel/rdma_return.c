// SPDX-License-Identifier: Apache-2.0
/* RDMA devices back from a pod to the host: by index, under a name free on
 * the host (Linux 7 names devices per network namespace, so the host may
 * have taken the name meanwhile), read back. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/cleanup.h"
#include "base/log.h"
#include "base/util.h"
#include "kernel/netns.h"
#include "kernel/rdma.h"

const struct cni_rdma_dev *cni_rdma_find(const struct cni_rdma_dev *devs, size_t n,
					 const struct cni_rdma_ref *ref)
{
	for (size_t i = 0; i < n; i++)
		if (ref->has_index ? devs[i].index == ref->index : !strcmp(devs[i].name, ref->name))
			return &devs[i];
	return NULL;
}

static bool taken(const struct cni_rdma_dev *host, size_t n, const char *name, uint32_t index)
{
	for (size_t i = 0; i < n; i++)
		if (host[i].index != index && !strcmp(host[i].name, name))
			return true;
	return false;
}

int cni_rdma_host_name(const struct cni_rdma_dev *host, size_t n, const char *want, uint32_t index,
		       char out[CNI_RDMA_NAME_MAX])
{
	for (unsigned int k = 0; k < 16; k++) {
		int len;

		if (k == 0 && *want)
			len = snprintf(out, CNI_RDMA_NAME_MAX, "%s", want);
		else if (k == 0)
			len = snprintf(out, CNI_RDMA_NAME_MAX, "rdma%u", index);
		else if (k == 1)
			len = snprintf(out, CNI_RDMA_NAME_MAX, "%.40s_%u", want, index);
		else
			len = snprintf(out, CNI_RDMA_NAME_MAX, "%.40s_%u_%u", want, index, k);
		if (len > 0 && len < CNI_RDMA_NAME_MAX && !taken(host, n, out, index))
			return 0;
	}
	return -EEXIST;
}

/* In the pod: move one device home under its host name (or a free one).
 * The plain move when it has that name already: every kernel takes it.
 * Only the kernel's "no such device", or a second look that no longer
 * finds it, counts as gone. */
/* The host as DEL finds it: its namespace (fd) and its devices' names. */
struct home {
	int fd;
	const struct cni_rdma_dev *devs;
	size_t n;
};

static int return_one(struct cni_sys *sys, const struct cni_rdma_dev *d,
		      const struct cni_rdma_ref *ref, const struct home *h)
{
	char name[CNI_RDMA_NAME_MAX], ack[CNI_SYS_EXT_ACK];
	struct cni_rdma_dev again;
	int home = h->fd, ret = cni_rdma_host_name(h->devs, h->n, ref->name, d->index, name);

	if (!ret && strcmp(d->name, name)) {
		ret = cni_rdma_move_named(sys, d, home, name);
		/* A kernel before Linux 7: names are system-wide, so the
		 * pod's name is free on the host. */
		if (ret == -ENOSYS)
			ret = cni_rdma_move(sys, d->index, home);
	} else {
		ret = cni_rdma_move(sys, d->index, home);
	}
	if (!ret)
		log_info("moved RDMA device %s (index %u) back to the host", d->name, d->index);
	if (!ret || ret == -ENODEV)
		return 0;
	/* The second look must not lose the kernel's text for the refusal. */
	memcpy(ack, sys->ext_ack, sizeof(ack));
	if (cni_rdma_dev_get(sys, ref->has_index ? NULL : ref->name, d->index, &again) == -ENODEV)
		return 0;
	memcpy(sys->ext_ack, ack, sizeof(ack));
	return ret;
}

/* Back on the host: every device known by index is here. */
static int confirm_home(struct cni_sys *sys, const struct cni_rdma_ref *refs, size_t n,
			const char **failed)
{
	struct cni_rdma_dev *devs = NULL;
	size_t count = 0;
	int ret = cni_rdma_devs(sys, &devs, &count);

	if (ret == -EPROTONOSUPPORT)
		ret = 0;
	for (size_t i = 0; i < n && !ret; i++)
		if (refs[i].has_index && !cni_rdma_find(devs, count, &refs[i])) {
			*failed = refs[i].name;
			ret = -ENXIO;
		}
	free(devs);
	return ret;
}

/* One dump in the pod (the kernel requires the move to be asked from the
 * device's netns); a device it does not show must be on the host. */
static int return_from_pod(struct cni_sys *sys, const struct cni_rdma_ref *refs, size_t n,
			   const struct home *h, const char **failed)
{
	_cleanup_free_ struct cni_rdma_dev *devs = NULL;
	size_t count = 0;
	int ret = cni_rdma_devs(sys, &devs, &count);

	for (size_t i = 0; i < n && !ret; i++) {
		const struct cni_rdma_dev *d = cni_rdma_find(devs, count, &refs[i]);

		if (d && (ret = return_one(sys, d, &refs[i], h)))
			*failed = refs[i].name;
	}
	return ret;
}

int cni_rdma_return(struct cni_sys *sys, int pod_fd, const struct cni_rdma_ref *refs, size_t n,
		    const char **failed)
{
	_cleanup_close_ int fd = cni_netns_open_current(sys);
	_cleanup_free_ struct cni_rdma_dev *host = NULL;
	struct home h = {.fd = fd};
	int saved = -1, ret;

	*failed = NULL;
	if (fd < 0)
		return fd;
	/* The host's names first: the name each device comes back under. */
	ret = cni_rdma_devs(sys, &host, &h.n);
	if (ret == -EPROTONOSUPPORT)
		return 0; /* no RDMA subsystem: nothing can be in the pod */
	if (ret)
		return ret;
	h.devs = host;
	ret = cni_netns_enter(sys, pod_fd, &saved);
	if (ret)
		return ret;
	ret = return_from_pod(sys, refs, n, &h, failed);
	if (cni_netns_restore(sys, &saved) && !ret)
		ret = -EIO;
	return ret ? ret : confirm_home(sys, refs, n, failed);
}
