// SPDX-License-Identifier: Apache-2.0
/* RDMA netlink replies (device and port dumps, netns mode, an error's
 * extended ack, a dump's NLMSG_DONE) as a forged or newer
 * kernel may send them. */
#include <string.h>

#include "fuzz.h"
#include "fuzz_nl.h"
#include "kernel/nl.h"
#include "kernel/rdma.h"

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	cni_log_setup("panic", NULL);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct nl_msg *msg = fuzz_nl_msg(data, size);
	struct cni_rdma_dev dev;
	struct cni_rdma_port port;
	char ack[CNI_SYS_EXT_ACK];
	bool exclusive;
	uint32_t driver;

	if (!msg)
		return 0;
	if (cni_rdma_parse_dev(msg, &dev) == 0) {
		/* Names are bounded and terminated, whatever the reply says. */
		if (strnlen(dev.name, sizeof(dev.name)) == sizeof(dev.name))
			abort();
	}
	if (cni_rdma_parse_port(msg, &port) == 0 &&
	    strnlen(port.dev_name, sizeof(port.dev_name)) == sizeof(port.dev_name))
		abort();
	cni_rdma_parse_mode(msg, &exclusive);
	cni_rdma_parse_driver(msg, &driver);
	cni_nl_ext_ack(nlmsg_hdr(msg), ack);
	if (strnlen(ack, sizeof(ack)) == sizeof(ack))
		abort();
	/* A dump's end: its result is an errno or 0, never a count. */
	if (cni_nl_done_errno(nlmsg_hdr(msg)) > 0)
		abort();
	nlmsg_free(msg);
	return 0;
}
