// SPDX-License-Identifier: Apache-2.0
#include <errno.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/cleanup.h"
#include "protocol/env.h"
#include "base/util.h"

static const struct {
	const char *name;
	enum cni_command cmd;
} commands[] = {
    {"ADD", CNI_CMD_ADD},	  {"DEL", CNI_CMD_DEL}, {"CHECK", CNI_CMD_CHECK},
    {"VERSION", CNI_CMD_VERSION}, {"GC", CNI_CMD_GC},	{"STATUS", CNI_CMD_STATUS},
};

/* Which variables each command needs, in the order the spec lists them. */
enum { NEED_ID = 1, NEED_NETNS = 2, NEED_IFNAME = 4, NEED_PATH = 8 };

static unsigned int needs(enum cni_command cmd)
{
	switch (cmd) {
	case CNI_CMD_ADD:
	case CNI_CMD_CHECK:
		return NEED_ID | NEED_NETNS | NEED_IFNAME | NEED_PATH;
	case CNI_CMD_DEL:
		return NEED_ID | NEED_IFNAME | NEED_PATH;
	case CNI_CMD_GC:
	case CNI_CMD_STATUS:
		return NEED_PATH;
	default:
		return 0;
	}
}

const char *cni_command_str(enum cni_command cmd)
{
	for (size_t i = 0; i < ARRAY_SIZE(commands); i++)
		if (commands[i].cmd == cmd)
			return commands[i].name;
	return "";
}

/* Go's unicode.IsSpace, which the spec's name rule uses. */
static bool is_space(uint32_t c)
{
	return c == ' ' || (c >= '\t' && c <= '\r') || c == 0x85 || c == 0xa0 || c == 0x1680 ||
	       (c >= 0x2000 && c <= 0x200a) || c == 0x2028 || c == 0x2029 || c == 0x202f ||
	       c == 0x205f || c == 0x3000;
}

const char *cni_ifname_problem(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t n, k;
	uint32_t c;

	if (!s || !*s)
		return "interface name is empty";
	n = strlen(s);
	if (n >= IFNAMSIZ)
		return "interface name is too long";
	if (!strcmp(s, ".") || !strcmp(s, ".."))
		return "interface name is . or ..";
	for (size_t i = 0; i < n; i += k) {
		k = utf8_seq(p + i, n - i, &c);
		if (!k)
			return "interface name is not valid UTF-8";
		if (c == '/' || c == ':' || is_space(c))
			return "interface name contains / or : or whitespace characters";
		/* Stricter than Go: ESC, BEL and friends end up in logs and in
		 * what kubectl prints. */
		if (c < 0x20 || (c >= 0x7f && c <= 0x9f))
			return "interface name contains control characters";
	}
	return NULL;
}

static void add_missing(char *buf, size_t len, const char *name)
{
	size_t used = strlen(buf);

	snprintf(buf + used, len - used, "%s%s", used ? "," : "", name);
}

static const char *env_or_empty(const char *name)
{
	const char *v = getenv(name);

	return v ? v : "";
}

int cni_env_load(struct cni_env *env, struct cni_error *err)
{
	char missing[128] = "";
	unsigned int need;
	const char *why;

	memset(env, 0, sizeof(*env));
	env->command_str = env_or_empty("CNI_COMMAND");
	env->containerid = env_or_empty("CNI_CONTAINERID");
	env->netns = env_or_empty("CNI_NETNS");
	env->ifname = env_or_empty("CNI_IFNAME");
	env->args = env_or_empty("CNI_ARGS");
	env->path = env_or_empty("CNI_PATH");

	if (!*env->command_str)
		return 0;
	for (size_t i = 0; i < ARRAY_SIZE(commands); i++)
		if (!strcmp(env->command_str, commands[i].name))
			env->command = commands[i].cmd;
	if (env->command == CNI_CMD_NONE) {
		char msg[sizeof(err->msg)];

		snprintf(msg, sizeof(msg), "unknown CNI_COMMAND: %.200s", env->command_str);
		return cni_errorf(err, -EINVAL, CNI_ERR_INVALID_ENV, msg, NULL);
	}

	need = needs(env->command);
	if ((need & NEED_ID) && !*env->containerid)
		add_missing(missing, sizeof(missing), "CNI_CONTAINERID");
	if ((need & NEED_NETNS) && !*env->netns)
		add_missing(missing, sizeof(missing), "CNI_NETNS");
	if ((need & NEED_IFNAME) && !*env->ifname)
		add_missing(missing, sizeof(missing), "CNI_IFNAME");
	if ((need & NEED_PATH) && !*env->path)
		add_missing(missing, sizeof(missing), "CNI_PATH");
	if (*missing) {
		char msg[sizeof(err->msg)];

		snprintf(msg, sizeof(msg), "required env variables [%s] missing", missing);
		return cni_errorf(err, -EINVAL, CNI_ERR_INVALID_ENV, msg,
				  "set them as the CNI specification requires for %s",
				  env->command_str);
	}

	if ((need & NEED_ID) && !cni_valid_id(env->containerid))
		return cni_errorf(err, -EINVAL, CNI_ERR_INVALID_ENV,
				  "invalid characters in containerID", "%s", env->containerid);
	if (need & NEED_IFNAME) {
		why = cni_ifname_problem(env->ifname);
		if (why && strlen(env->ifname) >= IFNAMSIZ)
			return cni_errorf(err, -EINVAL, CNI_ERR_INVALID_ENV, why,
					  "interface name should be less than 16 characters");
		if (why)
			return cni_errorf(err, -EINVAL, CNI_ERR_INVALID_ENV, why, "CNI_IFNAME=%s",
					  env->ifname);
	}
	return 0;
}
