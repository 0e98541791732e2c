// SPDX-License-Identifier: Apache-2.0
/* The CNI_* environment: NUL-separated values of the six variables. */
#include <stdlib.h>
#include <string.h>

#include "base/util.h"
#include "fuzz.h"

static const char *const names[] = {"CNI_COMMAND", "CNI_CONTAINERID", "CNI_NETNS",
				    "CNI_IFNAME",  "CNI_ARGS",	      "CNI_PATH"};

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	cni_log_setup("panic", NULL);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *v[6];
	char *copy = fuzz_split(data, size, v, 6);
	struct cni_error err = {0};
	struct cni_env env;
	int ret;

	for (size_t i = 0; i < 6; i++)
		setenv(names[i], v[i], 1);
	ret = cni_env_load(&env, &err);
	fuzz_check_error(&err, ret);
	if (!ret) {
		/* What passed is what the spec allows: later steps rely on it.
		 * (An empty CNI_COMMAND passes as "none": cni_run then fails
		 * with code 100 where Go's skel says code 4, missing.) */
		if (env.command == CNI_CMD_NONE && *env.command_str)
			abort();
		if ((env.command == CNI_CMD_ADD || env.command == CNI_CMD_DEL ||
		     env.command == CNI_CMD_CHECK) &&
		    (!cni_valid_id(env.containerid) || cni_ifname_problem(env.ifname)))
			abort();
		if (strcmp(cni_command_str(env.command), env.command_str))
			abort();
	}
	free(copy);
	return 0;
}
