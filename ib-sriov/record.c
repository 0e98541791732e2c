// SPDX-License-Identifier: Apache-2.0
/* The attachment record on disk: one key table, both directions. */
#include <errno.h>
#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/cleanup.h"
#include "guid.h"
#include "base/json.h"
#include "record.h"
#include "state/state.h"
#include "base/util.h"

enum key_type {
	K_STR,	  /* char[size] */
	K_PSTR,	  /* char *, owned */
	K_INT,	  /* int */
	K_U32,	  /* uint32_t / unsigned int */
	K_U16,	  /* uint16_t */
	K_BOOL,	  /* bool */
	K_FLAG,	  /* a bit of flags, stored as true */
	K_KIND,	  /* enum ibsriov_kind as "eth" / "ib" / "vfio" */
	K_GUID,	  /* uint64_t as "xx:..:xx" (0.x wrote an integer) */
	K_MAC6,	  /* unsigned char[6] as "xx:..:xx" */
	K_HWADDR, /* orig_mac[] with orig_mac_len */
	K_RDMA,	  /* rdma[][] with n_rdma */
	K_VF,	  /* struct cni_vf, nested object of vf_keys */
	K_ATTRS,  /* struct cni_link_attrs, nested object of attr_keys */
	K_INDEX,  /* rdma_index[] with n_rdma */
};

struct key {
	const char *name;
	enum key_type type;
	size_t off, size;
	uint32_t flag; /* written only when set; set when read */
	bool required;
};

#define REC(f) offsetof(struct ibsriov_record, f), sizeof(((struct ibsriov_record *)0)->f)
#define VF(f)  offsetof(struct cni_vf, f), sizeof(((struct cni_vf *)0)->f)

static const struct key vf_keys[] = {
    {"mask", K_U32, VF(mask), 0, true},
    {"vlan", K_U32, VF(vlan), 0, false},
    {"qos", K_U32, VF(qos), 0, false},
    {"proto", K_U16, VF(vlan_proto), 0, false},
    {"min_tx_rate", K_U32, VF(min_tx_rate), 0, false},
    {"max_tx_rate", K_U32, VF(max_tx_rate), 0, false},
    {"spoofchk", K_U32, VF(spoofchk), 0, false},
    {"trust", K_U32, VF(trust), 0, false},
    {"link_state", K_U32, VF(link_state), 0, false},
    {"node_guid", K_GUID, VF(node_guid), 0, false},
    {"port_guid", K_GUID, VF(port_guid), 0, false},
    {"mac", K_MAC6, VF(mac), 0, false},
    {NULL},
};

#define ATTR(f) offsetof(struct cni_link_attrs, f), sizeof(((struct cni_link_attrs *)0)->f)

/* The netdev's own attributes; mask says which the kernel reported. */
static const struct key attr_keys[] = {
    {"mask", K_U32, ATTR(mask), 0, true},
    {"alias", K_STR, ATTR(alias), 0, false},
    {"flags", K_U32, ATTR(flags), 0, false},
    {"group", K_U32, ATTR(group), 0, false},
    {"txqlen", K_U32, ATTR(txqlen), 0, false},
    {"gso_max_size", K_U32, ATTR(gso_max_size), 0, false},
    {"gso_max_segs", K_U32, ATTR(gso_max_segs), 0, false},
    {"gro_max_size", K_U32, ATTR(gro_max_size), 0, false},
    {"gso_ipv4_max_size", K_U32, ATTR(gso_ipv4_max_size), 0, false},
    {"gro_ipv4_max_size", K_U32, ATTR(gro_ipv4_max_size), 0, false},
    {NULL},
};

/* Keys an older build does not know it ignores (decode_obj reads known
 * keys only), so new optional keys keep records readable by it. */
static const struct key rec_keys[] = {
    {"version", K_INT, REC(version), 0, false},
    {"network", K_PSTR, REC(network), 0, true},
    {"containerID", K_PSTR, REC(container_id), 0, true},
    {"ifname", K_STR, REC(ifname), 0, true},
    {"netns", K_PSTR, REC(netns), 0, false},
    {"device", K_STR, REC(device), 0, true},
    {"kind", K_KIND, REC(kind), 0, true},
    {"pf", K_STR, REC(pf), 0, false},
    {"pf_ifindex", K_INT, REC(pf_ifindex), 0, false},
    {"vf", K_INT, REC(vf), 0, false},
    {"orig_name", K_STR, REC(orig_name), IBSRIOV_REC_HAS_NETDEV, false},
    {"tmpname", K_STR, REC(tmpname), IBSRIOV_REC_HAS_NETDEV, false},
    {"link_kind", K_STR, REC(link_kind), IBSRIOV_REC_HAS_NETDEV, false},
    {"orig_mtu", K_U32, REC(orig_mtu), IBSRIOV_REC_HAS_NETDEV, false},
    {"orig_up", K_BOOL, REC(orig_up), IBSRIOV_REC_HAS_NETDEV, false},
    {"orig_mac", K_HWADDR, REC(orig_mac), IBSRIOV_REC_HAS_NETDEV, false},
    {"orig_ifindex", K_INT, REC(orig_ifindex), IBSRIOV_REC_HAS_NETDEV, false},
    {"pod_ifindex", K_INT, REC(pod_ifindex), IBSRIOV_REC_HAS_NETDEV, false},
    {"iflink", K_INT, REC(iflink), IBSRIOV_REC_HAS_NETDEV, false},
    {"attrs", K_ATTRS, REC(orig_attrs), IBSRIOV_REC_HAS_ATTRS, false},
    {"vf_orig", K_VF, REC(vf_orig), IBSRIOV_REC_HAS_VF_ORIG, false},
    {"vf_changed", K_U32, REC(vf_changed), IBSRIOV_REC_HAS_VF_ORIG, false},
    {"mac_unset", K_FLAG, 0, 0, IBSRIOV_REC_MAC_UNSET, false},
    {"child", K_FLAG, 0, 0, IBSRIOV_REC_HAS_CHILD, false},
    {"rdma", K_RDMA, REC(rdma), IBSRIOV_REC_HAS_RDMA, false},
    {"rdma_index", K_INDEX, REC(rdma_index), IBSRIOV_REC_HAS_RDMA_INDEX, false},
    {"pf_passthrough", K_FLAG, 0, 0, IBSRIOV_REC_PF_PASSTHROUGH, false},
    {"complete", K_FLAG, 0, 0, IBSRIOV_REC_COMPLETE, false},
    {"go_twin", K_STR, REC(go_twin), IBSRIOV_REC_HAS_GO_TWIN, false},
    {"mac", K_MAC6, REC(mac), IBSRIOV_REC_HAS_MAC, false},
    {"guid", K_GUID, REC(guid), IBSRIOV_REC_HAS_GUID, false},
    {NULL},
};

static const char *const kind_names[] = {"eth", "ib", "vfio"};

int ibsriov_record_name(const char *id, const char *ifname, char *buf, size_t len)
{
	int ret = check_snprintf(buf, len, "%s:%s", id, ifname);

	if (ret)
		return ret;
	if (strlen(buf) > IBSRIOV_RECORD_NAME_MAX)
		return -ENAMETOOLONG;
	if (!*id || !*ifname || strchr(buf, '/') || buf[0] == '.' || strchr(id, ':'))
		return -EINVAL;
	return 0;
}

int ibsriov_record_init(struct ibsriov_record *r, const char *network, const char *id,
			const char *ifname, const char *netns)
{
	int ret;

	memset(r, 0, sizeof(*r));
	r->version = IBSRIOV_RECORD_VERSION;
	ret = ibsriov_record_name(id, ifname, r->name, sizeof(r->name));
	if (ret)
		return ret;
	if (copy_str(r->ifname, sizeof(r->ifname), ifname))
		return -EINVAL;
	r->network = strdup(network ? network : "");
	r->container_id = strdup(id);
	r->netns = strdup(netns ? netns : "");
	return r->network && r->container_id && r->netns ? 0 : -ENOMEM;
}

void ibsriov_record_clear(struct ibsriov_record *r)
{
	free(r->network);
	free(r->container_id);
	free(r->netns);
	memset(r, 0, sizeof(*r));
}

/* Records are written as text straight from the key table, byte for byte
 * what cni_json_dump() makes of the same object, without building the tree
 * (a record is saved twice an ADD). */
static void text_one(struct cni_json_buf *b, const struct key *k, const void *base);

static void text_obj(struct cni_json_buf *b, const struct key *keys, const void *base,
		     uint32_t flags)
{
	bool first = true;

	cni_json_put_raw(b, "{");
	for (const struct key *k = keys; k->name; k++) {
		if (k->flag && !(flags & k->flag))
			continue;
		cni_json_put_key(b, k->name, first);
		first = false;
		text_one(b, k, base);
	}
	cni_json_put_raw(b, "}");
}

static void text_num(struct cni_json_buf *b, int64_t v)
{
	char num[CNI_NUM_MAX];

	cni_json_put_raw(b, cni_i64_str(v, num));
}

static void text_one(struct cni_json_buf *b, const struct key *k, const void *base)
{
	const char *p = (const char *)base + k->off;
	const struct ibsriov_record *r = base;
	char buf[64];

	switch (k->type) {
	case K_STR:
		cni_json_put_str(b, p);
		break;
	case K_PSTR:
		cni_json_put_str(b, *(char *const *)(const void *)p ?: "");
		break;
	case K_INT:
		text_num(b, *(const int *)(const void *)p);
		break;
	case K_U32:
		text_num(b, *(const uint32_t *)(const void *)p);
		break;
	case K_U16:
		text_num(b, *(const uint16_t *)(const void *)p);
		break;
	case K_BOOL:
		cni_json_put_raw(b, *(const bool *)(const void *)p ? "true" : "false");
		break;
	case K_FLAG:
		cni_json_put_raw(b, "true");
		break;
	case K_KIND:
		cni_json_put_str(b, kind_names[*(const enum ibsriov_kind *)(const void *)p]);
		break;
	case K_GUID:
		cni_json_put_str(
		    b, ibsriov_guid_str(*(const uint64_t *)(const void *)p, buf, sizeof(buf)));
		break;
	case K_MAC6:
		cni_json_put_str(b, ibsriov_hw_str((const unsigned char *)p, 6, buf, sizeof(buf)));
		break;
	case K_HWADDR:
		cni_json_put_str(b, ibsriov_hw_str(r->orig_mac, r->orig_mac_len, buf, sizeof(buf))
					?: "");
		break;
	case K_RDMA:
		cni_json_put_raw(b, "[");
		for (unsigned int i = 0; i < r->n_rdma; i++) {
			if (i)
				cni_json_put_raw(b, ",");
			cni_json_put_str(b, r->rdma[i]);
		}
		cni_json_put_raw(b, "]");
		break;
	case K_INDEX:
		cni_json_put_raw(b, "[");
		for (unsigned int i = 0; i < r->n_rdma; i++) {
			if (i)
				cni_json_put_raw(b, ",");
			text_num(b, r->rdma_index[i]);
		}
		cni_json_put_raw(b, "]");
		break;
	case K_VF:
		text_obj(b, vf_keys, p, 0);
		break;
	case K_ATTRS:
		text_obj(b, attr_keys, p, 0);
		break;
	}
}

char *ibsriov_record_text(const struct ibsriov_record *r)
{
	struct cni_json_buf b = {0};

	text_obj(&b, rec_keys, r, r->flags);
	return cni_json_buf_take(&b);
}

static int decode_int(struct json_object *v, int64_t min, int64_t max, int64_t *out)
{
	if (!json_object_is_type(v, json_type_int))
		return -EBADMSG;
	errno = 0;
	*out = json_object_get_int64(v);
	return errno || *out < min || *out > max ? -EBADMSG : 0;
}

static int decode_str(struct json_object *v, const char **s)
{
	if (!json_object_is_type(v, json_type_string))
		return -EBADMSG;
	*s = json_object_get_string(v);
	/* An embedded NUL would make two records look alike. */
	return strlen(*s) == (size_t)json_object_get_string_len(v) ? 0 : -EBADMSG;
}

static int decode_guid(struct json_object *v, uint64_t *g)
{
	const char *s;

	if (json_object_is_type(v, json_type_int)) {
		/* 0.x records: the u64 stored as a signed integer. */
		*g = (uint64_t)json_object_get_int64(v);
		return 0;
	}
	if (decode_str(v, &s))
		return -EBADMSG;
	return ibsriov_guid_parse(s, g) ? 0 : -EBADMSG;
}

static int decode_obj(const struct key *keys, void *base, uint32_t *flags, struct json_object *o);

static int decode_rdma(struct json_object *v, struct ibsriov_record *r)
{
	size_t n;

	if (!json_object_is_type(v, json_type_array))
		return -EBADMSG;
	n = json_object_array_length(v);
	if (n > IBSRIOV_RECORD_RDMA_MAX)
		return -EBADMSG;
	for (size_t i = 0; i < n; i++) {
		const char *s;

		if (decode_str(json_object_array_get_idx(v, i), &s) ||
		    copy_str(r->rdma[i], sizeof(r->rdma[i]), s))
			return -EBADMSG;
	}
	r->n_rdma = (unsigned int)n;
	return 0;
}

/* After "rdma" (the key table's order): one index per name. */
static int decode_index(struct json_object *v, struct ibsriov_record *r)
{
	int64_t n;

	if (!json_object_is_type(v, json_type_array) || json_object_array_length(v) != r->n_rdma)
		return -EBADMSG;
	for (unsigned int i = 0; i < r->n_rdma; i++) {
		if (decode_int(json_object_array_get_idx(v, i), 0, UINT32_MAX, &n))
			return -EBADMSG;
		r->rdma_index[i] = (uint32_t)n;
	}
	return 0;
}

static int decode_one(const struct key *k, void *base, struct json_object *v)
{
	char *p = (char *)base + k->off;
	struct ibsriov_record *r = base;
	const char *s;
	int64_t n;

	switch (k->type) {
	case K_STR:
		return decode_str(v, &s) ?: copy_str(p, k->size, s) ? -EBADMSG : 0;
	case K_PSTR:
		if (decode_str(v, &s))
			return -EBADMSG;
		free(*(char **)(void *)p);
		*(char **)(void *)p = strdup(s);
		return *(char **)(void *)p ? 0 : -ENOMEM;
	case K_INT:
		return decode_int(v, INT32_MIN, INT32_MAX, &n) ?: (*(int *)(void *)p = (int)n, 0);
	case K_U32:
		return decode_int(v, 0, UINT32_MAX, &n)
			   ?: (*(uint32_t *)(void *)p = (uint32_t)n, 0);
	case K_U16:
		return decode_int(v, 0, UINT16_MAX, &n)
			   ?: (*(uint16_t *)(void *)p = (uint16_t)n, 0);
	case K_BOOL:
		/* 0.x records wrote 0/1. */
		if (json_object_is_type(v, json_type_int) ||
		    json_object_is_type(v, json_type_boolean)) {
			*(bool *)(void *)p = json_object_get_int64(v) != 0;
			return 0;
		}
		return -EBADMSG;
	case K_KIND:
		if (decode_str(v, &s))
			return -EBADMSG;
		for (size_t i = 0; i < ARRAY_SIZE(kind_names); i++)
			if (!strcmp(s, kind_names[i])) {
				*(enum ibsriov_kind *)(void *)p = (enum ibsriov_kind)i;
				return 0;
			}
		return -EBADMSG;
	case K_GUID:
		return decode_guid(v, (uint64_t *)(void *)p);
	case K_MAC6:
		return decode_str(v, &s)
			   ?: ibsriov_hw_parse(s, (unsigned char *)p, 6) ? 0
									 : -EBADMSG;
	case K_HWADDR: {
		size_t len;

		if (decode_str(v, &s))
			return -EBADMSG;
		len = (strlen(s) + 1) / 3;
		if (!*s) {
			r->orig_mac_len = 0;
			return 0;
		}
		if (len > CNI_MAC_MAX || !ibsriov_hw_parse(s, r->orig_mac, len))
			return -EBADMSG;
		r->orig_mac_len = (unsigned int)len;
		return 0;
	}
	case K_RDMA:
		return decode_rdma(v, r);
	case K_INDEX:
		return decode_index(v, r);
	case K_ATTRS:
		if (!json_object_is_type(v, json_type_object))
			return -EBADMSG;
		return decode_obj(attr_keys, p, NULL, v);
	case K_VF:
		if (!json_object_is_type(v, json_type_object))
			return -EBADMSG;
		return decode_obj(vf_keys, p, NULL, v);
	case K_FLAG:
		break;
	}
	return -EBADMSG;
}

static int decode_obj(const struct key *keys, void *base, uint32_t *flags, struct json_object *o)
{
	for (const struct key *k = keys; k->name; k++) {
		struct json_object *v;
		int ret;

		if (!json_object_object_get_ex(o, k->name, &v)) {
			if (k->required)
				return -EBADMSG;
			continue;
		}
		if (k->type == K_FLAG) {
			if (json_object_get_int64(v) || json_object_get_boolean(v))
				*flags |= k->flag;
			continue;
		}
		ret = decode_one(k, base, v);
		if (ret)
			return ret;
		if (flags)
			*flags |= k->flag;
	}
	return 0;
}

int ibsriov_record_from_json(struct json_object *o, struct ibsriov_record *r)
{
	bool changed_known;
	int ret;

	r->version = 1; /* 0.x records carry no version */
	ret = decode_obj(rec_keys, r, &r->flags, o);
	if (ret)
		return ret;
	/* 0.x moved the VF without noting its index in the pod: the kernel
	 * keeps the index across the move when it can. */
	if (r->version < 2 && !r->pod_ifindex)
		r->pod_ifindex = r->orig_ifindex;
	/* 0.x changed everything it recorded as an original. */
	changed_known = json_object_object_get_ex(o, "vf_changed", NULL);
	if ((r->flags & IBSRIOV_REC_HAS_VF_ORIG) && !changed_known)
		r->vf_changed = r->vf_orig.mask;
	return 0;
}
