/* SPDX-License-Identifier: Apache-2.0 */
#ifndef CNI_IPAM_H
#define CNI_IPAM_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>
#include <json-c/json.h>

#include "conf.h"
#include "env.h"
#include "error.h"
#include "result.h"

/* How long a delegate may run; IBCNI_DELEGATE_TIMEOUT_MS overrides it. */
#define CNI_DELEGATE_TIMEOUT_MS 60000
/* How long to wait for a delegate to exit after SIGKILL. */
#define CNI_DELEGATE_KILL_WAIT_MS 2000
/* Most bytes a delegate may print on stdout. */
#define CNI_DELEGATE_MAX_OUTPUT (1024 * 1024)

struct cni_plugin;

/* Longest GNU build ID we compare (SHA-1 is 20 bytes, the linkers' most 64). */
#define CNI_BUILD_ID_MAX 64

/* A delegate linked into this binary: its type, its plugin table and the
 * GNU build ID of the executable built from the same code. */
struct cni_builtin {
	const char *type;
	const struct cni_plugin *plugin;
	const unsigned char *build_id;
	size_t build_id_len;
};

/* Serve delegations to b->type in this process whenever the file CNI_PATH
 * resolves it to carries b's build ID. Up to 4; -ENOSPC beyond. */
int cni_delegate_builtin(const struct cni_builtin *b);

/* The builtin that path (found on CNI_PATH for type) is the executable of,
 * or NULL: exec it. IBCNI_DELEGATE_EXEC=1 in the environment always execs. */
const struct cni_builtin *cni_builtin_for(const char *type, const char *path);

/* The GNU build ID of the 64-bit ELF file fd into id[CNI_BUILD_ID_MAX]:
 * 0, -ENOEXEC (not such a file) or -ENOENT (no build ID note). */
int cni_elf_build_id(int fd, unsigned char *id, size_t *len);

/* Find name on the ':'-separated dirs: the first regular file dir/name.
 * Relative entries ("", ".", "bin") are skipped (and logged): only absolute
 * directories are searched. A name that is empty or has a '/' is code 7.
 * Writes the path to out. */
int cni_delegate_find(const char *dirs, const char *name, char *out, size_t len,
		      struct cni_error *err);

/* Run plugin `type` from CNI_PATH for cmd with the whole request on stdin and
 * our environment (CNI_COMMAND overridden); stderr passes through. On success
 * *out holds its parsed stdout (NULL when it printed nothing). On failure the
 * delegate's own code, msg and details are copied into err unchanged;
 * garbage output, a crash or a hang past the bound are code 103; an error
 * with an empty msg gets "<type> failed with code N and no message". */
int cni_delegate_exec(const char *type, const struct cni_env *env, const struct cni_conf *conf,
		      enum cni_command cmd, struct json_object **out, struct cni_error *err);

/* waitpid(pid) for at most wait_ms: 0 when reaped (*status filled),
 * -ETIMEDOUT when it is still running, or -errno. */
int cni_child_wait(pid_t pid, unsigned int wait_ms, int *status);

/* SIGKILL pid and its process group, then wait at most wait_ms for it:
 * 0 when reaped, -ETIMEDOUT when it is stuck (logged and left behind). */
int cni_child_kill(pid_t pid, unsigned int wait_ms);

/* ipam.type ADD: the delegate's result, decoded in its own version. */
int cni_ipam_add(const struct cni_env *env, const struct cni_conf *conf, struct cni_result **res,
		 struct cni_error *err);

/* ipam.type DEL, CHECK, GC or STATUS; success prints nothing. */
int cni_ipam_run(const struct cni_env *env, const struct cni_conf *conf, enum cni_command cmd,
		 struct cni_error *err);

#endif
