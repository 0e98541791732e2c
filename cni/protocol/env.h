/* SPDX-License-Identifier: Apache-2.0 */
#ifndef CNI_ENV_H
#define CNI_ENV_H

#include <stdbool.h>
#include "base/error.h"

enum cni_command {
	CNI_CMD_NONE,
	CNI_CMD_ADD,
	CNI_CMD_DEL,
	CNI_CMD_CHECK,
	CNI_CMD_VERSION,
	CNI_CMD_GC,
	CNI_CMD_STATUS,
};

/* The CNI_* variables; strings are borrowed from environ. Unset ones are "". */
struct cni_env {
	enum cni_command command;
	const char *command_str;
	const char *containerid;
	const char *netns;
	const char *ifname;
	const char *args;
	const char *path;
};

/* Read and validate the CNI_* variables as the spec requires for the command:
 * missing required ones, a bad container ID or interface name are code 4. */
int cni_env_load(struct cni_env *env, struct cni_error *err);

/* The command's name ("ADD"), or "" for CNI_CMD_NONE. */
const char *cni_command_str(enum cni_command cmd);

/* The spec's container ID / network name charset: ^[a-zA-Z0-9][a-zA-Z0-9_.-]*$ */

/* Interface-name rules; returns NULL when valid, else the spec's message. */
const char *cni_ifname_problem(const char *s);

#endif
