// SPDX-License-Identifier: Apache-2.0
/* rdma-ns's attachment record and rdma-cni's cache entry: each a typed
 * struct with has-flags, read and written by the record codec from one key
 * table, so the JSON keys, their types and their bounds are written down
 * once. Keys match exactly (these are our files, not user config). */
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "base/cleanup.h"
#include "base/json.h"
#include "state/record.h"
#include "state/record_rdmans.h"
#include "state/state.h"
#include "base/util.h"

#define REC(f) CNI_REC_AT(struct rdmans_record, f)

static const struct cni_rec_key record_keys[] = {
    {"network", CNI_REC_STR, REC(network), .flag = RDMANS_REC_HAS_NETWORK},
    {"containerID", CNI_REC_STR, REC(containerid), .flag = RDMANS_REC_HAS_CONTAINERID},
    {"ifname", CNI_REC_STR, REC(ifname), .flag = RDMANS_REC_HAS_IFNAME},
    {"netns", CNI_REC_STR, REC(netns), .flag = RDMANS_REC_HAS_NETNS},
    {"deviceID", CNI_REC_STR, REC(deviceid), .flag = RDMANS_REC_HAS_DEVICEID},
    {"rdma", CNI_REC_STRS, offsetof(struct rdmans_record, rdma), RDMANS_RDMA_NAME_MAX,
     .flag = RDMANS_REC_HAS_RDMA, .count_off = offsetof(struct rdmans_record, n_rdma),
     .max = RDMANS_MAX_DEVS},
    /* Newer than the previous build, which ignores keys it does not know. */
    {"rdma_index", CNI_REC_U32S, REC(rdma_index), .flag = RDMANS_REC_HAS_RDMA_INDEX,
     .count_off = offsetof(struct rdmans_record, n_rdma_index), .max = RDMANS_MAX_DEVS},
    /* Newer still: the namespace's identity (rdmans_record_netns_id). */
    {"netnsId", CNI_REC_STR, REC(netns_id), .flag = RDMANS_REC_HAS_NETNS_ID},
    /* The pod's namespace and name, for `ib-sriov doctor --pod`. */
    {"podNamespace", CNI_REC_STR, REC(pod_ns), .flag = RDMANS_REC_HAS_POD},
    {"podName", CNI_REC_STR, REC(pod_name), .flag = RDMANS_REC_HAS_POD},
    {"podMtu", CNI_REC_U32, REC(pod_mtu), .flag = RDMANS_REC_HAS_POD_MTU},
    {"podAddrs", CNI_REC_STRS, offsetof(struct rdmans_record, pod_addrs), RDMANS_ADDR_MAX,
     .flag = RDMANS_REC_HAS_POD_ADDRS, .count_off = offsetof(struct rdmans_record, n_pod_addrs),
     .max = RDMANS_MAX_DEVS},
    {NULL},
};

/* JSON null is absent, as for Go's omitempty readers. */
static const struct cni_rec_table record_table = {.keys = record_keys, .null_absent = true};

#define CACHE(f) CNI_REC_AT(struct rdmacni_cache, f)

/* rdma-cni pkg/types RdmaNetState, state version "1.0". */
static const struct cni_rec_key rdmacni_keys[] = {
    {"version", CNI_REC_STR, CACHE(version), .flag = RDMACNI_HAS_VERSION},
    {"deviceID", CNI_REC_STR, CACHE(deviceid), .flag = RDMACNI_HAS_DEVICEID},
    {"sandboxRdmaDevName", CNI_REC_STR, CACHE(sandbox_dev), .flag = RDMACNI_HAS_SANDBOX_DEV},
    {"containerRdmaDevName", CNI_REC_STR, CACHE(container_dev), .flag = RDMACNI_HAS_CONTAINER_DEV},
    {NULL},
};

static const struct cni_rec_table rdmacni_table = {.keys = rdmacni_keys, .null_absent = true};

char *rdmans_record_text(const struct rdmans_record *rec)
{
	return cni_record_text(&record_table, rec, rec->has);
}

int rdmans_record_to_json(const struct rdmans_record *rec, struct json_object **out)
{
	_cleanup_free_ char *text = rdmans_record_text(rec);
	const char *why;

	*out = NULL;
	if (!text)
		return -ENOMEM;
	*out = cni_json_parse(text, strlen(text), &why);
	if (!*out)
		return -ENOMEM;
	return 0;
}

int rdmans_record_from_json(struct json_object *obj, struct rdmans_record *rec)
{
	struct rdmans_netns_id id;
	int ret;

	memset(rec, 0, sizeof(*rec));
	ret = cni_record_decode(&record_table, obj, rec, &rec->has);
	if (!ret && rdmans_record_netns_id(rec, &id) == -EBADMSG)
		ret = -EBADMSG;
	return ret;
}

int rdmacni_cache_from_json(struct json_object *obj, struct rdmacni_cache *c)
{
	int ret;

	memset(c, 0, sizeof(*c));
	ret = cni_record_decode(&rdmacni_table, obj, c, &c->has);
	if (ret)
		return ret;
	/* rdma-cni never renames: the device has one name on both sides. */
	if (!*c->container_dev)
		memcpy(c->container_dev, c->sandbox_dev, sizeof(c->container_dev));
	return *c->container_dev ? 0 : -EBADMSG;
}

void rdmans_record_set_netns_id(struct rdmans_record *rec, const struct rdmans_netns_id *id)
{
	unsigned long long dev = id->dev, ino = id->ino, nsid = id->nsid, cookie = id->cookie;

	/* Four 20-digit numbers fit: never cut. */
	if (cookie)
		snprintf(rec->netns_id, sizeof(rec->netns_id), "%llu:%llu:%llu:%llu", dev, ino,
			 nsid, cookie);
	else if (nsid)
		snprintf(rec->netns_id, sizeof(rec->netns_id), "%llu:%llu:%llu", dev, ino, nsid);
	else
		snprintf(rec->netns_id, sizeof(rec->netns_id), "%llu:%llu", dev, ino);
	rec->has |= RDMANS_REC_HAS_NETNS_ID;
}

int rdmans_record_netns_id(const struct rdmans_record *rec, struct rdmans_netns_id *id)
{
	uint64_t v[4] = {0, 0, 0, 0};
	const char *s = rec->netns_id;
	unsigned int n = 0;

	if (!(rec->has & RDMANS_REC_HAS_NETNS_ID))
		return -ENOENT;
	for (;;) {
		const char *colon = strchr(s, ':');
		size_t len = colon ? (size_t)(colon - s) : strlen(s);
		char num[24];

		if (n == ARRAY_SIZE(v) || len >= sizeof(num))
			return -EBADMSG;
		memcpy(num, s, len);
		num[len] = '\0';
		if (parse_u64(num, 10, UINT64_MAX, &v[n++]))
			return -EBADMSG;
		if (!colon)
			break;
		s = colon + 1;
	}
	if (n < 2)
		return -EBADMSG;
	*id = (struct rdmans_netns_id){.dev = v[0], .ino = v[1], .nsid = v[2], .cookie = v[3]};
	return 0;
}

int rdmans_record_name(const char *network, const char *containerid, const char *ifname,
		       char buf[RDMANS_NAME_MAX + 1])
{
	return check_snprintf(buf, RDMANS_NAME_MAX + 1, "%s:%s:%s", network, containerid, ifname);
}

int rdmans_record_old_name(const char *network, const char *containerid, const char *ifname,
			   char buf[NAME_MAX + 1])
{
	return check_snprintf(buf, NAME_MAX + 1, "%s-%s-%s", network, containerid, ifname);
}

bool rdmans_record_is(const struct rdmans_record *rec, const char *network, const char *containerid,
		      const char *ifname)
{
	unsigned int tuple =
	    RDMANS_REC_HAS_NETWORK | RDMANS_REC_HAS_CONTAINERID | RDMANS_REC_HAS_IFNAME;

	return (rec->has & tuple) == tuple && !strcmp(rec->network, network) &&
	       !strcmp(rec->containerid, containerid) && !strcmp(rec->ifname, ifname);
}

static int load(const char *dir, const char *name, struct json_object **obj)
{
	/* Records are ours and small: 64 KiB bounds a planted giant. */
	_cleanup_free_ char *buf = NULL;
	char path[PATH_MAX];
	const char *why;
	size_t len;
	int ret;

	*obj = NULL;
	if (check_snprintf(path, sizeof(path), "%s/%s", dir, name))
		return -ENAMETOOLONG;
	ret = read_file(path, 64 * 1024, &buf, &len);
	if (ret)
		return ret;
	*obj = cni_json_parse(buf, len, &why);
	return *obj ? 0 : -EBADMSG;
}

int rdmans_record_load(const char *name, struct rdmans_record *rec)
{
	_cleanup_json_ struct json_object *obj = NULL;
	unsigned int need = RDMANS_REC_HAS_NETWORK | RDMANS_REC_HAS_CONTAINERID |
			    RDMANS_REC_HAS_IFNAME | RDMANS_REC_HAS_RDMA;
	int ret = load(RDMANS_STATE_DIR, name, &obj);

	if (!ret)
		ret = rdmans_record_from_json(obj, rec);
	if (!ret && (rec->has & need) != need)
		ret = -EBADMSG;
	/* One index per name, or none (a record of an older build). */
	if (!ret && (rec->has & RDMANS_REC_HAS_RDMA_INDEX) && rec->n_rdma_index != rec->n_rdma)
		ret = -EBADMSG;
	return ret;
}

int rdmans_record_save(const char *name, const struct rdmans_record *rec)
{
	_cleanup_free_ char *text = rdmans_record_text(rec);

	if (!text)
		return -ENOMEM;
	return cni_state_write_text(RDMANS_STATE_DIR, name, text);
}

int rdmacni_cache_load(const char *name, struct rdmacni_cache *c)
{
	_cleanup_json_ struct json_object *obj = NULL;
	int ret = load(RDMACNI_STATE_DIR, name, &obj);

	if (ret)
		return ret;
	return rdmacni_cache_from_json(obj, c);
}

bool rdmans_load_error_permanent(int ret)
{
	switch (-ret) {
	case EBADMSG: /* not JSON, or not a complete record */
	case EINVAL:  /* not a regular file */
	case EFBIG:   /* far larger than any record */
	case ELOOP:   /* a symlink (opened O_NOFOLLOW) */
		return true;
	default:
		return false;
	}
}
