// SPDX-License-Identifier: Apache-2.0
/* Range sets as ipam.ranges gives them, parsed into an ipam_conf: shared by
 * the NAD's keys (conf.c) and the node's "ranges" (noderanges.c). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "conf.h"
#include "base/json.h"

static int invalid(struct cni_error *err, const char *msg, const char *details)
{
	return cni_errorf(err, -EINVAL, CNI_ERR_INVALID_CONFIG, msg, "%s", details);
}

void ipam_conf_free(struct ipam_conf *c)
{
	for (size_t i = 0; i < c->n_sets; i++)
		free(c->sets[i].r);
	free(c->sets);
	free(c->requested);
	cni_result_free(c->tmpl);
	memset(c, 0, sizeof(*c));
}

struct ipam_rangeset *ipam_conf_new_set(struct ipam_conf *c)
{
	struct ipam_rangeset *s = realloc(c->sets, (c->n_sets + 1) * sizeof(*s));

	if (!s)
		return NULL;
	c->sets = s;
	memset(&s[c->n_sets], 0, sizeof(*s));
	return &s[c->n_sets++];
}

/* One range object ({subnet, rangeStart, rangeEnd, gateway}) into set. */
int ipam_conf_parse_range(struct ipam_conf *c, struct ipam_rangeset *set, struct json_object *o,
			  const char *where, struct cni_error *err)
{
	const char *f[4] = {NULL, NULL, NULL, NULL};
	static const char *const keys[4] = {"subnet", "rangeStart", "rangeEnd", "gateway"};
	struct ipam_range *r;
	char why[256], msg[320], path[96];
	int ret;

	if (!json_object_is_type(o, json_type_object))
		return invalid(err, "invalid configuration", "each range must be an object");
	for (int i = 0; i < 4; i++) {
		snprintf(path, sizeof(path), "%s.%s", where, keys[i]);
		ret = cni_json_string(o, keys[i], path, &f[i], err);
		if (ret && ret != -ENOENT)
			return ret;
	}
	r = realloc(set->r, (set->n + 1) * sizeof(*r));
	if (!r)
		return -ENOMEM;
	set->r = r;
	ret = ipam_range_parse(&set->r[set->n], &(struct ipam_range_spec){f[0], f[1], f[2], f[3]},
			       why, sizeof(why));
	if (ret) {
		snprintf(msg, sizeof(msg), "invalid range set %zu: %s", c->n_sets - 1, why);
		return invalid(err, msg, where);
	}
	set->n++;
	return 0;
}

int ipam_conf_parse_set(struct ipam_conf *c, struct json_object *list, const char *key, size_t i,
			struct cni_error *err)
{
	char where[160], msg[320], why[256];
	struct ipam_rangeset *set = ipam_conf_new_set(c);
	int ret;

	if (!set)
		return -ENOMEM;
	if (!json_object_is_type(list, json_type_array))
		return invalid(err, "invalid configuration",
			       "each range set must be a list of ranges");
	for (size_t j = 0; j < json_object_array_length(list); j++) {
		snprintf(where, sizeof(where), "%s[%zu][%zu]", key, i, j);
		ret = ipam_conf_parse_range(c, set, json_object_array_get_idx(list, j), where, err);
		if (ret)
			return ret;
	}
	if (ipam_rangeset_check(set, why, sizeof(why))) {
		snprintf(msg, sizeof(msg), "invalid range set %zu: %s", c->n_sets - 1, why);
		snprintf(where, sizeof(where), "%s[%zu]", key, i);
		return invalid(err, msg, where);
	}
	return 0;
}

int ipam_conf_sets_apart(const struct ipam_conf *c, struct cni_error *err)
{
	char msg[128];

	for (size_t i = 0; i < c->n_sets; i++) {
		for (size_t j = 0; j < i; j++) {
			if (!ipam_rangesets_overlap(&c->sets[j], &c->sets[i]))
				continue;
			snprintf(msg, sizeof(msg), "range set %zu overlaps with %zu", j, i);
			return invalid(err, msg, "range sets must not share addresses");
		}
	}
	return 0;
}
