// SPDX-License-Identifier: Apache-2.0
/* Self-healing without GC. Multus forwards GC to the cluster network only,
 * and a DEL that never came (Multus or kubelet down, a node crash) leaves
 * a record that holds its VF for every later pod. An attachment whose pod
 * is gone (its netns path no longer exists, in a directory that shows this
 * mount view the runtime's namespace mounts) is released by the next ADD on
 * that device and by the node agent (reconcile/): release/gone.c tells and
 * releases; here, ADD notes what a later release needs and takes a stale
 * record that holds its device. */
#include <errno.h>
#include <string.h>

#include "release/release.h"
#include "add.h"
#include "base/cleanup.h"
#include "base/json.h"
#include "base/util.h"
#include "kernel/netns.h"

/* The most stale records one ADD releases: one device is held by one
 * record, unless the node was left in a state no ADD of ours makes. */
#define HEAL_MAX 4
/* A network whose IPAM config is larger is not kept in the record. */
#define HEAL_CONF_MAX (64 * 1024)

void ibsriov_heal_note(struct add *a)
{
	static const char *const keys[] = {"cniVersion", "name", "type", "ipam"};
	const struct cni_conf *c = a->ctx->conf;
	struct ibsriov_record *r = &a->rec;
	_cleanup_json_ struct json_object *o = NULL;
	struct json_object *v;
	const char *txt;
	size_t len = 0;

	/* As run_ipam: only those that get addresses. */
	if (!c->ipam_type || !*c->ipam_type || (a->vfio && a->ib) || a->pf_passthrough)
		return;
	o = json_object_new_object();
	if (!o)
		return;
	for (size_t i = 0; i < ARRAY_SIZE(keys); i++)
		if (json_object_object_get_ex(c->root, keys[i], &v) &&
		    json_object_object_add(o, keys[i], json_object_get(v)))
			json_object_put(v);
	txt = json_object_to_json_string_length(o, JSON_C_TO_STRING_PLAIN, &len);
	if (!txt || len > HEAL_CONF_MAX) {
		log_warn("the IPAM config of %s is not kept (%zu bytes): if its pod goes without "
			 "DEL, its leases stay",
			 r->name, len);
		return;
	}
	r->ipam_conf = strdup(txt);
	r->cni_path = strdup(a->ctx->env.path ? a->ctx->env.path : "");
	if (r->ipam_conf && r->cni_path)
		r->flags |= IBSRIOV_REC_HAS_IPAM;
}

bool ibsriov_heal_take(struct add *a, struct ibsriov_record *r)
{
	int gone;

	if (a->healed >= HEAL_MAX || strcmp(r->device, a->conf.device))
		return false;
	gone = ibsriov_pod_gone(a->sys, r);
	/* This mount view cannot tell: held by a live pod, for all we know. */
	if (gone < 0)
		log_warn("cannot tell whether netns %s of %s is gone: %s; kept", r->netns, r->name,
			 cni_netns_unseen_text(gone));
	if (gone <= 0)
		return false;
	a->stale = *r;
	memset(r, 0, sizeof(*r));
	a->has_stale = true;
	return true;
}

int ibsriov_heal(struct add *a)
{
	struct cni_ctx *ctx = a->ctx;
	struct ibsriov_record *r = &a->stale;
	bool same = r->network && !strcmp(r->network, ctx->conf->name);
	int ret =
	    ibsriov_release_gone(a->sys, r, same ? ctx->conf : NULL, ctx->env.path, &ctx->err);

	if (ret)
		log_warn("%s holds %s and its pod is gone (netns %s), but it cannot be released: "
			 "%s: %s",
			 r->name, r->device, r->netns, ctx->err.msg, ctx->err.details);
	else
		log_info("released %s of container %s (network %s): its netns %s is gone and DEL "
			 "never came; %s goes to %s",
			 r->ifname, r->container_id, r->network, r->netns, r->device,
			 ctx->env.containerid);
	/* The VF netdev is back under the name the release gave it, verified
	 * as the VF (sysfs names it the same); ADD reads it again there. */
	if (!ret && !a->vfio && (r->flags & IBSRIOV_REC_HAS_NETDEV) && *r->orig_name)
		copy_str(a->pci.netdev, sizeof(a->pci.netdev), r->orig_name);
	else if (!ret && !a->vfio)
		cni_pci_netdev(CNI_PCI_ROOT, a->conf.device, a->pci.netdev);
	ibsriov_record_clear(r);
	a->has_stale = false;
	a->healed++;
	return ret;
}
