// SPDX-License-Identifier: Apache-2.0
/* A request's stdin for every command (the first byte picks it), with its
 * prevResult decoded and re-encoded in every spec version. */
#include <stdlib.h>
#include <string.h>

#include "base/cleanup.h"
#include "fuzz.h"
#include "base/json.h"
#include "base/util.h"

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	cni_log_setup("panic", NULL);
	return 0;
}

static void encode_all(const struct cni_result *r)
{
	for (int v = 0; v < CNI_VERSION_COUNT; v++) {
		_cleanup_json_ struct json_object *o = NULL;
		struct cni_error err = {0};
		int ret = cni_result_to_json(r, (enum cni_version)v, &o, &err);

		fuzz_check_error(&err, ret);
		if (!ret)
			free(cni_json_dump(o, true));
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const enum cni_command cmds[] = {CNI_CMD_ADD, CNI_CMD_DEL,    CNI_CMD_CHECK,
						CNI_CMD_GC,  CNI_CMD_STATUS, CNI_CMD_NONE};
	struct cni_ctx ctx;
	int ret;

	if (size < 1)
		return 0;
	ret = fuzz_ctx(&ctx, (const char *)data + 1, size - 1, cmds[data[0] % 6], "");
	fuzz_check_error(&ctx.err, ret);
	if (!ret) {
		/* What the parser accepted, the rest of the runtime relies on. */
		if (!ctx.conf->name || !cni_valid_id(ctx.conf->name) ||
		    ctx.conf->version >= CNI_VERSION_COUNT)
			abort();
		if (ctx.conf->prev_result)
			encode_all(ctx.conf->prev_result);
		for (size_t i = 0; i < ctx.conf->n_attachments; i++)
			if (!cni_conf_attachment_valid(ctx.conf,
						       ctx.conf->attachments[i].containerid,
						       ctx.conf->attachments[i].ifname))
				abort();
	}
	fuzz_ctx_free(&ctx);
	return 0;
}
