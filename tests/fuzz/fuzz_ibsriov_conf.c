// SPDX-License-Identifier: Apache-2.0
/* ib-sriov's config keys (deviceID, GUID, pkey, VLAN, rates, ...) for ADD
 * and for DEL/GC's lenient reading; CNI_ARGS after a NUL byte. */
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "ibsriov.h"

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	cni_log_setup("panic", NULL);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *part[2];
	char *copy = fuzz_split(data, size, part, 2);
	struct ibsriov_conf c;
	struct cni_ctx ctx;

	for (int lenient = 0; lenient < 2; lenient++) {
		int ret = fuzz_ctx(&ctx, part[0], strlen(part[0]),
				   lenient ? CNI_CMD_DEL : CNI_CMD_ADD, part[1]);

		if (!ret) {
			ret = ibsriov_conf_load(&ctx, &c, lenient);
			fuzz_check_error(&ctx.err, ret);
			/* What is accepted is in range: the kernel gets it as is. */
			if (!ret && !lenient &&
			    (!*c.device || (c.has_pkey && !(c.pkey & 0x7fff)) || c.vf.vlan > 4095 ||
			     c.vf.qos > 7 ||
			     ((c.vf.mask & CNI_VF_RATE) && c.vf.max_tx_rate &&
			      c.vf.min_tx_rate > c.vf.max_tx_rate)))
				abort();
		}
		fuzz_ctx_free(&ctx);
	}
	free(copy);
	return 0;
}
