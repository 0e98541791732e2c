/* SPDX-License-Identifier: Apache-2.0 */
/* Delegates carried inside this binary (cni/protocol/builtin.c). */
#ifndef CNI_BUILTIN_H
#define CNI_BUILTIN_H

#include <stdbool.h>
#include <stddef.h>
#include <json-c/json.h>

#include "protocol/env.h"

struct cni_conf;
struct cni_plugin;

/* Longest GNU build ID we compare (SHA-1 is 20 bytes, the linkers' most 64). */
#define CNI_BUILD_ID_MAX 64

/* A GNU build ID: len bytes. */
struct cni_build_id {
	size_t len;
	unsigned char bytes[CNI_BUILD_ID_MAX];
};

/* Serves one request for plugin p in this process as its executable would
 * (the dispatcher's cni_run_builtin): the exit status, *out what it printed. */
typedef int cni_builtin_serve_fn(const struct cni_plugin *p, const struct cni_env *env,
				 enum cni_command cmd, const struct cni_conf *conf,
				 struct json_object **out);

/* A delegate linked into this binary: its type, its plugin table, the
 * build ID of the executable built from the same code, and how a request is
 * served (set by the plugin that registers it, so that delegation never
 * calls up into the dispatcher). */
struct cni_builtin {
	const char *type;
	const struct cni_plugin *plugin;
	const struct cni_build_id *id;
	cni_builtin_serve_fn *serve;
	/* Optional, for requests served without a child: the directory the
	 * request would touch for conf (normalised, into buf[len]; nonzero when
	 * it cannot say), and the root whose filesystem the caller already uses
	 * in its own process. A request whose directory is reached from
	 * inline_root without crossing a mount is served in the caller's
	 * process; any other runs in a child under the delegate's deadline. */
	int (*touches)(const struct cni_conf *conf, char *buf, size_t len);
	const char *inline_root;
};

/* Serve delegations to b->type in this process whenever the file CNI_PATH
 * resolves it to carries b's build ID. Up to 4; -ENOSPC beyond, -EINVAL
 * without b->serve. */
int cni_delegate_builtin(const struct cni_builtin *b);

/* The builtin that path (found on CNI_PATH for type) is the executable of,
 * or NULL: exec it. IBCNI_DELEGATE_EXEC=1 in the environment always execs. */
const struct cni_builtin *cni_builtin_for(const char *type, const char *path);

/* The GNU build ID of the 64-bit ELF file fd: 0, -ENOEXEC (not such a
 * file) or -ENOENT (no build ID note). */
int cni_elf_build_id(int fd, struct cni_build_id *id);

#endif
