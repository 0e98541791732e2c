/* SPDX-License-Identifier: Apache-2.0 */
/* The runtime every ibcni plugin links: one include for a plugin's main.c. */
#ifndef CNI_CNI_H
#define CNI_CNI_H

#include <stdint.h>

#include "protocol/args.h"
#include "protocol/conf.h"
#include "protocol/env.h"
#include "base/error.h"
#include "base/log.h"
#include "protocol/nodeconf.h"
#include "protocol/result.h"
#include "protocol/version.h"

struct cni_ctx {
	struct cni_env env;
	struct cni_args args;	     /* CNI_ARGS, parsed */
	const struct cni_conf *conf; /* NULL for VERSION; read only */
	struct cni_conf *own_conf;   /* the parse this context frees (conf, or NULL) */
	/* The node's configuration (CNI_NODECONF_PATH), loaded by cni_run for
	 * every verb; NULL only for VERSION. Read only. */
	const struct cni_nodeconf *node;
	struct cni_nodeconf *own_node; /* the load this context frees (node, or NULL) */
	struct cni_result *result;     /* ADD sets it; cni_run prints and frees it */
	struct cni_error err;
};

/* One configuration key and its meaning, for --help. */
struct cni_plugin_key {
	const char *key;
	const char *meaning;
};

struct cni_plugin {
	const char *name;
	const char *about;
	/* --help: the configuration keys (ending with a NULL key) and the
	 * admin commands, one per line (NULL when none). */
	const struct cni_plugin_key *keys;
	const char *admin;
	/* Each returns 0 or a negative errno with ctx->err filled where the
	 * meaning is known. ADD, DEL and CHECK are required; a NULL GC or
	 * STATUS succeeds without action, as Go's skel does. */
	int (*add)(struct cni_ctx *ctx);
	int (*del)(struct cni_ctx *ctx);
	int (*check)(struct cni_ctx *ctx);
	int (*gc)(struct cni_ctx *ctx);
	int (*status)(struct cni_ctx *ctx);
	/* Capabilities (CNI_CAP bits) needed by commands that change the host. */
	uint64_t caps;
};

/* Run one CNI invocation: environment, stdin, dispatch, then the result or
 * error JSON on stdout (the only writer of stdout). Returns the exit status.
 * `--help` and `--version` as argv[1] print the keys or the build instead. */
int cni_run(const struct cni_plugin *plugin, int argc, char **argv);

/* Serve one request for plugin p in this process, as if it had been exec'ed
 * with env (CNI_COMMAND cmd) and conf's stdin bytes on stdin: *out is what it
 * would have printed (NULL for a silent success). conf itself serves when it
 * was parsed for cmd (p only reads it); otherwise its bytes are parsed anew.
 * Returns its exit status (0 or 1), or -ENOMEM when not even the error
 * could be built. Log context is restored. */
int cni_run_builtin(const struct cni_plugin *p, const struct cni_env *env, enum cni_command cmd,
		    const struct cni_conf *conf, struct json_object **out);

#endif
