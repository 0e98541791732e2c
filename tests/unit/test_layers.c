// SPDX-License-Identifier: Apache-2.0
/* The layering of cni/ (cni/README.md), of ib-sriov's rooms
 * (ib-sriov/README.md) and of the installer (installer/README.md): every
 * quoted include of the runtime, the plugins and the installer, checked
 * against the "May include:" line of the README of the directory the file
 * is in. */
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

/* A plugin's room (ib-sriov/README.md): a subdirectory with a README whose
 * "May include:" line names the rooms it may include (`room/`) and whether
 * the plugin's top level ("top level"). The top level's own README, when
 * the plugin has one, names the rooms it may include. */
struct room {
	const char *plugin;
	char dir[64]; /* "" for the top level */
};

/* Whether room r's README allows what ("top level", or "`x/`"); a plugin
 * without rooms has no README, and its top level includes its own files. */
static bool room_allows(const struct room *r, const char *what)
{
	_cleanup_free_ char *readme = NULL;
	char path[512], rel[160];
	const char *line, *end, *hit;

	snprintf(rel, sizeof(rel), "%s/%s%sREADME.md", r->plugin, r->dir, *r->dir ? "/" : "");
	src_path(path, sizeof(path), rel);
	if (!*r->dir && access(path, F_OK))
		return false;
	cr_assert_eq(read_file(path, 1 << 16, &readme, NULL), 0, "%s", path);
	line = strstr(readme, "\nMay include: ");
	cr_assert(line, "%s has no \"May include:\" line", path);
	end = strchr(line + 1, '\n');
	hit = strstr(line, what);
	return hit && (!end || hit < end);
}

static bool exists_in(const char *plugin, const char *dir, const char *file)
{
	char path[512], rel[256];

	snprintf(rel, sizeof(rel), "%s/%s%s%s", plugin, dir, *dir ? "/" : "", file);
	src_path(path, sizeof(path), rel);
	return !access(path, F_OK);
}

static void check_plugin(const char *file, const char *target, const void *arg)
{
	const struct room *r = arg;
	const char *slash = strchr(target, '/');
	char room[64], tok[80];

	if (layer_of(target) >= 0)
		return;
	if (!strcmp(target, "../ipam/ipam.h") && !strcmp(r->plugin, "ib-sriov") &&
	    strstr(file, "/ib-sriov/main.c"))
		return; /* the built-in IPAM's registration (cni/README.md) */
	cr_assert(strncmp(target, "../", 3),
		  "%s includes \"%s\": a plugin includes no other plugin", file, target);
	if (!slash) {
		cr_assert(exists_in(r->plugin, r->dir, target) ||
			      (*r->dir && room_allows(r, "top level") &&
			       exists_in(r->plugin, "", target)),
			  "%s includes \"%s\", which is neither in its room nor on the top level "
			  "its README allows",
			  file, target);
		return;
	}
	cr_assert_lt((size_t)(slash - target), sizeof(room), "%s: bad include", file);
	memcpy(room, target, (size_t)(slash - target));
	room[slash - target] = '\0';
	snprintf(tok, sizeof(tok), "`%s/`", room);
	cr_assert(strcmp(room, r->dir), "%s includes \"%s\": name its own room's files bare", file,
		  target);
	cr_assert(room_allows(r, tok), "%s includes \"%s\": its README does not allow %s/", file,
		  target, room);
	cr_assert(exists_in(r->plugin, "", target), "%s includes \"%s\", which does not exist",
		  file, target);
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

/* The rooms of plugin p: its top level, then each subdirectory. */
static size_t rooms_of(const char *p, struct room *out, size_t max)
{
	char pattern[512], rel[64];
	size_t n = 0;
	glob_t g;

	out[n++] = (struct room){.plugin = p};
	snprintf(rel, sizeof(rel), "%s/*/README.md", p);
	src_path(pattern, sizeof(pattern), rel);
	if (glob(pattern, 0, NULL, &g))
		return n;
	for (size_t i = 0; i < g.gl_pathc && n < max; i++) {
		char *end = strrchr(g.gl_pathv[i], '/'), *start;

		*end = '\0';
		start = strrchr(g.gl_pathv[i], '/') + 1;
		out[n] = (struct room){.plugin = p};
		snprintf(out[n++].dir, sizeof(out[0].dir), "%s", start);
	}
	globfree(&g);
	return n;
}

Test(layers, plugins_include_layers_and_their_own)
{
	size_t n = 0;

	for (size_t i = 0; i < N(plugins); i++) {
		struct room rooms[16];
		size_t k = rooms_of(plugins[i], rooms, N(rooms));

		for (size_t j = 0; j < k; j++) {
			char dir[160];

			snprintf(dir, sizeof(dir), "%s%s%s", plugins[i], *rooms[j].dir ? "/" : "",
				 rooms[j].dir);
			n += each_file(dir, check_plugin, &rooms[j]);
		}
	}
	cr_assert_gt(n, 100, "only %zu includes found", n);
}

/* Every subdirectory of ib-sriov is a room with its rule: none escapes the
 * check by having no README. */
Test(layers, ib_sriov_rooms_have_rules)
{
	static const char *const want[] = {"add", "doctor", "reconcile", "release"};
	struct room rooms[16];
	size_t k = rooms_of("ib-sriov", rooms, N(rooms));
	char pattern[512];
	glob_t g;

	cr_assert_eq(k, N(want) + 1, "ib-sriov has %zu rooms with a README", k - 1);
	for (size_t i = 0; i < N(want); i++)
		cr_assert_str_eq(rooms[i + 1].dir, want[i]);
	src_path(pattern, sizeof(pattern), "ib-sriov/*/");
	cr_assert_eq(glob(pattern, GLOB_ONLYDIR, NULL, &g), 0);
	cr_assert_eq(g.gl_pathc, N(want), "a directory of ib-sriov/ without a README");
	globfree(&g);
	/* The rule itself: the doctor reads, it never releases. */
	cr_assert(room_allows(&rooms[2], "top level"));
	cr_assert(!room_allows(&rooms[2], "`release/`"));
	cr_assert(!room_allows(&rooms[3], "`add/`"));
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

/* The installer (installer/README.md), a peer of the plugins, is allowed
 * by name: a layer as `base/`, another directory's header by its path
 * from the top (`ipam/ipam.h`, included as "../ipam/ipam.h"). */
static bool installer_allows(const char *line, const char *target)
{
	char tok[160];
	int l = layer_of(target);

	if (l >= 0)
		cr_assert_eq(check_snprintf(tok, sizeof(tok), "`%s/`", layers[l]), 0);
	else if (!strncmp(target, "../", 3))
		cr_assert_eq(check_snprintf(tok, sizeof(tok), "`%s`", target + 3), 0);
	else
		return false;
	return strstr(line, tok) != NULL;
}

/* A directory's "May include:" line alone (freed by the caller). */
static char *may_include(const char *room)
{
	_cleanup_free_ char *readme = NULL;
	char path[512], rel[64];
	const char *line, *end;

	cr_assert_eq(check_snprintf(rel, sizeof(rel), "%s/README.md", room), 0);
	src_path(path, sizeof(path), rel);
	cr_assert_eq(read_file(path, 1 << 16, &readme, NULL), 0, "%s", path);
	line = strstr(readme, "\nMay include: ");
	cr_assert(line, "%s has no \"May include:\" line", path);
	end = strchr(line + 1, '\n');
	return strndup(line + 1, end ? (size_t)(end - line - 1) : strlen(line + 1));
}

static void check_installer(const char *file, const char *target, const void *arg)
{
	const char *line = arg;
	char own[512], rel[160];

	if (strchr(target, '/')) {
		cr_assert(installer_allows(line, target),
			  "%s includes \"%s\": installer/README.md does not allow it", file,
			  target);
		return;
	}
	cr_assert_eq(check_snprintf(rel, sizeof(rel), "installer/%s", target), 0);
	src_path(own, sizeof(own), rel);
	cr_assert_eq(access(own, F_OK), 0, "%s includes \"%s\", which is not in installer/", file,
		     target);
}

Test(layers, installer_includes_follow_its_readme)
{
	_cleanup_free_ char *line = may_include("installer");

	cr_assert(line);
	cr_assert_gt(each_file("installer", check_installer, line), 10);
}

/* The check itself: the installer may not reach the kernel, the state or
 * ipam's private headers, nor another plugin. */
Test(layers, installer_check_refuses_what_its_readme_does_not_name)
{
	_cleanup_free_ char *line = may_include("installer");

	cr_assert(line);
	cr_assert(installer_allows(line, "base/util.h") &&
		  installer_allows(line, "protocol/nodeconf.h"));
	cr_assert(installer_allows(line, "../ipam/ipam.h"));
	cr_assert(!installer_allows(line, "kernel/netns.h") &&
		  !installer_allows(line, "state/state.h"));
	cr_assert(!installer_allows(line, "../ipam/range.h") &&
		  !installer_allows(line, "../ib-sriov/ibsriov.h"));
	cr_assert(!installer_allows(line, "ipam/ipam.h"));
}
