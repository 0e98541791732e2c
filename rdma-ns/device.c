// SPDX-License-Identifier: Apache-2.0
/* Which function's RDMA devices move, and whether this config may move
 * them: only a VF's (the PF's RDMA device is the host's, shared by every VF). */
#include <errno.h>
#include <net/if.h>
#include <string.h>
#include <sys/stat.h>

#include "base/cleanup.h"
#include "protocol/devcheck.h"
#include "base/json.h"
#include "kernel/ethtool.h"
#include "kernel/link.h"
#include "kernel/netns.h"
#include "kernel/rdma_lookup.h"
#include "protocol/conf_table.h"
#include "rdmans.h"
#include "base/util.h"

/* A PCI address (normalised) or an auxiliary device name (mlx5_core.sf.4):
 * one path component of the device charset. */
static bool device_parse(const char *v, char dev[RDMANS_DEV_MAX])
{
	char pci[CNI_PCI_ADDR_LEN];

	if (cni_pci_addr_parse(v, pci))
		return !copy_str(dev, RDMANS_DEV_MAX, pci);
	return cni_valid_id(v) && !copy_str(dev, RDMANS_DEV_MAX, v);
}

/* What the device keys fill: the first device named, and the key that named
 * it. */
struct device_load {
	char *dev;
	const char **key;
};

/* Both keys are checked, whichever is used: a pciBusID of the wrong type is
 * a config error before anything is probed. */
static int device_key(const struct cni_conf_load *l, const struct cni_conf_field *f)
{
	struct device_load *d = l->dst;
	char other[RDMANS_DEV_MAX];
	char *out = other;
	const char *v = NULL;

	if (!*d->dev)
		out = d->dev;
	if (cni_conf_string(l->obj, l->prefix, f->k->key, &v, l->err) == -EINVAL)
		return -EINVAL;
	if (!v || !*v)
		return 0;
	if (!device_parse(v, out))
		return cni_errorf(l->err, -EINVAL, CNI_ERR_INVALID_CONFIG, "invalid configuration",
				  "\"%s\" is \"%s\"; it must be a PCI address (0000:3b:00.2) or "
				  "an auxiliary device name (mlx5_core.sf.4)",
				  f->where, v);
	if (out == other && strcmp(other, d->dev))
		return cni_errorf(l->err, -EINVAL, CNI_ERR_INVALID_CONFIG, "invalid configuration",
				  "\"pciBusID\" (%s) and \"deviceID\" (%s) name different "
				  "devices",
				  other, d->dev);
	if (out == d->dev && d->key)
		*d->key = f->k->key;
	return 0;
}

static const struct cni_conf_key device_keys[] = {
    CNI_CONF_PARSE("deviceID", 0, device_key),
    CNI_CONF_PARSE("pciBusID", 0, device_key),
};

int rdmans_configured_device(const struct cni_conf *conf, char dev[RDMANS_DEV_MAX],
			     const char **key, struct cni_error *err)
{
	struct device_load d = {.dev = dev, .key = key};
	struct cni_conf_load l = {.obj = conf->root, .dst = &d, .err = err};

	dev[0] = '\0';
	return cni_conf_load(&l, device_keys, ARRAY_SIZE(device_keys));
}

/* The prevResult interface in this pod: its sandbox is CNI_NETNS, or
 * another path to the same namespace. */
static bool in_pod(const struct cni_iface *i, const char *netns, int pod)
{
	struct stat a, b;

	if (!i->sandbox || !*i->sandbox)
		return false;
	if (!strcmp(i->sandbox, netns))
		return true;
	return fstat(pod, &a) == 0 && stat(i->sandbox, &b) == 0 && a.st_dev == b.st_dev &&
	       a.st_ino == b.st_ino;
}

/* The pciID the previous plugin reported for the pod's interface (any
 * interface's when none names this sandbox), or NULL. */
static const char *prev_pci_id(struct cni_ctx *ctx, int pod)
{
	const struct cni_result *prev = ctx->conf->prev_result;
	const char *any = NULL;

	for (size_t i = 0; prev && i < prev->n_ifaces; i++) {
		const struct cni_iface *f = &prev->ifaces[i];

		if (!f->pci_id || !*f->pci_id)
			continue;
		if (in_pod(f, ctx->env.netns, pod))
			return f->pci_id;
		if (!any)
			any = f->pci_id;
	}
	return any;
}

/* rdma-cni derives the device from the previous result's MAC; a prevResult
 * re-encoded by a 1.0 runtime (containerd 1.6) has no pciID. Look the MAC
 * up among the pod's netdevs, then ask that netdev's driver for its PCI device. */
static int device_from_mac(struct cni_sys *sys, struct cni_ctx *ctx, int pod,
			   char dev[RDMANS_DEV_MAX])
{
	const struct cni_result *prev = ctx->conf->prev_result;
	const struct cni_iface *f = NULL;
	struct cni_ethtool_drvinfo info;
	unsigned char mac[CNI_MAC_MAX];
	char name[IFNAMSIZ], pci[CNI_PCI_ADDR_LEN];
	unsigned int len;
	int saved = -1, ret;

	for (size_t i = 0; prev && i < prev->n_ifaces && !f; i++)
		if (prev->ifaces[i].mac && *prev->ifaces[i].mac &&
		    in_pod(&prev->ifaces[i], ctx->env.netns, pod))
			f = &prev->ifaces[i];
	if (!f)
		return cni_errorf(
		    &ctx->err, -EINVAL, CNI_ERR_INVALID_CONFIG, "deviceID is required",
		    "rdma-ns takes the device from \"deviceID\" (Multus sets it), "
		    "\"pciBusID\", the pciID of the previous plugin's interface, or the "
		    "MAC of its interface whose sandbox is %s; none is set",
		    ctx->env.netns);
	if (!cni_hw_parse_len(f->mac, mac, CNI_MAC_MAX, &len))
		return cni_errorf(&ctx->err, -EINVAL, CNI_ERR_INVALID_CONFIG, "invalid prevResult",
				  "interface %s has mac \"%s\"", f->name ? f->name : "", f->mac);
	ret = cni_netns_enter(sys, pod, &saved);
	if (!ret) {
		ret = cni_link_find_mac(sys, mac, len, f->name, name);
		if (!ret)
			ret = cni_ethtool_drvinfo(name, &info) ? -ENXIO : 0;
		cni_netns_restore(sys, &saved);
	}
	if (ret == -ENODEV)
		return cni_errorf(&ctx->err, ret, CNI_ERR_DEVICE, "no pod interface has the MAC",
				  "no netdev in %s has %s, the MAC of the previous plugin's "
				  "interface %s",
				  ctx->env.netns, f->mac, f->name ? f->name : "");
	if (ret == -ENXIO || (!ret && !cni_pci_addr_parse(info.bus_info, pci)))
		return cni_errorf(&ctx->err, -ENODEV, CNI_ERR_DEVICE,
				  "the pod interface has no PCI device",
				  "%s (%s) in %s: its driver %s reports no PCI address; set "
				  "\"deviceID\"",
				  name, f->mac, ctx->env.netns,
				  ret		 ? "(no ethtool)"
				  : *info.driver ? info.driver
						 : "(none)");
	if (ret)
		return cni_errorf(&ctx->err, ret, CNI_ERR_INTERNAL,
				  "cannot look the MAC up in the pod", "%s: %s", ctx->env.netns,
				  strerror(-ret));
	log_info("device %s: the PCI device of %s (%s) in the pod", pci, name, f->mac);
	return copy_str(dev, RDMANS_DEV_MAX, pci);
}

/* The VF a PCI address or auxiliary device belongs to ("" for a scalable
 * function, which has no VF but is as much the pod's own). */
static int vf_of(struct cni_ctx *ctx, const char *src, const char *dev,
		 char vf_addr[CNI_PCI_ADDR_LEN])
{
	char pci[CNI_PCI_ADDR_LEN];
	struct cni_pci_vf vf;
	bool aux = !cni_pci_addr_parse(dev, pci), sf = false;
	int ret = 0;

	if (aux)
		ret = cni_pci_aux_parent(CNI_AUX_ROOT, dev, pci, &sf);
	if (!ret)
		ret = cni_pci_vf_get(CNI_PCI_ROOT, pci, &vf);
	if (ret == -ENOTTY && sf) {
		vf_addr[0] = '\0';
		return 0;
	}
	if (ret == -ENODEV)
		return cni_errorf(&ctx->err, ret, CNI_ERR_DEVICE, "no such device",
				  "\"%s\" is %s; there is no such %s on this node", src, dev,
				  aux ? "auxiliary device" : "PCI function");
	if (ret == -ENOTTY)
		return cni_errorf(&ctx->err, -EINVAL, CNI_ERR_INVALID_CONFIG,
				  "deviceID is not a VF",
				  "\"%s\" is %s, %s%s: its RDMA device serves the host and every "
				  "VF; rdma-ns moves only a VF's RDMA devices",
				  src, dev, aux ? "an auxiliary device of " : "",
				  aux ? pci : "not a virtual function");
	if (ret)
		return cni_errorf(&ctx->err, ret, cni_error_code_for_errno(ret),
				  "cannot read the device topology", "%s: %s", dev, strerror(-ret));
	return copy_str(vf_addr, CNI_PCI_ADDR_LEN, vf.addr);
}

int rdmans_device(struct cni_sys *sys, struct cni_ctx *ctx, int pod, char dev[RDMANS_DEV_MAX])
{
	const char *prev = prev_pci_id(ctx, pod), *src = "deviceID";
	char vf[CNI_PCI_ADDR_LEN], want[CNI_PCI_ADDR_LEN];
	int ret = rdmans_configured_device(ctx->conf, dev, &src, &ctx->err);

	if (ret)
		return ret;
	if (!*dev && prev && *prev) {
		src = "prevResult pciID";
		if (!device_parse(prev, dev))
			return cni_errorf(&ctx->err, -EINVAL, CNI_ERR_INVALID_CONFIG,
					  "invalid prevResult", "pciID \"%s\" is not a PCI address",
					  prev);
	}
	if (!*dev) {
		src = "the pod interface's MAC";
		ret = device_from_mac(sys, ctx, pod, dev);
		if (ret)
			return ret;
	}
	ret = vf_of(ctx, src, dev, vf);
	if (!ret) {
		/* kubelet allocates the VF (or the auxiliary device itself). */
		const char *const held[] = {dev, vf};

		ret = cni_device_check(ctx, src, held, *vf ? 2 : 1);
	}
	if (ret || !prev || !*prev)
		return ret;
	if (!cni_pci_addr_parse(prev, want) || strcmp(want, vf))
		return cni_errorf(
		    &ctx->err, -EINVAL, CNI_ERR_INVALID_CONFIG,
		    "deviceID does not match the previous plugin's interface",
		    "\"%s\" is %s (VF %s), but the interface the previous plugin moved "
		    "into the pod is on %s",
		    src, dev, *vf ? vf : "none", prev);
	return 0;
}

/* The pod interface: the prevResult's in this sandbox, else CNI_IFNAME
 * (a chain gives every plugin the same). */
static const char *pod_ifname(struct cni_ctx *ctx, int pod)
{
	const struct cni_result *prev = ctx->conf->prev_result;

	for (size_t i = 0; prev && i < prev->n_ifaces; i++)
		if (prev->ifaces[i].name && *prev->ifaces[i].name &&
		    in_pod(&prev->ifaces[i], ctx->env.netns, pod))
			return prev->ifaces[i].name;
	return ctx->env.ifname;
}

int rdmans_devices_of(struct cni_sys *sys, struct cni_ctx *ctx, int pod, const char *dev,
		      struct cni_rdma_found *f)
{
	const char *ifname = pod_ifname(ctx, pod);
	struct cni_rdma_query q = {.device = dev,
				   .netns_fd = pod,
				   .netns = ctx->env.netns,
				   .ifname = ifname,
				   .soft_by_mac = ctx->node && ctx->node->soft_rdma_by_mac};
	int ret = cni_rdma_lookup(sys, &q, f);

	if (ret == -ENOTUNIQ)
		return cni_errorf(&ctx->err, ret, CNI_ERR_DEVICE,
				  "two RDMA devices match the pod interface",
				  "%s in %s: %s; delete the one that is not the pod's", ifname,
				  ctx->env.netns, f->tried);
	if (ret == -EADDRINUSE)
		return cni_errorf(&ctx->err, ret, CNI_ERR_DEVICE,
				  "the RDMA device by MAC is not proven the pod's",
				  "%s in %s: %s; give the pod interface a MAC no other interface "
				  "on the node has",
				  ifname, ctx->env.netns, f->tried);
	if (ret == -ENODEV)
		return cni_errorf(&ctx->err, ret, CNI_ERR_DEVICE, "no RDMA device for deviceID",
				  "%s: tried %s; is its RDMA driver loaded (or, for rxe and siw, "
				  "the device created over the pod interface)?",
				  dev, f->tried);
	if (ret)
		return cni_errorf(&ctx->err, ret, CNI_ERR_DEVICE, "cannot look the RDMA device up",
				  "%s: %s %s", dev, cni_rdma_strerror(ret), cni_sys_ext_ack(sys));
	if (f->in_netns)
		return cni_errorf(&ctx->err, -EEXIST, CNI_ERR_DEVICE,
				  "the RDMA device is in the pod already",
				  "%s (bound to %s) is in %s: was it moved by ib-sriov's "
				  "rdmaIsolation too? Use one of them",
				  f->names[0], ifname, ctx->env.netns);
	log_info("RDMA device %s of %s: %s", f->names[0], dev, cni_rdma_how_name(f->how));
	return 0;
}
