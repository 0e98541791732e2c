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

void ipam_conf_free(struct ipam_conf *c)
{
	for (size_t i = 0; i < c->n_sets; i++)
		free(c->sets[i].r);
	free(c->sets);
	free(c->requested);
	cni_result_free(c->tmpl);
	memset(c, 0, sizeof(*c));
}

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
	static const char *const known[] = {"IP"};
	const char *ip;
	int ret;

	ret = cni_args_check(&ctx->args, known, ARRAY_SIZE(known), &ctx->err);
	if (ret)
		return ret;
	ip = cni_args_get(&ctx->args, "IP");
	if (ip && (ret = add_requested(c, ip, "CNI_ARGS IP", &ctx->err)))
		return ret;
	return add_requested_list(c, ctx->conf->args_cni, "args.cni.ips", &ctx->err)
		   ?: add_requested_list(c, ctx->conf->runtime_config, "runtimeConfig.ips",
					 &ctx->err);
}

static struct ipam_rangeset *new_set(struct ipam_conf *c)
{
	struct ipam_rangeset *s = realloc(c->sets, (c->n_sets + 1) * sizeof(*s));

	if (!s)
		return NULL;
	c->sets = s;
	memset(&s[c->n_sets], 0, sizeof(*s));
	return &s[c->n_sets++];
}

/* One range object ({subnet, rangeStart, rangeEnd, gateway}) into set. */
static int parse_range(struct ipam_conf *c, struct ipam_rangeset *set, struct json_object *o,
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

/* A list of range sets, each a list of range objects (host-local "ranges"). */
static int parse_sets(struct ipam_conf *c, struct json_object *sets, const char *key,
		      struct cni_error *err)
{
	char where[96], msg[320], why[256];
	int ret;

	if (!json_object_is_type(sets, json_type_array))
		return invalid(err, "invalid configuration",
			       "ranges must be a list of lists of ranges");
	for (size_t i = 0; i < json_object_array_length(sets); i++) {
		struct json_object *list = json_object_array_get_idx(sets, i);
		struct ipam_rangeset *set = new_set(c);

		if (!set)
			return -ENOMEM;
		if (!json_object_is_type(list, json_type_array))
			return invalid(err, "invalid configuration",
				       "each range set must be a list of ranges");
		for (size_t j = 0; j < json_object_array_length(list); j++) {
			snprintf(where, sizeof(where), "%s[%zu][%zu]", key, i, j);
			ret = parse_range(c, set, json_object_array_get_idx(list, j), where, err);
			if (ret)
				return ret;
		}
		if (ipam_rangeset_check(set, why, sizeof(why))) {
			snprintf(msg, sizeof(msg), "invalid range set %zu: %s", c->n_sets - 1, why);
			snprintf(where, sizeof(where), "%s[%zu]", key, i);
			return invalid(err, msg, where);
		}
	}
	return 0;
}

static int ranges(struct cni_ctx *ctx, struct json_object *ipam, struct ipam_conf *c)
{
	struct json_object *list;
	const char *subnet = NULL;
	int ret;

	/* runtimeConfig.ipRanges first, then the legacy range, then "ranges". */
	list = cni_json_get(ctx->conf->runtime_config, "ipRanges");
	if (list && (ret = parse_sets(c, list, "runtimeConfig.ipRanges", &ctx->err)))
		return ret;
	ret = cni_json_string(ipam, "subnet", "ipam.subnet", &subnet, &ctx->err);
	if (ret && ret != -ENOENT)
		return ret;
	if (subnet && *subnet) {
		struct ipam_rangeset *set = new_set(c);

		if (!set)
			return -ENOMEM;
		ret = parse_range(c, set, ipam, "ipam", &ctx->err);
		if (ret)
			return ret;
	}
	list = cni_json_get(ipam, "ranges");
	if (list && (ret = parse_sets(c, list, "ipam.ranges", &ctx->err)))
		return ret;
	if (!c->n_sets)
		return invalid(&ctx->err, "no IP ranges specified",
			       "set ipam.ranges (or the legacy ipam.subnet)");
	return 0;
}

static int check_sets(struct cni_ctx *ctx, struct ipam_conf *c)
{
	int v4 = 0, v6 = 0;
	char msg[128];

	for (size_t i = 0; i < c->n_sets; i++) {
		if (c->sets[i].r[0].subnet.family == AF_INET)
			v4++;
		else
			v6++;
		for (size_t j = 0; j < i; j++) {
			if (!ipam_rangesets_overlap(&c->sets[j], &c->sets[i]))
				continue;
			snprintf(msg, sizeof(msg), "range set %zu overlaps with %zu", j, i);
			return invalid(&ctx->err, msg, "range sets must not share addresses");
		}
	}
	if (ctx->conf->version < CNI_V030 && (v4 > 1 || v6 > 1)) {
		snprintf(msg, sizeof(msg),
			 "CNI version %s does not support more than 1 address per family",
			 cni_version_str(ctx->conf->version));
		return invalid(&ctx->err, msg,
			       "use cniVersion 0.3.0 or later, or one range set per family");
	}
	return 0;
}

#define RESOLV_MAX (64 << 10)

/* Where ipam.resolvConf may point: the host's own configuration trees. */
static char resolv_etc[] = "/etc", resolv_run[] = "/run";
static char *const resolv_roots[] = {resolv_etc, resolv_run};

static int resolv_refused(struct cni_error *err, int ret, const char *path, const char *why)
{
	return cni_errorf(err, ret, CNI_ERR_INVALID_CONFIG, "cannot read resolvConf",
			  "ipam.resolvConf %s is %s; name a regular file under /etc or /run "
			  "that only root can write",
			  path, why);
}

/* The file ipam.resolvConf names, opened: under /etc or /run, reached
 * without following a link anywhere on the path, never blocking. */
static int resolv_open(const char *path, struct cni_error *err)
{
	char norm[PATH_MAX];
	_cleanup_close_ int dir = -1;
	char *slash;
	int fd;

	if (cni_path_normalise(path, norm, sizeof(norm)) ||
	    !cni_path_under(norm, resolv_roots, ARRAY_SIZE(resolv_roots)) ||
	    !strcmp(norm, "/etc") || !strcmp(norm, "/run"))
		return resolv_refused(err, -EPERM, path, "outside /etc and /run");
	slash = strrchr(norm, '/');
	*slash = '\0';
	dir = cni_state_opendir(norm, 0);
	*slash = '/';
	fd = dir < 0 ? dir : openat(dir, slash + 1, O_RDONLY | O_NONBLOCK | O_NOFOLLOW | O_CLOEXEC);
	if (fd == -1)
		fd = -errno;
	if (fd < 0)
		return cni_errorf(err, fd, CNI_ERR_INVALID_CONFIG, "cannot read resolvConf",
				  "ipam.resolvConf %s: %s", path,
				  fd == -ELOOP ? "a symbolic link on the path; name the file itself"
					       : strerror(-fd));
	return fd;
}

/* ipam.resolvConf is chosen by whoever writes the config and read as root:
 * only a regular file (never a link, FIFO or device) under /etc or /run,
 * on an ordinary filesystem (not proc, sysfs, ...: reading some of their
 * files has effects), that root owns and nobody else may write. *buf is
 * NUL-terminated, caller frees. */
static int resolv_read(const char *path, char **buf, struct cni_error *err)
{
	_cleanup_close_ int fd = resolv_open(path, err);
	const char *why = NULL, *fs = NULL;
	char fsbuf[32];
	struct stat st;
	int ret;

	if (fd < 0)
		return fd;
	if (fstat(fd, &st) < 0)
		return cni_errorf(err, -errno, CNI_ERR_INVALID_CONFIG, "cannot read resolvConf",
				  "ipam.resolvConf %s: %s", path, strerror(errno));
	if (!S_ISREG(st.st_mode))
		why = "not a regular file";
	else if (st.st_uid != 0 && st.st_uid != cni_euid())
		why = "not owned by root";
	else if (st.st_mode & (S_IWGRP | S_IWOTH))
		why = "writable by group or others";
	else if (cni_fs_ordinary(fd, &fs, fsbuf, sizeof(fsbuf)))
		why = fs ? fs : "on a filesystem that cannot be checked";
	if (why && fs)
		return cni_errorf(err, -EPERM, CNI_ERR_INVALID_CONFIG, "cannot read resolvConf",
				  "ipam.resolvConf %s is on a %s filesystem; name a regular file "
				  "under /etc or /run that only root can write",
				  path, fs);
	if (why)
		return resolv_refused(err, -EPERM, path, why);
	ret = read_fd(fd, RESOLV_MAX, buf, NULL);
	if (ret)
		return cni_errorf(err, ret, CNI_ERR_INVALID_CONFIG, "cannot read resolvConf",
				  "ipam.resolvConf %s: %s", path,
				  ret == -EFBIG ? "larger than 64 KiB" : strerror(-ret));
	return 0;
}

/* resolv.conf into result DNS, with host-local's reading rules. */
static int resolv_conf(const char *path, struct cni_dns *dns, struct cni_error *err)
{
	_cleanup_free_ char *buf = NULL;
	char *lsave = NULL;
	int ret = resolv_read(path, &buf, err);

	if (ret)
		return ret;
	for (char *line = strtok_r(buf, "\n", &lsave); line; line = strtok_r(NULL, "\n", &lsave)) {
		char *save = NULL, *key, *word;

		if (line[0] == '#' || line[0] == ';')
			continue;
		key = strtok_r(line, " \t\r", &save);
		word = key ? strtok_r(NULL, " \t\r", &save) : NULL;
		if (!word)
			continue;
		if (!strcmp(key, "nameserver")) {
			if (cni_strv_add(&dns->nameservers, &dns->n_nameservers, word))
				return -ENOMEM;
		} else if (!strcmp(key, "domain")) {
			free(dns->domain);
			if (!(dns->domain = strdup(word)))
				return -ENOMEM;
		} else if (!strcmp(key, "search") || !strcmp(key, "options")) {
			bool search = !strcmp(key, "search");

			for (; word; word = strtok_r(NULL, " \t\r", &save))
				if (cni_strv_add(search ? &dns->search : &dns->options,
						 search ? &dns->n_search : &dns->n_options, word))
					return -ENOMEM;
		}
	}
	return 0;
}

static int result_template(struct cni_ctx *ctx, struct json_object *ipam, struct ipam_conf *c)
{
	const char *resolv = NULL;
	int ret;

	c->tmpl = cni_result_new();
	if (!c->tmpl)
		return -ENOMEM;
	ret = cni_result_add_routes_json(c->tmpl, cni_json_get(ipam, "routes"), &ctx->err);
	if (ret) {
		cni_error_recode(&ctx->err, CNI_ERR_INVALID_CONFIG); /* the config, not a result */
		return ret;
	}
	ret = cni_json_string(ipam, "resolvConf", "ipam.resolvConf", &resolv, &ctx->err);
	if (ret && ret != -ENOENT)
		return ret;
	return resolv && *resolv ? resolv_conf(resolv, &c->tmpl->dns, &ctx->err) : 0;
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

int ipam_conf_load(struct cni_ctx *ctx, bool ranges_optional, struct ipam_conf *c)
{
	struct json_object *ipam = ctx->conf->ipam;
	const char *dir = NULL;
	int ret;

	memset(c, 0, sizeof(*c));
	c->name = ctx->conf->name;
	if (!ipam)
		return invalid(&ctx->err, "IPAM config missing 'ipam' key",
			       "add \"ipam\": {\"type\": \"ib-host-local\", \"ranges\": [...]}");
	ret = cni_json_string(ipam, "dataDir", "ipam.dataDir", &dir, &ctx->err);
	if (ret && ret != -ENOENT)
		return ret;
	if (!dir || !*dir)
		dir = IPAM_DEFAULT_DATA_DIR;
	ret = data_dir(ctx, dir, ranges_optional, c);
	if (ret)
		return ret;
	if (ranges_optional) {
		struct cni_error ignored = {0};

		if (ranges(ctx, ipam, c) || check_sets(ctx, c)) {
			/* Nothing to report to the caller: DEL goes by owner. */
			cni_error_adopt(&ignored, &ctx->err, 0);
			cni_error_clear(&ctx->err);
			log_warn("ignoring an invalid range configuration for DEL: %s (%s)",
				 ignored.msg, ignored.details);
			for (size_t i = 0; i < c->n_sets; i++)
				free(c->sets[i].r);
			free(c->sets);
			c->sets = NULL;
			c->n_sets = 0;
		}
		return 0;
	}
	return requested_ips(ctx, c) ?: ranges(ctx, ipam, c) ?: check_sets(ctx, c) ?:
	       result_template(ctx, ipam, c);
}
