/* SPDX-License-Identifier: Apache-2.0 */
/* ADD's state and the contract of its steps, private to this room
 * (README.md): add.c (the flow), resolve.c, vf_settings.c, guid_fallback.c,
 * pkey.c, pod.c, held.c, heal.c and portwait.c. */
#ifndef IBSRIOV_ADD_H
#define IBSRIOV_ADD_H

#include <string.h>

#include "devinfo.h"
#include "ibsriov.h"
#include "kernel/rdma_lookup.h"

/* Everything ADD learns before it changes anything. */
struct add {
	struct cni_ctx *ctx;
	struct cni_sys *sys; /* the invocation's kernel context */
	struct ibsriov_conf conf;
	struct cni_pci_vf pci;
	struct cni_link pf, vf;
	bool ib, vfio, pf_passthrough;
	int netns_fd;
	struct ibsriov_record rec;
	struct cni_result *ipam;
	char devinfo[NAME_MAX + 1]; /* the device-info file's name (devinfo.c) */
	/* The RDMA device as the pod sees it: the VF's in sysfs, then the one
	 * moved (under rdmaName when given) once ibsriov_rdma_in is done; "" none. */
	const char *rdma_dev;
	/* heal.c: another attachment's record holding the device, its pod gone. */
	struct ibsriov_record stale;
	bool has_stale;
	unsigned int healed; /* stale records released by this ADD */
};

/* Fill the CNI error for a failed step (kernel errno and extended ack in
 * the details) and return ret: always used as `return fail(...)` or
 * `ret = fail(...)`. */
static inline int fail(struct add *a, int ret, int code, const char *msg, const char *what)
{
	return cni_errorf(&a->ctx->err, ret, code, msg, "%s: %s%s%s", what, strerror(-ret),
			  *cni_sys_ext_ack(a->sys) ? ": " : "", cni_sys_ext_ack(a->sys));
}

/* resolve.c, before any change: the device deviceID names from sysfs (a
 * VF, or a PF bound to vfio-pci, passed through whole); code 101 or 7
 * naming what to fix. */
int ibsriov_resolve_device(struct add *a);

/* The PF's and the VF's netdevs as they are now, under the VF lock (fresh:
 * sysfs read again after an earlier attempt was undone); code 101. */
int ibsriov_resolve_links(struct add *a, bool fresh);

/* Whether the configuration fits the VF found (keys its link layer or
 * driver cannot take): code 7 naming the key. */
int ibsriov_check_fits(struct add *a);

/* Code 7 when the pod already has an interface named CNI_IFNAME. */
int ibsriov_pod_ifname_free(struct add *a);

/* vf_settings.c: the PF's link (its index, type) into a->pf, read once; code 11
 * when the PF has no netdev. */
int ibsriov_pf_link(struct add *a);

/* The PF's VF table, read at most once per ADD: guidFallback and the VF
 * settings share it. On a PF of 127 VFs it is tens of KiB. */
struct ibsriov_vf_table {
	struct cni_vf *vfs;
	size_t n;
	int num_vf; /* the PF's IFLA_NUM_VF: n is less when the kernel skipped a VF */
	bool read;
};

/* vf_settings.c: t read from a->pf (looked up first) unless it was already;
 * code 11 when it cannot be read. */
int ibsriov_vf_table(struct add *a, struct ibsriov_vf_table *t);

/* Free t's entries and mark it unread: the VFs may have changed since (a
 * heal restored another attachment's settings). */
void ibsriov_vf_table_forget(struct ibsriov_vf_table *t);

/* guid_fallback.c: with guidFallback, an InfiniBand VF whose GUID is unset
 * and that was given none gets the GUID derived from its PF's port GUID
 * and VF index (into a->conf, named "guidFallback"), read from t; code 7
 * when the PF's GUID is no vendor GUID or another VF of the PF has the
 * derived one. */
int ibsriov_guid_fallback(struct add *a, struct ibsriov_vf_table *t);

/* vf_settings.c: the PF-side settings the config asks for (and the GUID),
 * their originals (from t) recorded first, then one request per setting. */
int ibsriov_vf_apply(struct add *a, struct ibsriov_vf_table *t);

/* A new GUID applied by rebinding the VF's driver (under the PF lock); the
 * netdev is found again by PCI address. */
int ibsriov_vf_rebind(struct add *a);

/* The admin MAC on the VF netdev too, by a rebind where the driver refuses
 * the VF's own change. */
int ibsriov_vf_mac_follow(struct add *a);

/* pkey.c: with pkeyEnforce, wait for the pkey in the VF's table (code 11
 * after pkey_wait_ms), then put an IPoIB child of the VF netdev on that
 * partition when the netdev is on another: the child moves into the pod. */
int ibsriov_pkey_present(struct add *a);
int ibsriov_pkey_child(struct add *a);

/* The VF's RDMA devices (cni_rdma_lookup: PCI child, auxiliary child,
 * bound to the VF netdev) into f; code 101 naming what was tried. */
int ibsriov_rdma_find(struct add *a, struct cni_rdma_found *f);

/* The VF's RDMA devices into the pod (rdmaIsolation), before its netdev. */
int ibsriov_rdma_in(struct add *a);

/* Down, temporary name, into the pod, CNI_IFNAME, MTU, MAC, up. */
int ibsriov_move_in(struct add *a);

/* For a RoCE attachment with an RDMA device, the RoCE v2 GID index of
 * each address ADD configured, read from inside the pod once the kernel
 * has added the GIDs (a short bounded wait); how many into g (at most
 * max). Nothing read, 0, for InfiniBand or without an RDMA device. */
unsigned int ibsriov_roce_gids(struct add *a, struct ibsriov_devinfo_gid *g, unsigned int max);

/* The IPAM result's addresses and routes on the pod interface, IPv6 DAD,
 * then gratuitous ARP / unsolicited NA. */
int ibsriov_configure_ip(struct add *a);

/* ctx->result: our interface, the IPAM's ips (interface 0), routes, dns. */
int ibsriov_build_result(struct add *a);

/* held.c: one attachment per MAC and per GUID on the node. The MAC or
 * GUID record r's attachment holds; false when unknown (an older build's
 * record of an ADD that set one). */
bool ibsriov_record_mac(const struct ibsriov_record *r, unsigned char mac[6]);
bool ibsriov_record_guid(const struct ibsriov_record *r, uint64_t *guid);

/* Note in a->rec the address the pod gets: the configured MAC or GUID,
 * else the VF's own (none for a passed-through PF). */
void ibsriov_held_note(struct add *a);

/* One pass over the other attachments' records: -ESTALE (no error filled)
 * when one of a pod that is gone holds the device (a->stale), code 101
 * when another one holds it, else code 7 naming the key, the value and the holder when one
 * holds the MAC or GUID the config asks for. Run under the VF lock and the
 * node's "addr" lock, up to the record's first write. */
int ibsriov_others_free(struct add *a);

/* portwait.c, "waitPortActiveMs": code 7 (nothing changed yet) when it is
 * set for a VF that has no kernel RDMA device (vfio-pci, none in sysfs). */
int ibsriov_port_wait_fits(struct add *a);

/* After the netdev is up in the pod: poll port 1 of the VF's RDMA device
 * until ACTIVE, at most waitPortActiveMs; code 11 naming the state and the
 * fix on timeout. 0 at once when the key is 0. */
int ibsriov_port_wait(struct add *a);

/* heal.c: note in a->rec the IPAM config (cniVersion, name, type, ipam) and
 * CNI_PATH its IPAM DEL needs when no runtime sends one. */
void ibsriov_heal_note(struct add *a);

/* Whether r, another attachment's record, holds a's device and its pod is
 * gone: then r is moved into a->stale (r left empty) for ibsriov_heal.
 * Bounded per ADD. */
bool ibsriov_heal_take(struct add *a, struct ibsriov_record *r);

/* Release a->stale (under the VF lock ADD holds, outside the "addr" lock):
 * its leases, the VF, the record; one log line; a->pci.netdev names the VF
 * netdev where the release left it. 0, or -errno with the
 * release's error in ctx->err (the record stays). */
int ibsriov_heal(struct add *a);

#endif
