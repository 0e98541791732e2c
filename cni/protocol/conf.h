/* SPDX-License-Identifier: Apache-2.0 */
#ifndef CNI_CONF_H
#define CNI_CONF_H

#include <stdbool.h>
#include <stddef.h>
#include <json-c/json.h>

#include "protocol/env.h"
#include "base/error.h"
#include "protocol/result.h"
#include "protocol/version.h"

/* GC lists every attachment on a node: allow large configs, bound the rest. */
#define CNI_CONF_MAX (1024 * 1024)

struct cni_attachment {
	char *containerid;
	char *ifname;
};

/* logLevel or logFile: value NULL when absent or unusable (then bad says
 * why: not a string, or a NUL inside). Neither fails a request. */
struct cni_conf_log {
	const char *value;
	const char *bad;
};

/* The request configuration. Strings and objects are borrowed from root. */
struct cni_conf {
	struct json_object *root;
	char *raw; /* stdin bytes, NUL-terminated */
	size_t raw_len;
	enum cni_command command; /* the request it was parsed for */
	enum cni_version version;
	const char *version_str;
	const char *name;
	const char *type;
	struct json_object *args;	    /* "args" */
	struct json_object *args_cni;	    /* "args.cni" */
	struct json_object *runtime_config; /* "runtimeConfig" */
	struct json_object *ipam;
	const char *ipam_type;
	struct cni_conf_log log_level;
	struct cni_conf_log log_file;
	struct json_object *prev_json;	/* "prevResult" */
	struct cni_result *prev_result; /* parsed in its own version */
	bool has_attachments;		/* GC: a valid-attachments list was sent */
	struct cni_attachment *attachments;
	size_t n_attachments;
};

/* Read all of fd (stdin) into buf, at most CNI_CONF_MAX bytes: larger input
 * is code 7, a read error code 5. Caller frees *buf. */
int cni_conf_read(int fd, char **buf, size_t *len, struct cni_error *err);

/* Parse a request for cmd (takes ownership of raw): bad JSON is code 6,
 * a bad network name code 7, an unsupported cniVersion code 1.
 * Free with cni_conf_free(). */
int cni_conf_parse(char *raw, size_t len, enum cni_command cmd, struct cni_conf **out,
		   struct cni_error *err);

/* Free conf, its JSON tree and its stdin copy; NULL is ignored. */
void cni_conf_free(struct cni_conf *conf);

/* True when (containerid, ifname) is in the GC list. */
bool cni_conf_attachment_valid(const struct cni_conf *conf, const char *containerid,
			       const char *ifname);

#endif
