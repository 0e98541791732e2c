// SPDX-License-Identifier: Apache-2.0
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "protocol/conf_table.h"
#include "base/json.h"

/* "prefix.key", or key at the top. */
static const char *where_of(const char *prefix, const char *key, char *buf, size_t len)
{
	int n;

	if (!prefix || !key)
		return key;
	n = snprintf(buf, len, "%s.%s", prefix, key);
	if (n < 0 || (size_t)n >= len)
		return key;
	return buf;
}

/* An RDMA device name, or "auto" for the pod interface's. */
static int rdma_name(const struct cni_conf_load *l, const struct cni_conf_field *f)
{
	char *out = f->at;
	const char *v = NULL;
	bool is_auto;

	out[0] = '\0';
	if (cni_conf_string(l->obj, l->prefix, f->k->key, &v, l->err) == -EINVAL)
		return -EINVAL;
	if (!v)
		return 0;
	is_auto = !strcmp(v, "auto");
	if (is_auto)
		v = l->ifname ? l->ifname : "";
	if (!cni_rdma_name_valid(v) || strlen(v) >= CNI_RDMA_NAME_MAX) /* cut: refused */
		return cni_errorf(l->err, -EINVAL, CNI_ERR_INVALID_CONFIG, "invalid configuration",
				  "\"%s\" is \"%s\"%s; an RDMA device name is 1 to %d letters, "
				  "digits, '_', '-', '.' or ':' starting with a letter or digit, "
				  "or \"auto\" for the pod interface's name",
				  f->where, v, is_auto ? " (auto)" : "", CNI_RDMA_NAME_MAX - 1);
	memcpy(out, v, strlen(v) + 1);
	return 0;
}

/* A typed key: -ENOENT (absent) is no failure. */
static int typed(const struct cni_conf_load *l, const struct cni_conf_field *f)
{
	const struct cni_conf_key *k = f->k;
	int ret = -EINVAL;

	switch (k->type) {
	case CNI_KEY_STRING:
		return cni_conf_string(l->obj, l->prefix, k->key, f->at, l->err);
	case CNI_KEY_BOOL:
		ret = cni_json_bool(l->obj, k->key, f->where, f->at, l->err);
		break;
	case CNI_KEY_INT:
		ret = cni_json_int(l->obj, k->key, f->where, (struct cni_int_range){k->min, k->max},
				   f->at, l->err);
		break;
	case CNI_KEY_OBJECT:
		ret = cni_json_object(l->obj, k->key, f->where, f->at, l->err);
		break;
	case CNI_KEY_ARRAY:
		ret = cni_json_array(l->obj, k->key, f->where, f->at, l->err);
		break;
	case CNI_KEY_RDMA_NAME:
		return rdma_name(l, f);
	case CNI_KEY_CUSTOM:
		return k->parse(l, f);
	}
	if (ret == -ENOENT)
		return 0;
	return ret;
}

int cni_conf_load(const struct cni_conf_load *l, const struct cni_conf_key *keys, size_t n)
{
	char buf[128];

	for (size_t i = 0; i < n; i++) {
		const struct cni_conf_key *k = &keys[i];
		struct cni_conf_field f = {.k = k, .at = (char *)l->dst + k->off};
		int ret;

		if (k->key) {
			f.v = cni_json_get(l->obj, k->key);
			f.where = where_of(l->prefix, k->key, buf, sizeof(buf));
		}
		if (!k->key)
			ret = k->parse(l, &f);
		else
			ret = typed(l, &f);
		if (ret == CNI_CONF_DONE)
			return 0;
		if (ret)
			return ret;
	}
	return 0;
}

int cni_conf_string(struct json_object *obj, const char *prefix, const char *key, const char **out,
		    struct cni_error *err)
{
	char buf[128];
	int ret = cni_json_string(obj, key, where_of(prefix, key, buf, sizeof(buf)), out, err);

	if (ret == -ENOENT) {
		*out = NULL;
		return 0;
	}
	return ret;
}

int cni_conf_spelling(const char *where, const char *s, const char *const *spellings, size_t n,
		      struct cni_error *err)
{
	char list[256] = "";
	size_t used = 0;

	for (size_t i = 0; i < n; i++)
		if (!strcmp(s, spellings[i]))
			return (int)i;
	for (size_t i = 0; i < n && used < sizeof(list); i++) {
		const char *sep = "";

		if (i && i + 1 == n)
			sep = " or ";
		else if (i)
			sep = ", ";
		snprintf(list + used, sizeof(list) - used, "%s\"%s\"", sep, spellings[i]);
		used = strlen(list);
	}
	return cni_errorf(err, -EINVAL, CNI_ERR_INVALID_CONFIG, "invalid configuration",
			  "\"%s\" is \"%s\"; it must be %s", where, s, list);
}
