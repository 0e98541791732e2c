// SPDX-License-Identifier: Apache-2.0
/* CNI_ARGS: parse, check against the keys the plugins know, look up. */
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	cni_log_setup("panic", NULL);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const known[] = {"IP", "MAC", "K8S_POD_NAME", "K8S_POD_NAMESPACE"};
	const char *s;
	char *copy = fuzz_split(data, size, &s, 1);
	struct cni_error err = {0};
	struct cni_args args = {0};
	int ret = cni_args_parse(s, &args, &err);

	fuzz_check_error(&err, ret);
	if (!ret) {
		ret = cni_args_check(&args, known, 4, &err);
		fuzz_check_error(&err, ret);
		for (size_t i = 0; i < args.n; i++) {
			/* Every parsed key is found again, and has no '=' or ';'. */
			if (!cni_args_get(&args, args.kv[i].key) || strchr(args.kv[i].key, ';') ||
			    strchr(args.kv[i].key, '=') || strchr(args.kv[i].val, ';'))
				abort();
		}
	}
	cni_args_free(&args);
	free(copy);
	return 0;
}
