// SPDX-License-Identifier: Apache-2.0
/* "waitPortActiveMs": after the VF's netdev is up in the pod, wait for its
 * RDMA port to be ACTIVE, so that a pod never starts on a port that cannot
 * carry traffic (an InfiniBand port the subnet manager has not configured,
 * a RoCE port without carrier). Polled: the kernel does not notify sysfs
 * readers of a port state change (no sysfs_notify on ports/N/state), and
 * its one event, the verbs async IBV_EVENT_PORT_ACTIVE, needs an open
 * device context for the whole wait; a read every PORT_POLL_MS costs three
 * system calls. 0 (the default) returns before any of it. */
#include <errno.h>
#include <string.h>

#include "add.h"
#include "base/util.h"
#include "port.h"
#include "kernel/verbs.h"

#define PORT_POLL_MS  20  /* sysfs: a read is cheap */
#define VERBS_POLL_MS 100 /* verbs: a child process per query */

/* Port 1 of the VF's RDMA device: from the host's sysfs, else (the device
 * is in the pod's network namespace, which the host's sysfs does not show)
 * through verbs inside the pod. *poll is the interval that way allows. */
static int port_read(struct add *a, uint64_t deadline, struct cni_verbs_port *p, unsigned int *poll)
{
	struct cni_verbs_dev d;
	unsigned int state, phys, left;
	uint64_t now;
	int ret = cni_pci_port_state(CNI_PCI_ROOT, a->conf.device, a->rdma_dev, 1, &state, &phys);

	*poll = PORT_POLL_MS;
	if (!ret) {
		p->state = (int)state;
		p->phys_state = phys;
		return 0;
	}
	if (ret != -ENOENT)
		return ret;
	*poll = VERBS_POLL_MS;
	now = now_ms();
	left = deadline > now ? (unsigned int)(deadline - now) : 1;
	if (left > CNI_VERBS_TIMEOUT_MS)
		left = CNI_VERBS_TIMEOUT_MS;
	ret = cni_verbs_query_in(a->netns_fd, a->rdma_dev, 0, left, &d);
	if (!ret && !d.n_ports)
		ret = -ENODEV;
	if (!ret)
		*p = d.ports[0];
	return ret;
}

static bool active(int state)
{
	return state == CNI_VERBS_PORT_ACTIVE || state == CNI_VERBS_PORT_ACTIVE_DEFER;
}

static int not_active(struct add *a, int ret, const struct cni_verbs_port *p)
{
	const struct ibsriov_conf *c = &a->conf;

	if (ret)
		return cni_errorf(&a->ctx->err, ret, CNI_ERR_TRY_AGAIN,
				  "the VF's RDMA port is not ACTIVE",
				  "%s port 1 (VF %s): its state cannot be read after %u ms "
				  "(waitPortActiveMs): %s",
				  a->rdma_dev, c->device, c->port_wait_ms, cni_verbs_strerror(ret));
	return cni_errorf(&a->ctx->err, -ETIMEDOUT, CNI_ERR_TRY_AGAIN,
			  "the VF's RDMA port is not ACTIVE",
			  "%s port 1 (VF %s) is %s (physical state %s) after %u ms "
			  "(waitPortActiveMs): %s",
			  a->rdma_dev, c->device, cni_verbs_port_state_str(p->state),
			  cni_verbs_phys_state_str(p->phys_state), c->port_wait_ms,
			  ibsriov_port_fix(p->state, p->phys_state, a->ib));
}

int ibsriov_port_wait(struct add *a)
{
	uint64_t start, deadline, now;
	struct cni_verbs_port p = {0};
	unsigned int poll;
	int ret;

	if (!a->conf.port_wait_ms)
		return 0;
	start = now_ms();
	deadline = start + a->conf.port_wait_ms;
	for (;;) {
		/* Errors too are polled through: a GUID rebind re-creates the
		 * RDMA device, which may not be back yet. */
		ret = port_read(a, deadline, &p, &poll);
		now = now_ms();
		if (!ret && active(p.state)) {
			log_info("%s port 1 is %s after %llu ms", a->rdma_dev,
				 cni_verbs_port_state_str(p.state),
				 (unsigned long long)(now - start));
			return 0;
		}
		if (now >= deadline)
			return not_active(a, ret, &p);
		if (poll > deadline - now)
			poll = (unsigned int)(deadline - now);
		sleep_ms(poll);
	}
}

int ibsriov_port_wait_fits(struct add *a)
{
	if (!a->conf.port_wait_ms)
		return 0;
	if (a->vfio || !*a->pci.rdma_dev)
		return cni_errorf(
		    &a->ctx->err, -EINVAL, CNI_ERR_INVALID_CONFIG, "invalid configuration",
		    "\"waitPortActiveMs\" is %u but %s has no RDMA device%s: the key "
		    "applies to VFs whose RDMA port the kernel drives; remove it",
		    a->conf.port_wait_ms, a->conf.device, a->vfio ? " (bound to vfio-pci)" : "");
	return 0;
}
