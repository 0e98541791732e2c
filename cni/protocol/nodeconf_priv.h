/* SPDX-License-Identifier: Apache-2.0 */
/* What nodeconf.c and nodeconf_ranges.c share, for them only. */
#ifndef CNI_NODECONF_PRIV_H
#define CNI_NODECONF_PRIV_H

#include <json-c/json.h>

#include "base/error.h"
#include "protocol/nodeconf.h"

/* Code 7 "invalid node configuration", its details "<path>: <fmt ...>": every
 * problem of the file is the admin's to fix there. Returns ret. */
int cni_nodeconf_bad(struct cni_error *err, int ret, const char *path, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* A file's "ranges" object v checked (shape, bounds, namespaces, the registered
 * checker) and referenced in nc->ranges: 0, or -EINVAL naming path and the key. */
int cni_nodeconf_parse_ranges(struct cni_nodeconf *nc, struct json_object *v, const char *path,
			      struct cni_error *err);

#endif
