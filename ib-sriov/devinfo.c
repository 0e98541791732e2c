// SPDX-License-Identifier: Apache-2.0
/* The CNI Plugin Device Information File of an attachment, as the Network
 * Plumbing WG Device Information Specification 1.1.0 defines it
 * (k8snetworkplumbingwg/device-info-spec, SPEC.md sections 3 and 4.2):
 *   "type": "pci", "version": "1.1.0",
 *   "pci": {"pci-address": the VF (or passed-through PF),
 *           "pf-pci-address": its PF (VFs only),
 *           "rdma-device": the VF's RDMA device as the pod sees it (the
 *           kernel keeps the name when rdmaIsolation or rdma-ns move it;
 *           absent for a vfio-bound function, which has none)}
 * and, where the spec leaves the map open, one object of our own, so that
 * no current or future key of the spec can collide with ours:
 *   "ibcni": {"vf-index": N of the PF's virtfnN, "pf-netdev": the PF's
 *             netdev, "link-layer": "InfiniBand" or "Ethernet", "port": 1
 *             (the VF's RDMA port, with "rdma-device"), "guid" (InfiniBand)
 *             or "mac" (RoCE): the address the pod got, "gids" (RoCE with
 *             an RDMA device): [{"address": "10.56.0.2", "index": 1}], the
 *             RoCE v2 GID index of each pod address, for NCCL_IB_GID_INDEX;
 *             absent for a passed-through PF, of which only the address is known}
 * "representor-device" is left out: a VF in legacy SR-IOV mode has none,
 * and ib-sriov does not look for one in switchdev mode. Multus reads the
 * file into network-status through network-attachment-definition-client's
 * DeviceInfo type, which keeps the spec's keys only ("ibcni" stays in the
 * file). */
#include <errno.h>
#include <net/if_arp.h>
#include <stdio.h>
#include <string.h>

#include "base/cleanup.h"
#include "base/json.h"
#include "devinfo.h"
#include "guid.h"
#include "protocol/conf_table.h"
#include "state/devinfo.h"

int ibsriov_devinfo_name(struct cni_ctx *ctx, char *name, size_t len)
{
	const char *path = NULL;
	int ret = cni_conf_string(ctx->conf->runtime_config, "runtimeConfig", "CNIDeviceInfoFile",
				  &path, &ctx->err);

	if (ret)
		return ret;
	ret = cni_devinfo_name(path, ctx->conf->name, ctx->env.containerid, ctx->env.ifname, name,
			       len);
	if (!ret)
		return 0;
	if (path && *path)
		return cni_errorf(&ctx->err, ret, CNI_ERR_INVALID_CONFIG, "invalid configuration",
				  "\"runtimeConfig.CNIDeviceInfoFile\" is \"%s\"; it must name a "
				  "file directly in %s/ (letters, digits, '_', '.', '-') ending "
				  "in \"-%s_%s\", this attachment's, as Multus names it",
				  path, CNI_DEVINFO_SPEC_DIR, ctx->env.containerid,
				  ctx->env.ifname);
	return cni_errorf(&ctx->err, ret, CNI_ERR_INVALID_CONFIG, "invalid configuration",
			  "\"name\" is \"%s\"; a network name must start with a letter or digit "
			  "followed by letters, digits, '_', '.' or '-' (the CNI specification's "
			  "rule), and with CNI_CONTAINERID and CNI_IFNAME fit in %d bytes; "
			  "rename the network",
			  ctx->conf->name ? ctx->conf->name : "", CNI_STATE_NAME_MAX);
}

static void put_str(struct cni_json_buf *b, const char *key, const char *v, bool first)
{
	cni_json_put_key(b, key, first);
	cni_json_put_str(b, v);
}

static void put_ours(struct cni_json_buf *b, const struct ibsriov_record *r,
		     const struct ibsriov_devinfo *d)
{
	char buf[32];

	/* A passed-through PF: nothing but its address is known. */
	if (r->flags & IBSRIOV_REC_PF_PASSTHROUGH)
		return;
	cni_json_put_key(b, "ibcni", false);
	cni_json_put_raw(b, "{");
	snprintf(buf, sizeof(buf), "%d", r->vf);
	cni_json_put_key(b, "vf-index", true);
	cni_json_put_raw(b, buf);
	put_str(b, "pf-netdev", r->pf, false);
	put_str(b, "link-layer", d->ib ? "InfiniBand" : "Ethernet", false);
	if (r->kind != IBSRIOV_VFIO && *d->rdma_dev) {
		cni_json_put_key(b, "port", false);
		cni_json_put_raw(b, "1");
	}
	if (r->flags & IBSRIOV_REC_HAS_GUID)
		put_str(b, "guid", ibsriov_guid_str(r->guid, buf, sizeof(buf)), false);
	if (r->flags & IBSRIOV_REC_HAS_MAC)
		put_str(b, "mac", ibsriov_hw_str(r->mac, 6, buf, sizeof(buf)), false);
	if (d->n_gids) {
		cni_json_put_key(b, "gids", false);
		cni_json_put_raw(b, "[");
		for (unsigned int i = 0; i < d->n_gids; i++) {
			cni_json_put_raw(b, i ? ",{" : "{");
			put_str(b, "address", d->gids[i].address, true);
			snprintf(buf, sizeof(buf), "%u", d->gids[i].index);
			cni_json_put_key(b, "index", false);
			cni_json_put_raw(b, buf);
			cni_json_put_raw(b, "}");
		}
		cni_json_put_raw(b, "]");
	}
	cni_json_put_raw(b, "}");
}

/* The file's text (caller frees), NULL on ENOMEM. */
static char *devinfo_text(const struct ibsriov_record *r, const struct ibsriov_devinfo *d)
{
	struct cni_json_buf b = {0};

	cni_json_put_raw(&b, "{");
	put_str(&b, "type", "pci", true);
	put_str(&b, "version", CNI_DEVINFO_VERSION, false);
	cni_json_put_key(&b, "pci", false);
	cni_json_put_raw(&b, "{");
	put_str(&b, "pci-address", r->device, true);
	if (!(r->flags & IBSRIOV_REC_PF_PASSTHROUGH))
		put_str(&b, "pf-pci-address", d->pf_pci, false);
	if (r->kind != IBSRIOV_VFIO && *d->rdma_dev)
		put_str(&b, "rdma-device", d->rdma_dev, false);
	cni_json_put_raw(&b, "}");
	put_ours(&b, r, d);
	cni_json_put_raw(&b, "}\n");
	return cni_json_buf_take(&b);
}

int ibsriov_devinfo_write(const struct ibsriov_record *r, const struct ibsriov_devinfo *d,
			  struct cni_error *err)
{
	_cleanup_free_ char *text = devinfo_text(r, d);
	int ret = -ENOMEM;

	/* A file Multus copied from the device plugin's (the spec's section
	 * 4.2.1) is replaced: ours holds the same address and what only the
	 * CNI knows. Failing the ADD rather than warning: NCCL picks its HCA
	 * from this, and a pod without it would pick silently wrong. */
	if (text)
		ret = cni_devinfo_write(IBSRIOV_DEVINFO_DIR, r->devinfo, text);
	if (ret)
		return cni_errorf(err, ret, CNI_ERR_IO, "cannot write the device information file",
				  "%s/%s: %s", IBSRIOV_DEVINFO_DIR, r->devinfo, strerror(-ret));
	return 0;
}

int ibsriov_devinfo_remove(const struct ibsriov_record *r, struct cni_error *err)
{
	int ret;

	if (!(r->flags & IBSRIOV_REC_HAS_DEVINFO))
		return 0;
	ret = cni_devinfo_remove(IBSRIOV_DEVINFO_DIR, r->devinfo);
	if (ret)
		return cni_errorf(err, ret, CNI_ERR_IO, "cannot remove the device information file",
				  "%s/%s: %s", IBSRIOV_DEVINFO_DIR, r->devinfo, strerror(-ret));
	return 0;
}
