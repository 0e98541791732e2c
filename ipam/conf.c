// SPDX-License-Identifier: Apache-2.0
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/cleanup.h"
#include "state/confine.h"
#include "conf.h"
#include "base/json.h"
#include "state/state.h"
#include "base/util.h"
#include "protocol/conf_table.h"

static int invalid(struct cni_error *err, const char *msg, const char *details)
{
	return cni_errorf(err, -EINVAL, CNI_ERR_INVALID_CONFIG, msg, "%s", details);
}

static int add_requested(struct ipam_conf *c, const char *s, const char *where,
			 struct cni_error *err)
{
	struct cni_addr a, *p;
	struct cni_prefix pfx;
	char msg[160];

	/* Any prefix length is dropped, as host-local does. */
	if (cni_prefix_parse(s, &pfx)) {
		a.family = pfx.family;
		memcpy(a.a, pfx.a, sizeof(a.a));
	} else if (!cni_addr_parse(s, &a)) {
		snprintf(msg, sizeof(msg), "cannot understand ip: %.100s", s);
		return invalid(err, msg, where);
	}
	p = realloc(c->requested, (c->n_requested + 1) * sizeof(*p));
	if (!p)
		return -ENOMEM;
	c->requested = p;
	c->requested[c->n_requested++] = a;
	return 0;
}

static int add_requested_list(struct ipam_conf *c, struct json_object *parent, const char *where,
			      struct cni_error *err)
{
	struct json_object *list;
	int ret = cni_json_array(parent, "ips", where, &list, err);

	if (ret == -ENOENT)
		return 0;
	if (ret)
		return ret;
	for (size_t i = 0; i < json_object_array_length(list); i++) {
		struct json_object *v = json_object_array_get_idx(list, i);

		if (!json_object_is_type(v, json_type_string))
			return invalid(err, "invalid configuration",
				       "requested ips must be strings");
		ret = add_requested(c, json_object_get_string(v), where, err);
		if (ret)
			return ret;
	}
	return 0;
}

static int requested_ips(struct cni_ctx *ctx, struct ipam_conf *c)
{
	/* K8S_POD_NAMESPACE: an entry of the node's "ranges" may be for some
	 * namespaces only (noderanges.c). */
	static const char *const known[] = {"IP", "IB_IP_INDEX", "K8S_POD_NAMESPACE"};
	const char *ip;
	int ret;

	ret = cni_args_check(&ctx->args, known, ARRAY_SIZE(known), &ctx->err);
	if (ret)
		return ret;
	ip = cni_args_get(&ctx->args, "IP");
	if (ip && (ret = add_requested(c, ip, "CNI_ARGS IP", &ctx->err)))
		return ret;
	ret = add_requested_list(c, ctx->conf->args_cni, "args.cni.ips", &ctx->err);
	if (!ret)
		ret = add_requested_list(c, ctx->conf->runtime_config, "runtimeConfig.ips",
					 &ctx->err);
	return ret;
}

/* A list of range sets, each a list of range objects (host-local "ranges"). */
static int parse_sets(struct ipam_conf *c, struct json_object *sets, const char *key,
		      struct cni_error *err)
{
	int ret;

	if (!json_object_is_type(sets, json_type_array))
		return invalid(err, "invalid configuration",
			       "ranges must be a list of lists of ranges");
	for (size_t i = 0; i < json_object_array_length(sets); i++) {
		ret = ipam_conf_parse_set(c, json_object_array_get_idx(sets, i), key, i, err);
		if (ret)
			return ret;
	}
	return 0;
}

static int check_sets(struct cni_ctx *ctx, struct ipam_conf *c, struct cni_error *err)
{
	int v4 = 0, v6 = 0;
	char msg[128];
	int ret = ipam_conf_sets_apart(c, err);

	if (ret)
		return ret;
	for (size_t i = 0; i < c->n_sets; i++) {
		if (c->sets[i].r[0].subnet.family == AF_INET)
			v4++;
		else
			v6++;
	}
	if (ctx->conf->version < CNI_V030 && (v4 > 1 || v6 > 1)) {
		snprintf(msg, sizeof(msg),
			 "CNI version %s does not support more than 1 address per family",
			 cni_version_str(ctx->conf->version));
		return invalid(err, msg,
			       "use cniVersion 0.3.0 or later, or one range set per family");
	}
	return 0;
}

/* ipam.dataDir, normalised, and the allowed data directory of the node it
 * is under (c->data_root). One the node does not allow is code 7 for ADD,
 * CHECK and STATUS; DEL and GC (lenient) touch nothing there, with a
 * warning, so a pod whose network the node no longer allows can still go. */
static int data_dir(struct cni_ctx *ctx, const char *dir, bool lenient, struct ipam_conf *c)
{
	const struct cni_nodeconf *node = ctx->node ? ctx->node : cni_nodeconf_defaults();
	char allowed[512] = "";
	int ret = cni_path_normalise(dir, c->data_dir, sizeof(c->data_dir));

	if (ret == -ENAMETOOLONG)
		return invalid(&ctx->err, "invalid configuration", "ipam.dataDir is too long");
	if (ret)
		return invalid(&ctx->err, "invalid configuration",
			       "ipam.dataDir must be an absolute path without \".\" or \"..\" "
			       "components");
	c->data_root =
	    cni_path_under(c->data_dir, node->allowed_data_dirs, node->n_allowed_data_dirs);
	if (c->data_root)
		return 0;
	for (size_t i = 0; i < node->n_allowed_data_dirs; i++) {
		size_t at = strlen(allowed);

		snprintf(allowed + at, sizeof(allowed) - at, "%s%s", i ? ", " : "",
			 node->allowed_data_dirs[i]);
	}
	if (lenient) {
		log_warn("ipam.dataDir %s is not allowed on this node (allowedDataDirs in %s: %s): "
			 "nothing released there",
			 c->data_dir, CNI_NODECONF_PATH, allowed);
		return 0;
	}
	return cni_errorf(&ctx->err, -EPERM, CNI_ERR_INVALID_CONFIG, "ipam.dataDir not allowed",
			  "ipam.dataDir %s is not an allowed data directory of this node or below "
			  "one (%s); the node's admin may add it to \"allowedDataDirs\" in %s",
			  c->data_dir, allowed, CNI_NODECONF_PATH);
}

/* What the table fills: the configuration, and the raw values of the keys
 * checked after it. */
struct load {
	struct ipam_conf *c;
	struct cni_ctx *ctx;
	bool lenient; /* DEL and GC: ranges that do not parse are ignored */
	const char *dir, *subnet, *resolv;
};

#define AT(field) offsetof(struct load, field)

static struct load *loaded(const struct cni_conf_load *l)
{
	return l->dst;
}

/* runtimeConfig.ipRanges first, then the legacy range, then "ranges". */
static int ip_ranges(const struct cni_conf_load *l, const struct cni_conf_field *f)
{
	struct load *ld = loaded(l);
	struct json_object *list = cni_json_get(ld->ctx->conf->runtime_config, "ipRanges");

	if (!list)
		return 0;
	return parse_sets(ld->c, list, "runtimeConfig.ipRanges", l->err);
}

static int legacy_range(const struct cni_conf_load *l, const struct cni_conf_field *f)
{
	struct load *ld = loaded(l);
	struct ipam_rangeset *set;

	if (!ld->subnet || !*ld->subnet)
		return 0;
	set = ipam_conf_new_set(ld->c);
	if (!set)
		return -ENOMEM;
	return ipam_conf_parse_range(ld->c, set, l->obj, l->prefix, l->err);
}

static int range_sets(const struct cni_conf_load *l, const struct cni_conf_field *f)
{
	if (!f->v)
		return 0;
	if (!ipam_conf_names_node(f->v))
		return parse_sets(loaded(l)->c, f->v, f->where, l->err);
	return ipam_conf_node_ranges(loaded(l)->ctx, loaded(l)->c, f->v, f->where, l->err);
}

static int some_range(const struct cni_conf_load *l, const struct cni_conf_field *f)
{
	if (loaded(l)->c->n_sets)
		return 0;
	return invalid(l->err, "no IP ranges specified",
		       "set ipam.ranges (or the legacy ipam.subnet)");
}

static int sets_apart(const struct cni_conf_load *l, const struct cni_conf_field *f)
{
	return check_sets(loaded(l)->ctx, loaded(l)->c, l->err);
}

/* The node's range entry named like the network keeps the name to its
 * namespaces, whichever ranges follow (runtime's, legacy, own, the node's). */
static int node_namespace(const struct cni_conf_load *l, const struct cni_conf_field *f)
{
	(void)f;
	return ipam_conf_node_namespace(loaded(l)->ctx, loaded(l)->c->name, l->err);
}

/* The range keys of "ipam", in the order they are checked. */
static const struct cni_conf_key range_keys[] = {
    CNI_CONF_STEP(node_namespace),
    CNI_CONF_STEP(ip_ranges),
    CNI_CONF_STR("subnet", AT(subnet)),
    CNI_CONF_STEP(legacy_range),
    CNI_CONF_PARSE("ranges", 0, range_sets),
    CNI_CONF_STEP(some_range),
    CNI_CONF_STEP(sets_apart),
};

/* DEL and GC go by owner: ranges that do not parse are logged and dropped,
 * their error filled in a scratch one, not the request's. */
static int lenient_ranges(const struct cni_conf_load *l)
{
	struct load *ld = loaded(l);
	struct ipam_conf *c = ld->c;
	struct cni_error ignored = {0};
	struct cni_conf_load scratch = *l;

	scratch.err = &ignored;
	if (!cni_conf_load(&scratch, range_keys, ARRAY_SIZE(range_keys)))
		return CNI_CONF_DONE;
	log_warn("ignoring an invalid range configuration for DEL: %s (%s)", ignored.msg,
		 ignored.details);
	for (size_t i = 0; i < c->n_sets; i++)
		free(c->sets[i].r);
	free(c->sets);
	c->sets = NULL;
	c->n_sets = 0;
	return CNI_CONF_DONE;
}

static int data_root(const struct cni_conf_load *l, const struct cni_conf_field *f)
{
	struct load *ld = loaded(l);
	const char *dir = ld->dir;
	int ret;

	if (!dir || !*dir)
		dir = IPAM_DEFAULT_DATA_DIR;
	ret = data_dir(ld->ctx, dir, ld->lenient, ld->c);
	if (ret)
		return ret;
	if (ld->lenient)
		return lenient_ranges(l);
	return 0;
}

static int requested(const struct cni_conf_load *l, const struct cni_conf_field *f)
{
	return requested_ips(loaded(l)->ctx, loaded(l)->c);
}

static int ranges(const struct cni_conf_load *l, const struct cni_conf_field *f)
{
	return cni_conf_load(l, range_keys, ARRAY_SIZE(range_keys));
}

static int routes(const struct cni_conf_load *l, const struct cni_conf_field *f)
{
	struct ipam_conf *c = loaded(l)->c;
	int ret;

	c->tmpl = cni_result_new();
	if (!c->tmpl)
		return -ENOMEM;
	ret = cni_result_add_routes_json(c->tmpl, f->v, l->err);
	if (ret)
		cni_error_recode(l->err, CNI_ERR_INVALID_CONFIG); /* the config, not a result */
	return ret;
}

static int resolv(const struct cni_conf_load *l, const struct cni_conf_field *f)
{
	struct load *ld = loaded(l);

	if (!ld->resolv || !*ld->resolv)
		return 0;
	return ipam_resolv_conf(ld->resolv, &ld->c->tmpl->dns, l->err);
}

/* ib-host-local's keys of "ipam", in the order they are checked. */
static const struct cni_conf_key keys[] = {
    CNI_CONF_STR("dataDir", AT(dir)),
    CNI_CONF_STEP(data_root),
    CNI_CONF_STEP(requested),
    CNI_CONF_STEP(ranges),
    CNI_CONF_PARSE("routes", 0, routes),
    CNI_CONF_STR("resolvConf", AT(resolv)),
    CNI_CONF_STEP(resolv),
};

int ipam_conf_load(struct cni_ctx *ctx, bool ranges_optional, struct ipam_conf *c)
{
	struct load ld = {.c = c, .ctx = ctx, .lenient = ranges_optional};
	struct cni_conf_load l = {
	    .obj = ctx->conf->ipam, .prefix = "ipam", .dst = &ld, .err = &ctx->err};

	memset(c, 0, sizeof(*c));
	c->name = ctx->conf->name;
	if (!l.obj)
		return invalid(&ctx->err, "IPAM config missing 'ipam' key",
			       "add \"ipam\": {\"type\": \"ib-host-local\", \"ranges\": [...]}");
	return cni_conf_load(&l, keys, ARRAY_SIZE(keys));
}
