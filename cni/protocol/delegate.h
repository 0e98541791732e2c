/* SPDX-License-Identifier: Apache-2.0 */
#ifndef CNI_IPAM_H
#define CNI_IPAM_H

#include <stddef.h>
#include <sys/types.h>
#include <json-c/json.h>

#include "protocol/conf.h"
#include "protocol/env.h"
#include "base/error.h"
#include "base/child.h"
#include "protocol/result.h"

/* How long a delegate may run; IBCNI_DELEGATE_TIMEOUT_MS overrides it. */
#define CNI_DELEGATE_TIMEOUT_MS 60000
/* How long to wait for a delegate to exit after SIGKILL. */
#define CNI_DELEGATE_KILL_WAIT_MS 2000
/* Most bytes a delegate may print on stdout. */
#define CNI_DELEGATE_MAX_OUTPUT (1024 * 1024)

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

/* ipam.type ADD: the delegate's result, decoded in its own version. */
int cni_ipam_add(const struct cni_env *env, const struct cni_conf *conf, struct cni_result **res,
		 struct cni_error *err);

/* ipam.type DEL, CHECK, GC or STATUS; success prints nothing. */
int cni_ipam_run(const struct cni_env *env, const struct cni_conf *conf, enum cni_command cmd,
		 struct cni_error *err);

#endif
