// SPDX-License-Identifier: Apache-2.0
/* Upgrade and downgrade in place. The Go ib-sriov-cni caches its NetConf at
 * IBSRIOV_GO_DIR/<containerID>-<ifname> and its DEL undoes an attachment
 * from that file alone. We read such caches (and ibcni 0.x records, kept
 * at the same path) as records, and leave a cache in its format beside
 * each attachment of ours, so either plugin's DEL can undo either's ADD. */
#include <errno.h>
#include <linux/if_link.h>
#include <string.h>

#include "base/cleanup.h"
#include "guid.h"
#include "base/json.h"
#include "record.h"
#include "state/state.h"
#include "base/util.h"

static const char *str_key(struct json_object *o, const char *key)
{
	struct json_object *v;

	if (!json_object_object_get_ex(o, key, &v) || !json_object_is_type(v, json_type_string))
		return "";
	return json_object_get_string(v);
}

static bool bool_key(struct json_object *o, const char *key)
{
	struct json_object *v;

	return json_object_object_get_ex(o, key, &v) && json_object_is_type(v, json_type_boolean) &&
	       json_object_get_boolean(v);
}

/* What the Go DEL would undo: link state back to auto when it set one, the
 * GUID back to HostIFGUID (all ones for "none", as the Go plugin does). */
static void go_vf_orig(struct json_object *o, struct ibsriov_record *r)
{
	const char *guid = str_key(o, "HostIFGUID");
	uint64_t g;

	if (*str_key(o, "link_state")) {
		r->vf_orig.mask |= CNI_VF_LINK_STATE;
		r->vf_orig.link_state = IFLA_VF_LINK_STATE_AUTO;
	}
	if (*guid && cni_guid_parse(guid, &g)) {
		r->vf_orig.mask |= CNI_VF_NODE_GUID | CNI_VF_PORT_GUID;
		r->vf_orig.node_guid = r->vf_orig.port_guid = g ? g : UINT64_MAX;
	}
	if (r->vf_orig.mask)
		r->flags |= IBSRIOV_REC_HAS_VF_ORIG;
	r->vf_changed = r->vf_orig.mask;
}

static int go_rdma(struct json_object *o, struct ibsriov_record *r)
{
	struct json_object *st;
	const char *dev;

	if (!bool_key(o, "rdmaIsolation") || !json_object_object_get_ex(o, "RdmaNetState", &st))
		return 0;
	dev = str_key(st, "containerRdmaDevName");
	if (!*dev)
		return 0;
	if (copy_str(r->rdma[0], sizeof(r->rdma[0]), dev))
		return -EBADMSG;
	r->n_rdma = 1;
	r->flags |= IBSRIOV_REC_HAS_RDMA;
	return 0;
}

/* The container ID is not in a Go cache: it is the file name without
 * "-<ContIFNames>". */
static int go_container_id(const char *file, const char *ifname, char **id)
{
	size_t n = strlen(file), m = strlen(ifname);

	if (!m || n < m + 2 || file[n - m - 1] != '-' || strcmp(file + n - m, ifname))
		return -EBADMSG;
	*id = strndup(file, n - m - 1);
	return *id ? 0 : -ENOMEM;
}

static int from_go(struct json_object *o, const char *file, struct ibsriov_record *r)
{
	bool vfio = bool_key(o, "vfioPciMode");
	struct json_object *v;
	int ret;

	if (!cni_pci_addr_parse(str_key(o, "deviceID"), r->device) ||
	    copy_str(r->ifname, sizeof(r->ifname), str_key(o, "ContIFNames")) ||
	    copy_str(r->pf, sizeof(r->pf), str_key(o, "Master")) ||
	    copy_str(r->orig_name, sizeof(r->orig_name), str_key(o, "HostIFNames")))
		return -EBADMSG;
	ret = go_container_id(file, r->ifname, &r->container_id);
	if (ret)
		return ret;
	r->network = strdup(str_key(o, "name"));
	if (!r->network)
		return -ENOMEM;
	if (json_object_object_get_ex(o, "VFID", &v) && json_object_is_type(v, json_type_int))
		r->vf = json_object_get_int(v);
	r->kind = vfio ? IBSRIOV_VFIO : IBSRIOV_IB;
	r->flags |= IBSRIOV_REC_GO_CACHE | IBSRIOV_REC_COMPLETE;
	if (!vfio && *r->orig_name) {
		/* Go leaves the VF down under its host name; no MTU or MAC kept. */
		r->flags |= IBSRIOV_REC_HAS_NETDEV;
		copy_str(r->tmpname, sizeof(r->tmpname), r->orig_name);
	}
	go_vf_orig(o, r);
	return go_rdma(o, r);
}

int ibsriov_gocache_parse(struct json_object *o, const char *file, const char *netns,
			  struct ibsriov_record *r)
{
	int ret;

	memset(r, 0, sizeof(*r));
	/* ibcni 0.x wrote its records here, in our own format. */
	if (json_object_object_get_ex(o, "containerID", NULL) &&
	    json_object_object_get_ex(o, "kind", NULL))
		ret = ibsriov_record_from_json(o, r);
	else if (json_object_object_get_ex(o, "deviceID", NULL) &&
		 json_object_object_get_ex(o, "ContIFNames", NULL))
		ret = from_go(o, file, r);
	else
		ret = -EBADMSG;
	if (!ret)
		r->flags |= IBSRIOV_REC_FROM_GO_DIR;
	if (!ret && !(r->flags & IBSRIOV_REC_GO_CACHE) && r->netns && *r->netns)
		return 0;
	/* The Go cache has no netns: the DEL's CNI_NETNS is the pod's. */
	if (!ret) {
		free(r->netns);
		r->netns = strdup(netns ? netns : "");
		ret = r->netns ? 0 : -ENOMEM;
	}
	if (ret)
		ibsriov_record_clear(r);
	return ret;
}

static bool same_tuple(const struct ibsriov_record *r, const char *id, const char *ifname)
{
	return r->container_id && !strcmp(r->container_id, id) && !strcmp(r->ifname, ifname);
}

int ibsriov_gocache_find(const char *id, const char *ifname, const char *netns,
			 struct ibsriov_record *r)
{
	_cleanup_json_ struct json_object *o = NULL;
	char file[NAME_MAX + 1];
	int ret;

	/* Cleared whatever the outcome: callers clear it on error too. */
	memset(r, 0, sizeof(*r));
	if (check_snprintf(file, sizeof(file), "%s-%s", id, ifname))
		return -ENOENT;
	ret = cni_state_read(IBSRIOV_GO_DIR, file, &o);
	/* A name too long for the directory can hold no cache either. */
	if (ret == -ENAMETOOLONG)
		return -ENOENT;
	if (ret)
		return ret;
	ret = ibsriov_gocache_parse(o, file, netns, r);
	if (ret)
		return ret;
	if (same_tuple(r, id, ifname))
		return 0;
	ibsriov_record_clear(r);
	return -ESTALE;
}

static int add_str(struct json_object *o, const char *key, const char *v)
{
	struct json_object *s = json_object_new_string(v);

	if (!s || json_object_object_add(o, key, s)) {
		json_object_put(s);
		return -ENOMEM;
	}
	return 0;
}

static int add_obj(struct json_object *o, const char *key, struct json_object *v)
{
	if (!v || json_object_object_add(o, key, v)) {
		json_object_put(v);
		return -ENOMEM;
	}
	return 0;
}

static const char *link_state_name(uint32_t s)
{
	return s == IFLA_VF_LINK_STATE_ENABLE	 ? "enable"
	       : s == IFLA_VF_LINK_STATE_DISABLE ? "disable"
						 : "auto";
}

/* The Go DEL restores HostIFGUID when present and resets link state to
 * auto when link_state is set: give it exactly what we would restore. */
static int go_vf_keys(struct json_object *o, const struct ibsriov_record *r)
{
	const struct cni_vf *v = &r->vf_orig;
	char g[32];
	int ret = 0;

	if (r->vf_changed & CNI_VF_NODE_GUID)
		ret = add_str(o, "HostIFGUID", cni_guid_str(v->node_guid, g, sizeof(g)));
	if (!ret && (r->vf_changed & CNI_VF_LINK_STATE))
		ret = add_str(o, "link_state", link_state_name(v->link_state));
	return ret;
}

/* One key of a Go cache: a string, or an object it takes (NULL when its
 * allocation failed). */
struct go_key {
	const char *key, *s;
	struct json_object *v;
	bool obj;
};

#define GO_STR(k, val)                                                                             \
	{                                                                                          \
		.key = (k), .s = (val)                                                             \
	}
#define GO_OBJ(k, val)                                                                             \
	{                                                                                          \
		.key = (k), .v = (val), .obj = true                                                \
	}

/* Add keys in order; after a failure the objects not added are put. */
static int add_keys(struct json_object *o, const struct go_key *keys, size_t n)
{
	int ret = 0;

	for (size_t i = 0; i < n; i++) {
		if (ret)
			json_object_put(keys[i].v);
		else if (keys[i].obj)
			ret = add_obj(o, keys[i].key, keys[i].v);
		else
			ret = add_str(o, keys[i].key, keys[i].s);
	}
	return ret;
}

static int go_rdma_keys(struct json_object *o, const struct ibsriov_record *r)
{
	struct json_object *st = json_object_new_object();
	const struct go_key keys[] = {
	    GO_STR("deviceID", r->device),
	    GO_STR("sandboxRdmaDevName", r->rdma[0]),
	    GO_STR("containerRdmaDevName", r->rdma[0]),
	};
	int ret = add_obj(o, "rdmaIsolation", json_object_new_boolean(1));

	if (ret) {
		json_object_put(st);
		return ret;
	}
	ret = add_obj(o, "RdmaNetState", st);
	if (ret)
		return ret;
	return add_keys(st, keys, ARRAY_SIZE(keys));
}

static struct json_object *go_ipam(const char *ipam_type)
{
	struct json_object *ipam = json_object_new_object();

	if (ipam && ipam_type && add_str(ipam, "type", ipam_type)) {
		json_object_put(ipam);
		return NULL;
	}
	return ipam;
}

static struct json_object *go_json(const struct ibsriov_record *r, const char *cni_version,
				   const char *ipam_type)
{
	_cleanup_json_ struct json_object *o = json_object_new_object();
	const struct go_key keys[] = {
	    /* "ibcni" marks our twin (the Go plugin ignores unknown keys). */
	    GO_OBJ("ibcni", json_object_new_boolean(1)),
	    GO_STR("cniVersion", cni_version),
	    GO_STR("name", r->network),
	    GO_STR("type", "ib-sriov"),
	    GO_OBJ("ipam", go_ipam(ipam_type)),
	    GO_STR("Master", r->pf),
	    GO_STR("deviceID", r->device),
	    GO_OBJ("VFID", json_object_new_int(r->vf)),
	    GO_STR("HostIFNames", r->orig_name),
	    GO_STR("ContIFNames", r->ifname),
	};
	int ret;

	if (!o) {
		for (size_t i = 0; i < ARRAY_SIZE(keys); i++)
			json_object_put(keys[i].v);
		return NULL;
	}
	ret = add_keys(o, keys, ARRAY_SIZE(keys));
	if (!ret)
		ret = go_vf_keys(o, r);
	if (!ret && r->kind == IBSRIOV_VFIO)
		ret = add_obj(o, "vfioPciMode", json_object_new_boolean(1));
	if (!ret && r->n_rdma)
		ret = go_rdma_keys(o, r);
	if (ret)
		return NULL;
	return steal_ptr(o);
}

int ibsriov_gocache_save(struct ibsriov_record *r, const char *cni_version, const char *ipam_type)
{
	_cleanup_json_ struct json_object *o = NULL;
	char file[NAME_MAX + 1];
	int ret;

	/* A name the Go plugin could not have used: nothing to leave for it. */
	if (check_snprintf(file, sizeof(file), "%s-%s", r->container_id, r->ifname))
		return 0;
	o = go_json(r, cni_version, ipam_type);
	if (!o)
		return -ENOMEM;
	ret = cni_state_write(IBSRIOV_GO_DIR, file, o);
	if (!ret && !cni_state_identity(IBSRIOV_GO_DIR, file, r->go_twin, sizeof(r->go_twin)))
		r->flags |= IBSRIOV_REC_HAS_GO_TWIN;
	return ret;
}
