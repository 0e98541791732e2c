// SPDX-License-Identifier: Apache-2.0
/* rdma-ns's attachment record and rdma-cni's cache entry: each a typed
 * struct with has-flags, read and written through one key table, so the
 * JSON keys, their types and their bounds are written down once. Keys match
 * exactly (these are our files, not user config). */
#include <errno.h>
#include <stddef.h>
#include <string.h>

#include "base/cleanup.h"
#include "base/json.h"
#include "rdmans.h"
#include "state/state.h"
#include "base/util.h"

enum field_type {
	FIELD_STR,  /* char[size] at off */
	FIELD_STRS, /* char[RDMANS_MAX_DEVS][size] at off, count (unsigned int) at count_off */
	FIELD_U32S, /* uint32_t[RDMANS_MAX_DEVS] at off, count (unsigned int) at count_off */
};

struct field {
	const char *key;
	enum field_type type;
	unsigned int has;
	size_t off, size, count_off;
};

#define REC_STR(k, member, flag)                                                                   \
	{                                                                                          \
		.key = k, .type = FIELD_STR, .has = flag,                                          \
		.off = offsetof(struct rdmans_record, member),                                     \
		.size = sizeof(((struct rdmans_record *)0)->member)                                \
	}

static const struct field record_fields[] = {
    REC_STR("network", network, RDMANS_REC_HAS_NETWORK),
    REC_STR("containerID", containerid, RDMANS_REC_HAS_CONTAINERID),
    REC_STR("ifname", ifname, RDMANS_REC_HAS_IFNAME),
    REC_STR("netns", netns, RDMANS_REC_HAS_NETNS),
    REC_STR("deviceID", deviceid, RDMANS_REC_HAS_DEVICEID),
    {.key = "rdma",
     .type = FIELD_STRS,
     .has = RDMANS_REC_HAS_RDMA,
     .off = offsetof(struct rdmans_record, rdma),
     .size = CNI_RDMA_NAME_MAX,
     .count_off = offsetof(struct rdmans_record, n_rdma)},
    /* Newer than the previous build, which ignores keys it does not know. */
    {.key = "rdma_index",
     .type = FIELD_U32S,
     .has = RDMANS_REC_HAS_RDMA_INDEX,
     .off = offsetof(struct rdmans_record, rdma_index),
     .size = sizeof(uint32_t),
     .count_off = offsetof(struct rdmans_record, n_rdma_index)},
};

#define CACHE_STR(k, member, flag)                                                                 \
	{                                                                                          \
		.key = k, .type = FIELD_STR, .has = flag,                                          \
		.off = offsetof(struct rdmacni_cache, member),                                     \
		.size = sizeof(((struct rdmacni_cache *)0)->member)                                \
	}

/* rdma-cni pkg/types RdmaNetState, state version "1.0". */
static const struct field rdmacni_fields[] = {
    CACHE_STR("version", version, RDMACNI_HAS_VERSION),
    CACHE_STR("deviceID", deviceid, RDMACNI_HAS_DEVICEID),
    CACHE_STR("sandboxRdmaDevName", sandbox_dev, RDMACNI_HAS_SANDBOX_DEV),
    CACHE_STR("containerRdmaDevName", container_dev, RDMACNI_HAS_CONTAINER_DEV),
};

/* A string that fits dst[size] whole: no truncation, no embedded NUL. */
static int get_str(struct json_object *v, char *dst, size_t size)
{
	const char *s;

	if (!json_object_is_type(v, json_type_string))
		return -EBADMSG;
	s = json_object_get_string(v);
	if ((size_t)json_object_get_string_len(v) != strlen(s) || copy_str(dst, size, s))
		return -EBADMSG;
	return 0;
}

static int field_from_json(const struct field *f, struct json_object *v, char *base)
{
	unsigned int *count = (unsigned int *)(base + f->count_off);
	size_t n;

	if (f->type == FIELD_STR)
		return get_str(v, base + f->off, f->size);
	if (!json_object_is_type(v, json_type_array))
		return -EBADMSG;
	n = json_object_array_length(v);
	if (n > RDMANS_MAX_DEVS)
		return -EBADMSG;
	for (size_t i = 0; i < n; i++) {
		struct json_object *e = json_object_array_get_idx(v, i);
		int ret;

		if (f->type == FIELD_U32S) {
			int64_t x;

			errno = 0;
			x = json_object_get_int64(e);
			if (!json_object_is_type(e, json_type_int) || errno || x < 0 ||
			    x > UINT32_MAX)
				return -EBADMSG;
			((uint32_t *)(void *)(base + f->off))[i] = (uint32_t)x;
			continue;
		}
		ret = get_str(e, base + f->off + i * f->size, f->size);
		if (ret)
			return ret;
	}
	*count = (unsigned int)n;
	return 0;
}

static int from_json(const struct field *fields, size_t n, struct json_object *obj, char *base,
		     unsigned int *has)
{
	*has = 0;
	if (!json_object_is_type(obj, json_type_object))
		return -EBADMSG;
	for (size_t i = 0; i < n; i++) {
		struct json_object *v;
		int ret;

		/* JSON null is absent, as for Go's omitempty readers. */
		if (!json_object_object_get_ex(obj, fields[i].key, &v) || !v)
			continue;
		ret = field_from_json(&fields[i], v, base);
		if (ret)
			return ret;
		*has |= fields[i].has;
	}
	return 0;
}

static struct json_object *field_to_json(const struct field *f, const char *base)
{
	unsigned int count = *(const unsigned int *)(base + f->count_off);
	struct json_object *list;

	if (f->type == FIELD_STR)
		return json_object_new_string(base + f->off);
	list = json_object_new_array();
	for (unsigned int i = 0; list && i < count; i++) {
		struct json_object *s =
		    f->type == FIELD_U32S ? json_object_new_int64((
						(const uint32_t *)(const void *)(base + f->off))[i])
					  : json_object_new_string(base + f->off + i * f->size);

		if (!s || json_object_array_add(list, s)) {
			json_object_put(s);
			json_object_put(list);
			return NULL;
		}
	}
	return list;
}

static int to_json(const struct field *fields, size_t n, const char *base, unsigned int has,
		   struct json_object **out)
{
	_cleanup_json_ struct json_object *obj = json_object_new_object();

	*out = NULL;
	if (!obj)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		struct json_object *v;

		if (!(has & fields[i].has))
			continue;
		v = field_to_json(&fields[i], base);
		if (!v || json_object_object_add(obj, fields[i].key, v)) {
			json_object_put(v);
			return -ENOMEM;
		}
	}
	*out = steal_ptr(obj);
	return 0;
}

int rdmans_record_to_json(const struct rdmans_record *rec, struct json_object **out)
{
	return to_json(record_fields, ARRAY_SIZE(record_fields), (const char *)rec, rec->has, out);
}

int rdmans_record_from_json(struct json_object *obj, struct rdmans_record *rec)
{
	memset(rec, 0, sizeof(*rec));
	return from_json(record_fields, ARRAY_SIZE(record_fields), obj, (char *)rec, &rec->has);
}

int rdmacni_cache_from_json(struct json_object *obj, struct rdmacni_cache *c)
{
	int ret;

	memset(c, 0, sizeof(*c));
	ret = from_json(rdmacni_fields, ARRAY_SIZE(rdmacni_fields), obj, (char *)c, &c->has);
	if (ret)
		return ret;
	/* rdma-cni never renames: the device has one name on both sides. */
	if (!*c->container_dev)
		memcpy(c->container_dev, c->sandbox_dev, sizeof(c->container_dev));
	return *c->container_dev ? 0 : -EBADMSG;
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
	_cleanup_json_ struct json_object *obj = NULL;
	int ret = rdmans_record_to_json(rec, &obj);

	return ret ?: cni_state_write(RDMANS_STATE_DIR, name, obj);
}

int rdmacni_cache_load(const char *name, struct rdmacni_cache *c)
{
	_cleanup_json_ struct json_object *obj = NULL;
	int ret = load(RDMACNI_STATE_DIR, name, &obj);

	return ret ?: rdmacni_cache_from_json(obj, c);
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
