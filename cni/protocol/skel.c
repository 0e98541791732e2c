// SPDX-License-Identifier: Apache-2.0
#include <errno.h>
#include <malloc.h>
#include <gnu/libc-version.h>
#include <json-c/json_c_version.h>
#include <netlink/version.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/capability.h>
#include <unistd.h>

#include "protocol/caps.h"
#include "base/cleanup.h"
#include "protocol/cni.h"
#include "base/json.h"

static int print_json(struct json_object *o)
{
	_cleanup_free_ char *s = cni_json_dump(o, true);

	if (!s)
		return -ENOMEM;
	if (fputs(s, stdout) == EOF || fflush(stdout) == EOF)
		return -EIO;
	return 0;
}

/* The CNI error object of ctx, in the request's cniVersion when known. */
static struct json_object *error_json(const struct cni_ctx *ctx)
{
	struct json_object *o = json_object_new_object();
	const char *v = ctx->conf	    ? cni_version_str(ctx->conf->version)
			: *ctx->err.version ? ctx->err.version
					    : cni_version_str(CNI_VERSION_LATEST);

	if (!o)
		return NULL;
	json_object_object_add(o, "cniVersion", json_object_new_string(v));
	json_object_object_add(o, "code", json_object_new_int(ctx->err.code));
	/* cni_errorf never leaves msg empty; an error filled another way
	 * still says something. */
	if (*ctx->err.msg) {
		json_object_object_add(o, "msg", json_object_new_string(ctx->err.msg));
	} else {
		char msg[32];

		snprintf(msg, sizeof(msg), "error (code %d)", ctx->err.code);
		json_object_object_add(o, "msg", json_object_new_string(msg));
	}
	if (*ctx->err.details)
		json_object_object_add(o, "details", json_object_new_string(ctx->err.details));
	return o;
}

static void print_error(const struct cni_ctx *ctx)
{
	_cleanup_json_ struct json_object *o = error_json(ctx);

	if (o)
		print_json(o);
}

/* The invocation in progress, for cni_die()'s printer. */
static struct cni_ctx *current;

static void die_print(const struct cni_error *err)
{
	struct cni_ctx none = {0};
	struct cni_ctx *ctx = current ? current : &none;

	cni_error_clear(&ctx->err);
	cni_error_adopt(&ctx->err, err, -EIO);
	print_error(ctx);
}

static int print_version(void)
{
	_cleanup_json_ struct json_object *o = json_object_new_object();
	struct json_object *list = json_object_new_array();

	if (!o || !list) {
		json_object_put(list);
		return -ENOMEM;
	}
	json_object_object_add(o, "cniVersion",
			       json_object_new_string(cni_version_str(CNI_VERSION_LATEST)));
	for (int v = 0; v < CNI_VERSION_COUNT; v++)
		json_object_array_add(list,
				      json_object_new_string(cni_version_str((enum cni_version)v)));
	json_object_object_add(o, "supportedVersions", list);
	return print_json(o);
}

static void print_about(const struct cni_plugin *p)
{
	fprintf(stderr, "%s\n", p->about);
	if (p->admin)
		fprintf(stderr, "admin commands (plain argv, not CNI):\n%s\n", p->admin);
	fprintf(stderr, "CNI protocol versions supported:");
	for (int v = 0; v < CNI_VERSION_COUNT; v++)
		fprintf(stderr, "%s %s", v ? "," : "", cni_version_str((enum cni_version)v));
	fputc('\n', stderr);
}

/* Set by the Makefile for this object only (see VERSION and SOURCE there). */
#ifndef IBCNI_VERSION
#define IBCNI_VERSION "unknown"
#endif
#ifndef IBCNI_SOURCE
#define IBCNI_SOURCE "source unknown"
#endif
#ifdef __clang__
#define CC_NAME "clang"
#else
#define CC_NAME "gcc"
#endif

static void print_versions(void)
{
	printf("CNI versions:");
	for (int v = 0; v < CNI_VERSION_COUNT; v++)
		printf("%s %s", v ? "," : "", cni_version_str((enum cni_version)v));
	putchar('\n');
}

/* --help: what an operator needs to write a config or run an admin command. */
static int print_help(const struct cni_plugin *p)
{
	printf("%s\n\n"
	       "usage: %s --help | --version\n"
	       "       CNI_COMMAND=ADD|DEL|CHECK|GC|STATUS|VERSION CNI_CONTAINERID=... "
	       "CNI_NETNS=... CNI_IFNAME=... CNI_PATH=... %s < config.json\n"
	       "A CNI plugin: container runtimes (through Multus) run it; the network "
	       "config comes on stdin.\n",
	       p->about, p->name, p->name);
	if (p->keys && p->keys->key) {
		printf("\nconfiguration keys:\n");
		for (const struct cni_plugin_key *k = p->keys; k->key; k++)
			printf("  %-30s %s\n", k->key, k->meaning);
	}
	if (p->admin)
		printf("\nadmin commands (plain argv, not CNI):\n%s\n", p->admin);
	putchar('\n');
	print_versions();
	return fflush(stdout) == EOF ? -EIO : 0;
}

/* --version: the build, and the libraries as linked (a static binary carries
 * its own; a dynamic one reports those the loader found). */
static int print_build(const struct cni_plugin *p)
{
	/* No program interpreter (AT_BASE 0) means nothing was loaded beside us. */
	bool is_static = getauxval(AT_BASE) == 0;

	printf("%s %s (%s)\n", p->name, IBCNI_VERSION, IBCNI_SOURCE);
	printf("build: %s, " CC_NAME " %s, glibc %s\n", is_static ? "static" : "dynamic",
	       __VERSION__, gnu_get_libc_version());
	printf("libraries: libnl %d.%d.%d, json-c %s, libcap %d.%d\n", nl_ver_maj, nl_ver_min,
	       nl_ver_mic, json_c_version(), LIBCAP_MAJOR, LIBCAP_MINOR);
	print_versions();
	return fflush(stdout) == EOF ? -EIO : 0;
}

static int gate_version(struct cni_ctx *ctx)
{
	enum cni_command cmd = ctx->env.command;
	enum cni_version v = ctx->conf->version;
	char msg[64];

	if ((cmd == CNI_CMD_CHECK && v < CNI_V040) ||
	    ((cmd == CNI_CMD_GC || cmd == CNI_CMD_STATUS) && v < CNI_V110)) {
		snprintf(msg, sizeof(msg), "config version does not allow %s",
			 cni_command_str(cmd));
		return cni_errorf(&ctx->err, -ENOTSUP, CNI_ERR_INCOMPATIBLE_VERSION, msg,
				  "cniVersion is \"%s\"; %s needs %s or later",
				  ctx->conf->version_str, cni_command_str(cmd),
				  cmd == CNI_CMD_CHECK ? "0.4.0" : "1.1.0");
	}
	return 0;
}

static int dispatch(const struct cni_plugin *p, struct cni_ctx *ctx)
{
	switch (ctx->env.command) {
	case CNI_CMD_ADD:
		return p->add(ctx);
	case CNI_CMD_DEL:
		return p->del(ctx);
	case CNI_CMD_CHECK:
		return p->check(ctx);
	case CNI_CMD_GC:
		return p->gc ? p->gc(ctx) : 0;
	case CNI_CMD_STATUS:
		return p->status ? p->status(ctx) : 0;
	default:
		return -EINVAL;
	}
}

/* The environment was wrong, but the error should still speak the request's
 * cniVersion: read it from stdin if that holds a parsable config. */
static void note_request_version(struct cni_error *err)
{
	struct cni_error ignored = {0};
	struct cni_conf *conf = NULL;
	char *raw;
	size_t len;

	if (cni_conf_read(STDIN_FILENO, &raw, &len, &ignored))
		return;
	cni_conf_parse(raw, len, CNI_CMD_NONE, &conf, &ignored);
	if (*ignored.version)
		memcpy(err->version, ignored.version, sizeof(err->version));
	cni_conf_free(conf);
}

/* A parsed request served: version gate, CNI_ARGS, capabilities, the verb;
 * an ADD's result encoded in *out. */
static int serve(const struct cni_plugin *p, struct cni_ctx *ctx, struct json_object **out)
{
	int ret = gate_version(ctx);

	if (!ret)
		ret = cni_args_parse(ctx->env.args, &ctx->args, &ctx->err);

	/* DEL must never fail on CNI_ARGS (ib-sriov-cni never parses them). */
	if (ret == -EINVAL && ctx->env.command == CNI_CMD_DEL) {
		log_warn("CNI_ARGS ignored for DEL: %s: %s", ctx->err.msg, ctx->err.details);
		cni_error_clear(&ctx->err);
		ret = 0;
	}
	if (ret)
		return ret;
	if (ctx->env.command != CNI_CMD_STATUS && p->caps &&
	    (ret = cni_caps_require(p->caps, &ctx->err)))
		return ret;
	log_debug("network %s, config %zu bytes", ctx->conf->name, ctx->conf->raw_len);
	ret = dispatch(p, ctx);
	if (ret || ctx->env.command != CNI_CMD_ADD)
		return ret;
	if (!ctx->result)
		return cni_errorf(&ctx->err, -EINVAL, CNI_ERR_INTERNAL, "plugin produced no result",
				  NULL);
	return cni_result_to_json(ctx->result, ctx->conf->version, out, &ctx->err);
}

/* logLevel and logFile never fail a request: the Go plugins take any
 * (sriov-cni writes anywhere, ib-sriov-cni ignores both), so a NAD that
 * worked with them still attaches. What we will not write is ignored with
 * one warning, and lines go to stderr; one holding a NUL is never used
 * (as a C string it would end early). */
static void setup_log(const struct cni_conf *c)
{
	cni_log_apply(c->name, c->log_level.value, c->log_file.value);
	if (c->log_level.bad)
		log_warn("logLevel ignored (%s); using info", c->log_level.bad);
	if (c->log_file.bad)
		log_warn("logFile ignored (%s); logging to stderr", c->log_file.bad);
}

/* The node's configuration. A wrong one (code 7 naming the file and the
 * key) fails ADD, CHECK and STATUS, so an admin's mistake is seen at once;
 * DEL and GC log it and go on with the defaults, so one bad file never leaves
 * every pod of the node Terminating. The defaults allow no node ranges and
 * only the default dataDir: DEL may release less than the file allowed,
 * never another container's state. A file that cannot be read (5) fails
 * every verb: the runtime retries a failed DEL, never one that answered 0
 * with leases left (docs/operators.md, "A broken node configuration"). */
static int load_node(struct cni_ctx *ctx)
{
	enum cni_command cmd = ctx->env.command;
	struct cni_error scratch = {0};
	int ret;

	ctx->own_node = calloc(1, sizeof(*ctx->own_node));
	if (!ctx->own_node)
		return -ENOMEM;
	ctx->node = ctx->own_node;
	ret = cni_nodeconf_load(ctx->own_node, NULL, &scratch);
	if (!ret)
		return 0;
	if (scratch.code != CNI_ERR_INVALID_CONFIG || (cmd != CNI_CMD_DEL && cmd != CNI_CMD_GC))
		return cni_error_adopt(&ctx->err, &scratch, ret);
	log_warn("%s: %s; %s goes on with the defaults (allowedDataDirs %s, no \"ranges\") "
		 "and ADD refuses until the file is fixed",
		 scratch.msg, scratch.details, ctx->env.command_str, CNI_NODECONF_DEFAULT_DATA_DIR);
	ctx->node = cni_nodeconf_defaults();
	return 0;
}

static int run(const struct cni_plugin *p, struct cni_ctx *ctx)
{
	_cleanup_json_ struct json_object *out = NULL;
	char *raw;
	size_t len;
	int ret;

	ret = cni_env_load(&ctx->env, &ctx->err);
	if (ret) {
		note_request_version(&ctx->err);
		return ret;
	}
	if (ctx->env.command == CNI_CMD_VERSION)
		return print_version();
	cni_log_context(p->name, ctx->env.command_str, ctx->env.containerid, ctx->env.ifname);
	ret = cni_conf_read(STDIN_FILENO, &raw, &len, &ctx->err);
	if (ret)
		return ret;
	ret = cni_conf_parse(raw, len, ctx->env.command, &ctx->own_conf, &ctx->err);
	if (ret)
		return ret;
	ctx->conf = ctx->own_conf;
	setup_log(ctx->conf);
	ret = load_node(ctx);
	if (ret)
		return ret;
	ret = serve(p, ctx, &out);
	return ret || !out ? ret : print_json(out);
}

/* A failed invocation's error completed (a bare errno gets its code) and logged. */
static void fail(struct cni_ctx *ctx, int ret)
{
	if (!ctx->err.code)
		cni_errorf(&ctx->err, ret, cni_error_code_for_errno(ret), strerror(-ret), NULL);
	log_err("%s%s%s (code %d)", ctx->err.msg, *ctx->err.details ? ": " : "", ctx->err.details,
		ctx->err.code);
}

static void ctx_free(struct cni_ctx *ctx)
{
	cni_result_free(ctx->result);
	cni_args_free(&ctx->args);
	cni_conf_free(ctx->own_conf);
	cni_nodeconf_free(ctx->own_node);
	free(ctx->own_node);
}

/* ctx's configuration for a request cmd: conf itself when it was parsed
 * for cmd (parsing depends on nothing else), else its bytes parsed anew. */
static int builtin_conf(struct cni_ctx *ctx, const struct cni_conf *conf, enum cni_command cmd)
{
	char *copy;
	int ret;

	if (conf->command == cmd) {
		ctx->conf = conf;
		return 0;
	}
	copy = malloc(conf->raw_len + 1);
	if (!copy)
		return -ENOMEM;
	memcpy(copy, conf->raw, conf->raw_len);
	copy[conf->raw_len] = '\0';
	ret = cni_conf_parse(copy, conf->raw_len, cmd, &ctx->own_conf, &ctx->err);
	ctx->conf = ctx->own_conf;
	return ret;
}

int cni_run_builtin(const struct cni_plugin *p, const struct cni_env *env, enum cni_command cmd,
		    const struct cni_conf *conf, struct json_object **out)
{
	struct cni_ctx ctx = {.env = *env}, *outer = current;
	struct cni_log_ctx saved;
	int ret;

	*out = NULL;
	ctx.env.command = cmd;
	ctx.env.command_str = cni_command_str(cmd);
	/* The request is the caller's own: so is the node it runs on. */
	ctx.node = outer && outer->node ? outer->node : cni_nodeconf_defaults();
	saved = cni_log_swap_context((struct cni_log_ctx){p->name, ctx.env.command_str,
							  ctx.env.containerid, ctx.env.ifname});
	current = &ctx;
	/* The log is already set up: the request is the caller's own. */
	ret = builtin_conf(&ctx, conf, cmd);
	if (!ret)
		ret = serve(p, &ctx, out);
	if (ret) {
		fail(&ctx, ret);
		json_object_put(*out);
		*out = error_json(&ctx);
	} else {
		/* The caller logs its own success; this one is a detail of it. */
		log_debug("%s succeeded", ctx.env.command_str);
	}
	ctx_free(&ctx);
	current = outer;
	cni_log_swap_context(saved);
	if (ret && !*out)
		return -ENOMEM;
	return ret ? 1 : 0;
}

int cni_run(const struct cni_plugin *p, int argc, char **argv)
{
	struct cni_ctx ctx = {0};
	int ret;

	/* Runtimes never pass arguments (the spec uses only the environment),
	 * so an argument is a person asking. */
	if (argc > 1 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")))
		return print_help(p) ? 1 : 0;
	if (argc > 1 && !strcmp(argv[1], "--version"))
		return print_build(p) ? 1 : 0;
	/* A delegate that exits before reading stdin must not kill us. */
	signal(SIGPIPE, SIG_IGN);
	/* Each netlink reply is read into a fresh 68 KiB buffer (see nl.c):
	 * with glibc's default 128 KiB trim threshold the heap would shrink
	 * after it and grow again for the next, faulting its pages in anew. A
	 * short-lived process keeps what it grew. */
	mallopt(M_TRIM_THRESHOLD, 4 << 20);
	if (!getenv("CNI_COMMAND")) {
		print_about(p);
		return 0;
	}
	current = &ctx;
	cni_die_set_printer(die_print);
	ret = run(p, &ctx);
	if (ret) {
		fail(&ctx, ret);
		print_error(&ctx);
	} else if (ctx.env.command != CNI_CMD_VERSION) {
		log_info("%s succeeded", ctx.env.command_str);
	}
	ctx_free(&ctx);
	cni_log_close();
	current = NULL;
	return ret ? 1 : 0;
}
