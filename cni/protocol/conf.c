// SPDX-License-Identifier: Apache-2.0
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/cleanup.h"
#include "protocol/conf.h"
#include "base/json.h"
#include "base/util.h"
#include "protocol/conf_table.h"

int cni_conf_read(int fd, char **out, size_t *len, struct cni_error *err)
{
	/* A config is a few hundred bytes: start small and grow, rather than
	 * map (and fault, and unmap) the largest one allowed for each request. */
	int ret = read_all(fd, 4096, CNI_CONF_MAX, out, len);

	if (ret == -EFBIG)
		return cni_errorf(
		    err, ret, CNI_ERR_INVALID_CONFIG, "network configuration too large",
		    "stdin holds more than %d bytes, the most ibcni accepts", CNI_CONF_MAX);
	if (ret == -ENOMEM)
		return ret;
	if (ret)
		return cni_errorf(err, ret, CNI_ERR_IO, "error reading from stdin", "%s",
				  strerror(-ret));
	return 0;
}

void cni_conf_free(struct cni_conf *conf)
{
	if (!conf)
		return;
	for (size_t i = 0; i < conf->n_attachments; i++) {
		free(conf->attachments[i].containerid);
		free(conf->attachments[i].ifname);
	}
	free(conf->attachments);
	cni_result_free(conf->prev_result);
	json_object_put(conf->root);
	free(conf->raw);
	free(conf);
}

static int decode_error(struct cni_error *err, const char *why)
{
	return cni_errorf(err, -EINVAL, CNI_ERR_DECODE, "error unmarshall network config", "%s",
			  why);
}

static int parse_attachments(struct cni_conf *c, struct cni_error *err)
{
	struct json_object *list = NULL;

	json_object_object_get_ex(c->root, "cni.dev/valid-attachments", &list);
	if (!list)
		json_object_object_get_ex(c->root, "cni.dev/attachments", &list);
	if (!list || json_object_is_type(list, json_type_null))
		return 0;
	if (!json_object_is_type(list, json_type_array))
		return decode_error(
		    err, "cni.dev/valid-attachments must be a list of {containerID, ifname}");
	c->has_attachments = true;
	c->attachments = calloc(json_object_array_length(list) + 1, sizeof(*c->attachments));
	if (!c->attachments)
		return -ENOMEM;
	for (size_t i = 0; i < json_object_array_length(list); i++) {
		struct json_object *a = json_object_array_get_idx(list, i);
		const char *id = NULL, *ifname = NULL;
		struct cni_error ignored = {0};

		if (!json_object_is_type(a, json_type_object) ||
		    cni_json_string(a, "containerID", "", &id, &ignored) ||
		    cni_json_string(a, "ifname", "", &ifname, &ignored))
			return decode_error(err, "cni.dev/valid-attachments: each entry needs "
						 "string keys containerID and ifname");
		c->attachments[i].containerid = strdup(id);
		c->attachments[i].ifname = strdup(ifname);
		c->n_attachments++;
		if (!c->attachments[i].containerid || !c->attachments[i].ifname)
			return -ENOMEM;
	}
	return 0;
}

bool cni_conf_attachment_valid(const struct cni_conf *conf, const char *containerid,
			       const char *ifname)
{
	for (size_t i = 0; i < conf->n_attachments; i++)
		if (!strcmp(conf->attachments[i].containerid, containerid) &&
		    !strcmp(conf->attachments[i].ifname, ifname))
			return true;
	return false;
}

/* A core key of the wrong JSON type is a decode failure, as in Go's skel. */
static int core_string(const struct cni_conf_load *l, const struct cni_conf_field *f)
{
	const char **out = f->at;
	char why[128];

	*out = NULL;
	if (!f->v)
		return 0;
	if (!json_object_is_type(f->v, json_type_string)) {
		snprintf(why, sizeof(why), "\"%s\" must be a string", f->k->key);
		return decode_error(l->err, why);
	}
	return cni_json_str(f->v, f->where, out, l->err);
}

/* logLevel, logFile: a value that is not a string, or holds a NUL (as a C
 * string it would end early), is kept out of value, never a failure. */
static int core_log(const struct cni_conf_load *l, const struct cni_conf_field *f)
{
	struct cni_conf_log *out = f->at;
	const char *s;

	(void)l;
	*out = (struct cni_conf_log){0};
	if (!f->v)
		return 0;
	if (!json_object_is_type(f->v, json_type_string)) {
		out->bad = "it is not a string";
		return 0;
	}
	s = json_object_get_string(f->v);
	if (strlen(s) != (size_t)json_object_get_string_len(f->v))
		out->bad = "it contains a NUL character";
	else
		out->value = s;
	return 0;
}

static int core_object(const struct cni_conf_load *l, const struct cni_conf_field *f)
{
	struct json_object **out = f->at;
	char why[128];

	*out = NULL;
	if (!f->v)
		return 0;
	if (!json_object_is_type(f->v, json_type_object)) {
		snprintf(why, sizeof(why), "\"%s\" must be an object", f->k->key);
		return decode_error(l->err, why);
	}
	*out = f->v;
	return 0;
}

/* Errors are printed in the request's version wherever it is known. */
static int error_version(const struct cni_conf_load *l, const struct cni_conf_field *f)
{
	const struct cni_conf *c = l->dst;
	enum cni_version v;

	if (cni_version_parse(c->version_str, &v))
		copy_str(l->err->version, sizeof(l->err->version), cni_version_str(v));
	return 0;
}

#define AT(field) offsetof(struct cni_conf, field)

/* "args": its "cni" object. */
static const struct cni_conf_key args_keys[] = {
    CNI_CONF_PARSE("cni", AT(args_cni), core_object),
};

/* "ipam": its "type". */
static const struct cni_conf_key ipam_keys[] = {
    CNI_CONF_PARSE("type", AT(ipam_type), core_string),
};

static int sub_objects(const struct cni_conf_load *l, const struct cni_conf_field *f)
{
	struct cni_conf *c = l->dst;
	struct cni_conf_load args = {.obj = c->args, .prefix = "args", .dst = c, .err = l->err};
	struct cni_conf_load ipam = {.obj = c->ipam, .prefix = "ipam", .dst = c, .err = l->err};
	int ret = cni_conf_load(&args, args_keys, ARRAY_SIZE(args_keys));

	if (!ret)
		ret = cni_conf_load(&ipam, ipam_keys, ARRAY_SIZE(ipam_keys));
	return ret;
}

/* Read by core_log, which never fails on them. */
static const char *const log_keys[] = {"logLevel", "logFile", NULL};

/* The keys every request has, in the order they are checked. */
static const struct cni_conf_key core_keys[] = {
    CNI_CONF_PARSE("cniVersion", AT(version_str), core_string),
    CNI_CONF_STEP(error_version),
    CNI_CONF_PARSE("name", AT(name), core_string),
    CNI_CONF_PARSE("type", AT(type), core_string),
    CNI_CONF_PARSE("args", AT(args), core_object),
    CNI_CONF_PARSE("runtimeConfig", AT(runtime_config), core_object),
    CNI_CONF_PARSE("ipam", AT(ipam), core_object),
    CNI_CONF_PARSE("prevResult", AT(prev_json), core_object),
    CNI_CONF_PARSE("logLevel", AT(log_level), core_log),
    CNI_CONF_PARSE("logFile", AT(log_file), core_log),
    CNI_CONF_STEP(sub_objects),
};

static int parse_fields(struct cni_conf *c, struct cni_error *err)
{
	struct cni_conf_load l = {.obj = c->root, .dst = c, .err = err};
	int ret = cni_conf_load(&l, core_keys, ARRAY_SIZE(core_keys));

	if (ret)
		return ret;
	/* The Go plugins skip IPAM for an empty type; so do we. */
	if (c->ipam_type && !*c->ipam_type)
		c->ipam_type = NULL;

	if (!c->name || !*c->name)
		return cni_errorf(err, -EINVAL, CNI_ERR_INVALID_CONFIG, "missing network name",
				  "set \"name\" in the network configuration");
	if (!cni_valid_id(c->name))
		return cni_errorf(err, -EINVAL, CNI_ERR_INVALID_CONFIG,
				  "invalid characters found in network name", "%s", c->name);
	if (!c->version_str)
		c->version_str = "";
	if (!cni_version_parse(c->version_str, &c->version))
		return cni_version_unsupported(c->version_str, err);
	return 0;
}

static int parse_rest(struct cni_conf *c, enum cni_command cmd, struct cni_error *err)
{
	int ret;

	if (c->prev_json && cmd != CNI_CMD_GC && cmd != CNI_CMD_STATUS) {
		ret = cni_result_from_json(c->prev_json, c->version, &c->prev_result, err);
		if (ret)
			return ret;
	}
	if (cmd == CNI_CMD_GC)
		return parse_attachments(c, err);
	return 0;
}

int cni_conf_parse(char *raw, size_t len, enum cni_command cmd, struct cni_conf **out,
		   struct cni_error *err)
{
	struct cni_conf *c;
	const char *why;
	int ret;

	*out = NULL;
	c = calloc(1, sizeof(*c));
	if (!c) {
		free(raw);
		return -ENOMEM;
	}
	c->raw = raw;
	c->raw_len = len;
	c->command = cmd;
	c->root = cni_json_parse(raw, len, &why);
	if (!c->root)
		ret = decode_error(err, why);
	else if (!json_object_is_type(c->root, json_type_object))
		ret = decode_error(err, "the network configuration must be a JSON object");
	else
		/* Fields first: errors then carry the request's cniVersion, and
		 * an invalid name is code 7 as Go's skel answers. */
		ret = parse_fields(c, err);
	if (!ret)
		ret = cni_json_check_input(c->root, raw, len, log_keys, err);
	if (!ret)
		ret = parse_rest(c, cmd, err);
	if (ret) {
		cni_conf_free(c);
		return ret;
	}
	*out = c;
	return 0;
}
