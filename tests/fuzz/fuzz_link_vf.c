// SPDX-License-Identifier: Apache-2.0
/* An RTM_NEWLINK reply's IFLA_VFINFO_LIST, as a PF driver or a forged
 * reply may lay it out; the first byte bounds how many VFs are expected. */
#include <stdlib.h>

#include "fuzz.h"
#include "fuzz_nl.h"
#include "kernel/link.h"

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	cni_log_setup("panic", NULL);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct cni_vf *vfs;
	struct nl_msg *msg;
	size_t max;
	int n;

	if (size < 1)
		return 0;
	max = data[0] % 9;
	msg = fuzz_nl_msg(data + 1, size - 1);
	if (!msg)
		return 0;
	/* Exactly max entries, so ASan sees any write past them. */
	vfs = malloc(max ? max * sizeof(*vfs) : 1);
	if (!vfs)
		abort();
	n = cni_link_vfs_parse(msg, vfs, max);
	if (n > (int)max)
		abort();
	for (int i = 0; i < n; i++)
		if (!(vfs[i].mask & CNI_VF_MAC))
			abort();
	free(vfs);
	nlmsg_free(msg);
	return 0;
}
