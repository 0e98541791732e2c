// SPDX-License-Identifier: Apache-2.0
/* One attachment of `ib-sriov doctor --pod`, checked from inside the pod:
 * where its RDMA device is, its port, the RoCE GID of each address, the
 * MTUs, on InfiniBand the GUID, pkey and LID, and the character devices the
 * pod needs. The GID and MTU decisions are cni/kernel/verbs_diag.c's, the
 * ones CHECK makes, so both say the same; the port's fix is port.c's, the
 * one ADD's waitPortActiveMs failure gives. */
#include <stdio.h>
#include <string.h>

#include "doctor.h"
#include "ibsriov.h"
#include "kernel/pci.h"
#include "kernel/verbs_diag.h"
#include "port.h"

static const char *const sev[] = {"info", "warning", "error"};

/* The device's place when verbs cannot open it in the pod: in exclusive
 * mode, found on the host (by index, else by name), or nowhere here. */
static void device_elsewhere(struct doctor *d, const struct doctor_att *a, const char *subject,
			     const struct cni_roce_view *v)
{
	struct cni_rdma_dev host;

	d->check = "rdma-device";
	if (!a->exclusive) {
		doctor_finding(d, "error", subject,
			       "give the pod the device's character devices (the RDMA shared "
			       "device plugin, or the SR-IOV device plugin with isRdma)",
			       "%s is not usable in the pod (shared mode): %s", a->rdma,
			       cni_verbs_strerror(v->verbs_ret));
		return;
	}
	if (!cni_rdma_dev_get(d->sys, a->has_index ? NULL : a->rdma, a->rdma_index, &host)) {
		doctor_finding(d, "error", subject,
			       "recreate the pod: its ADD moves the RDMA device in (rdmaIsolation, "
			       "or rdma-ns chained after the netdev's plugin)",
			       "%s is not in the pod's network namespace: it is in the host's, as "
			       "%s (exclusive mode)",
			       a->rdma, host.name);
		return;
	}
	doctor_finding(d, "error", subject,
		       "check that the pod did not rename or lose it, and that ib_uverbs is loaded",
		       "%s is neither usable in the pod (%s) nor on the host (exclusive mode)",
		       a->rdma, cni_verbs_strerror(v->verbs_ret));
}

static void port(struct doctor *d, const struct doctor_att *a, const char *subject,
		 const struct cni_verbs_port *p, struct json_object *o)
{
	struct json_object *j = json_object_new_object();
	bool active = p->state == CNI_VERBS_PORT_ACTIVE;

	doctor_put(j, "state", doctor_str(cni_verbs_port_state_str(p->state)));
	doctor_put(j, "physState", doctor_str(cni_verbs_phys_state_str(p->phys_state)));
	doctor_put(j, "activeMtu", json_object_new_int((int)p->active_mtu));
	doctor_put(o, "port", j);
	d->check = "port";
	doctor_finding(d, active ? "info" : "error", subject,
		       active ? "none" : ibsriov_port_fix(p->state, p->phys_state, a->ib),
		       "%s port 1 is %s (physical state %s)", a->rdma,
		       cni_verbs_port_state_str(p->state), cni_verbs_phys_state_str(p->phys_state));
}

static void gids(struct doctor *d, const char *subject, const struct cni_roce_view *v,
		 struct json_object *o)
{
	struct json_object *arr = json_object_new_array();
	char what[512], a[64], gid[64];

	d->check = "gid";
	for (int i = 0; i < v->n_addrs && i < CNI_ROCE_ADDRS_MAX; i++) {
		struct cni_addr addr = {.family = v->addrs[i].addr.family};
		const struct cni_verbs_gid *e;
		struct json_object *g;
		enum cni_diag r;
		uint32_t index;

		if (!cni_roce_addr_checked(&v->addrs[i]))
			continue;
		g = json_object_new_object();
		memcpy(addr.a, v->addrs[i].addr.a, sizeof(addr.a));
		r = cni_verbs_gid_check(&v->dev, &v->link, &addr, &index, what, sizeof(what));
		e = cni_verbs_gid_of(&v->dev, 1, &addr, v->link.ifindex);
		doctor_put(g, "address", doctor_str(cni_addr_str(&addr, a, sizeof(a))));
		doctor_put(g, "index", e ? json_object_new_int((int)e->index) : NULL);
		doctor_put(g, "gid", e ? doctor_str(cni_verbs_gid_str(e, gid, sizeof(gid))) : NULL);
		doctor_put(g, "type", e ? doctor_str(cni_verbs_gid_type_str(e->type)) : NULL);
		json_object_array_add(arr, g);
		doctor_finding(d, sev[r], subject,
			       r ? cni_verbs_gid_fix(&v->dev, v->link.ifindex) : "none", "%s",
			       what);
	}
	doctor_put(o, "gids", arr);
}

/* InfiniBand: the port GUID ADD set and not zero, the IPoIB netdev's pkey
 * in the table, a LID. Tested one tier down (the fake verbs view). */
static void infiniband(struct doctor *d, const struct doctor_att *a, const char *subject,
		       const struct cni_roce_view *v, struct json_object *o)
{
	const struct cni_verbs_port *p = &v->dev.ports[0];
	struct json_object *keys = json_object_new_array();
	uint16_t want = v->link.ipoib ? v->link.pkey : 0;
	bool found = !want;

	doctor_put(o, "guid", doctor_guid_json(p->port_guid));
	for (unsigned int i = 0; i < p->n_pkeys; i++) {
		char k[8];

		found |= (p->pkeys[i] & 0x7fff) == (want & 0x7fff);
		if (p->pkeys[i] & 0x7fff) {
			snprintf(k, sizeof(k), "%#06x", p->pkeys[i]);
			json_object_array_add(keys, json_object_new_string(k));
		}
	}
	doctor_put(o, "pkeys", keys);
	doctor_put(o, "lid", json_object_new_int(p->lid));
	d->check = "guid";
	if (!p->port_guid)
		doctor_finding(d, "error", subject,
			       "set the VF's GUID (the network's \"guid\", or guidFallback) and "
			       "recreate the pod",
			       "%s port 1 has GUID 0: the subnet manager cannot admit it", a->rdma);
	else if (a->has_guid && p->port_guid != a->guid)
		doctor_finding(d, "error", subject,
			       "recreate the pod; look for another tool "
			       "setting VF GUIDs on this PF",
			       "%s port 1 has GUID %016llx, ADD set %016llx", a->rdma,
			       (unsigned long long)p->port_guid, (unsigned long long)a->guid);
	else
		doctor_finding(d, "info", subject, "none", "%s port 1 GUID %016llx", a->rdma,
			       (unsigned long long)p->port_guid);
	d->check = "pkey";
	doctor_finding(d, found ? "info" : "error", subject,
		       found ? "none"
			     : "add the GUID to the partition in the subnet manager's partitions "
			       "configuration",
		       "%s: pkey %#06x %s the table of %s port 1 (%u entries)", v->link.name, want,
		       found ? "in" : "is not in", a->rdma, p->n_pkeys);
	d->check = "lid";
	doctor_finding(d, p->lid ? "info" : "error", subject,
		       p->lid ? "none" : "check that a subnet manager runs and sees this port",
		       "%s port 1 LID %u%s", a->rdma, p->lid, p->lid ? "" : ": none assigned");
}

static void char_devices(struct doctor *d, const char *subject, const struct cni_roce_view *v,
			 struct json_object *o)
{
	struct json_object *arr = json_object_new_array();
	char path[96];

	snprintf(path, sizeof(path), "/dev/infiniband/%s", v->dev.uverbs);
	json_object_array_add(arr, json_object_new_string(path));
	json_object_array_add(arr, json_object_new_string("/dev/infiniband/rdma_cm"));
	doctor_put(o, "charDevices", arr);
	d->check = "char-devices";
	doctor_finding(
	    d, "info", subject, "none",
	    "the pod needs %s and /dev/infiniband/rdma_cm (what the device plugin mounts)", path);
}

/* Each address ADD gave the pod netdev still on it: one removed took its
 * GID with it, and its peers fail. */
static void addrs_kept(struct doctor *d, const struct doctor_att *a, const char *subject,
		       const struct cni_roce_view *v)
{
	char what[512];

	d->check = "gid";
	for (unsigned int i = 0; i < a->want.n_addrs; i++)
		if (cni_roce_addr_kept(v, a->ifname, &a->want.addrs[i], what, sizeof(what)) ==
		    CNI_DIAG_ERROR)
			doctor_finding(d, "error", subject, cni_roce_addr_fix(), "%s", what);
}

static void netdev(struct doctor *d, const struct doctor_att *a, const char *subject,
		   const struct cni_roce_view *v, struct json_object *o)
{
	enum cni_diag r;
	char what[512];

	doctor_put(o, "netdevMtu", v->link_ret ? NULL : json_object_new_int((int)v->link.mtu));
	doctor_put(o, "expectedMtu", a->want.mtu ? json_object_new_int((int)a->want.mtu) : NULL);
	d->check = "mtu";
	if (v->link_ret) {
		doctor_finding(d, "error", subject, "recreate the pod",
			       "%s is not in the pod's network namespace (%s)", a->ifname,
			       strerror(-v->link_ret));
		return;
	}
	r = cni_verbs_mtu_check(&v->dev, a->ifname, v->link.mtu, a->want.mtu, what, sizeof(what));
	doctor_finding(d, sev[r], subject, r ? cni_verbs_mtu_fix() : "none", "%s", what);
}

/* The RDMA device of a shared-mode VF: its sysfs name on the host. */
static bool shared_name(const struct doctor_att *a, char name[CNI_RDMA_NAME_MAX])
{
	char names[1][CNI_RDMA_NAME_MAX];

	if (cni_pci_rdma_devs(CNI_PCI_ROOT, a->device, names, 1) < 1)
		return false;
	memcpy(name, names[0], CNI_RDMA_NAME_MAX);
	return true;
}

void doctor_pod_check(struct doctor *d, const struct doctor_att *a, int netns_fd,
		      struct json_object *o)
{
	static struct cni_roce_view v;
	struct doctor_att att = *a;
	char subject[128];

	doctor_put(o, "plugin", doctor_str(a->plugin));
	doctor_put(o, "containerId", doctor_str(a->id));
	doctor_put(o, "ifname", doctor_str(a->ifname));
	doctor_put(o, "network", doctor_str(a->network));
	doctor_put(o, "mode", doctor_str(a->exclusive ? "exclusive" : "shared"));
	d->check = "rdma-device";
	if (!a->exclusive && (a->vfio || !shared_name(a, att.rdma))) {
		doctor_put(o, "rdmaDevice", NULL);
		doctor_finding(d, "info", a->ifname, "none", "%s has no RDMA device (%s)",
			       a->device,
			       a->vfio ? "bound to vfio-pci" : "none under its PCI function");
		return;
	}
	doctor_put(o, "rdmaDevice", doctor_str(att.rdma));
	snprintf(subject, sizeof(subject), "%s (%s)", a->ifname, att.rdma);
	cni_roce_read(d->sys, netns_fd, att.rdma, a->ifname, &v);
	att.ib = v.dev.n_ports ? v.dev.ports[0].link_layer == CNI_VERBS_LL_IB : a->ib;
	doctor_put(o, "linkLayer", doctor_str(att.ib ? "InfiniBand" : "Ethernet"));
	if (v.verbs_ret || !v.dev.n_ports) {
		device_elsewhere(d, &att, subject, &v);
		netdev(d, &att, subject, &v, o);
		return;
	}
	doctor_finding(d, "info", subject, "none",
		       "%s is in the pod's network namespace and opens "
		       "there (%s mode)",
		       att.rdma, a->exclusive ? "exclusive" : "shared");
	port(d, &att, subject, &v.dev.ports[0], o);
	if (!att.ib && !v.link_ret)
		addrs_kept(d, &att, subject, &v);
	if (!att.ib && !v.link_ret)
		gids(d, subject, &v, o);
	netdev(d, &att, subject, &v, o);
	if (att.ib)
		infiniband(d, &att, subject, &v, o);
	char_devices(d, subject, &v, o);
}
