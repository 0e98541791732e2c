// SPDX-License-Identifier: Apache-2.0
/* The layering of cni/ (cni/README.md): every quoted include of the runtime
 * and the plugins, checked against the "May include:" line of the README of
 * the directory the file is in. */
#include <criterion/criterion.h>
#include <glob.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "base/cleanup.h"
#include "base/util.h"
#include "helpers.h"

static const char *const layers[] = {"base", "kernel", "state", "protocol"};
static const char *const plugins[] = {"ib-sriov", "rdma-ns", "ipam"};

#define N(a) (sizeof(a) / sizeof((a)[0]))

static void src_path(char *buf, size_t len, const char *rel)
{
	cr_assert_eq(check_snprintf(buf, len, "%s/../../%s", fixtures_dir(), rel), 0);
}

/* The layers a layer's README allows: the `x/` names on its "May include:"
 * line, plus itself. */
static void allowed_of(const char *layer, bool allowed[N(layers)])
{
	_cleanup_free_ char *readme = NULL;
	char path[512], rel[64];
	const char *line, *end;

	snprintf(rel, sizeof(rel), "cni/%s/README.md", layer);
	src_path(path, sizeof(path), rel);
	cr_assert_eq(read_file(path, 1 << 16, &readme, NULL), 0, "%s", path);
	line = strstr(readme, "\nMay include: ");
	cr_assert(line, "%s has no \"May include:\" line", path);
	end = strchr(line + 1, '\n');
	for (size_t i = 0; i < N(layers); i++) {
		char tok[32];
		const char *hit;

		snprintf(tok, sizeof(tok), "`%s/`", layers[i]);
		hit = strstr(line, tok);
		allowed[i] = !strcmp(layers[i], layer) || (hit && (!end || hit < end));
	}
}

/* Each quoted include of src, as fn(file, target) calls; returns the count. */
static size_t each_include(const char *file, void (*fn)(const char *, const char *, const void *),
			   const void *arg)
{
	_cleanup_free_ char *src = NULL;
	size_t n = 0;

	cr_assert_eq(read_file(file, 1 << 20, &src, NULL), 0, "%s", file);
	for (const char *p = src; (p = strstr(p, "#include \"")); n++) {
		char target[128];
		const char *q = p + strlen("#include \""), *e = strchr(q, '"');

		cr_assert(e && (size_t)(e - q) < sizeof(target), "%s: bad include", file);
		memcpy(target, q, (size_t)(e - q));
		target[e - q] = '\0';
		fn(file, target, arg);
		p = e;
	}
	return n;
}

static int layer_of(const char *target)
{
	for (size_t i = 0; i < N(layers); i++) {
		size_t n = strlen(layers[i]);

		if (!strncmp(target, layers[i], n) && target[n] == '/')
			return (int)i;
	}
	return -1;
}

static void check_runtime(const char *file, const char *target, const void *arg)
{
	const bool *allowed = arg;
	int l;

	if (!strcmp(target, "podres.pb-c.h")) /* generated from protocol/podres.proto */
		return;
	l = layer_of(target);
	cr_assert(l >= 0, "%s includes \"%s\": name its layer (\"<layer>/%s\")", file, target,
		  target);
	cr_assert(allowed[l], "%s includes \"%s\": its README does not allow %s/", file, target,
		  layers[l]);
}

static void check_plugin(const char *file, const char *target, const void *arg)
{
	const char *dir = arg;
	char own[512];

	if (layer_of(target) >= 0)
		return;
	if (!strcmp(target, "../ipam/ipam.h") && !strcmp(dir, "ib-sriov") &&
	    strstr(file, "/ib-sriov/main.c"))
		return; /* the built-in IPAM's registration (cni/README.md) */
	cr_assert(!strchr(target, '/'), "%s includes \"%s\": a plugin includes no other plugin",
		  file, target);
	snprintf(own, sizeof(own), "%s/../../%s/%s", fixtures_dir(), dir, target);
	cr_assert_eq(access(own, F_OK), 0, "%s includes \"%s\", which is not in %s/", file, target,
		     dir);
}

static size_t each_file(const char *dir, void (*fn)(const char *, const char *, const void *),
			const void *arg)
{
	size_t n = 0;

	for (const char *ext = "ch"; *ext; ext++) {
		char pattern[512], rel[64];
		glob_t g;

		snprintf(rel, sizeof(rel), "%s/*.%c", dir, *ext);
		src_path(pattern, sizeof(pattern), rel);
		if (glob(pattern, 0, NULL, &g))
			continue;
		for (size_t i = 0; i < g.gl_pathc; i++)
			n += each_include(g.gl_pathv[i], fn, arg);
		globfree(&g);
	}
	return n;
}

Test(layers, runtime_includes_follow_the_readmes)
{
	size_t n = 0;

	for (size_t i = 0; i < N(layers); i++) {
		bool allowed[N(layers)];
		char dir[32];

		allowed_of(layers[i], allowed);
		snprintf(dir, sizeof(dir), "cni/%s", layers[i]);
		n += each_file(dir, check_runtime, allowed);
	}
	cr_assert_gt(n, 100, "only %zu includes found", n);
}

Test(layers, plugins_include_layers_and_their_own)
{
	size_t n = 0;

	for (size_t i = 0; i < N(plugins); i++)
		n += each_file(plugins[i], check_plugin, plugins[i]);
	cr_assert_gt(n, 100, "only %zu includes found", n);
}

/* Nothing is left at cni/'s top level: a file there has no layer. */
Test(layers, no_file_outside_a_layer)
{
	char pattern[512];
	glob_t g;

	src_path(pattern, sizeof(pattern), "cni/*.[ch]");
	cr_assert_eq(glob(pattern, 0, NULL, &g), GLOB_NOMATCH, "%s",
		     g.gl_pathc ? g.gl_pathv[0] : "");
}

/* The check itself: a kernel file including the protocol is refused. */
Test(layers, check_refuses_an_upward_include)
{
	bool allowed[N(layers)];

	allowed_of("kernel", allowed);
	cr_assert(allowed[0] && allowed[1] && !allowed[2] && !allowed[3]);
	allowed_of("base", allowed);
	cr_assert(allowed[0] && !allowed[1] && !allowed[2] && !allowed[3]);
}
