// SPDX-License-Identifier: Apache-2.0
/* The node configuration file (/etc/ibcni/ibcni.conf), "ranges" checked by
 * ib-host-local's parser as in the plugins, then an ADD of network "n" with
 * "ranges": "node" on it. Input: the file's bytes, written to a private file. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fuzz.h"
#include "ipam/conf.h"
#include "ipam/ipam.h"

/* Where the errors of the node's own sets point (noderanges.c). */
#define NODE_SETS CNI_NODECONF_PATH " ranges.n"

static char path[] = "/tmp/fuzz-nodeconf.XXXXXX";

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	int fd = mkstemp(path);

	if (fd < 0)
		abort();
	close(fd);
	cni_log_setup("panic", NULL);
	cni_nodeconf_ranges_checker(ipam_node_ranges_check);
	return 0;
}

static void node_add(const struct cni_nodeconf *nc)
{
	static const char conf[] = "{\"cniVersion\":\"1.0.0\",\"name\":\"n\",\"type\":\"x\","
				   "\"ipam\":{\"type\":\"ib-host-local\",\"ranges\":\"node\"}}";
	struct ipam_conf c;
	struct cni_ctx ctx;
	int ret = fuzz_ctx(&ctx, conf, strlen(conf), CNI_CMD_ADD, "K8S_POD_NAMESPACE=team-a");
	bool allowed = cni_nodeconf_ranges_allow(nc, "n", "team-a");

	if (!ret) {
		ctx.node = nc;
		ret = ipam_conf_load(&ctx, false, &c);
		fuzz_check_error(&ctx.err, ret);
		/* A loaded file's sets passed the same parser: they load again,
		 * and a network the file names is found. */
		if (ret && (!strncmp(ctx.err.details, NODE_SETS, strlen(NODE_SETS)) ||
			    (cni_nodeconf_ranges(nc, "n") &&
			     !strcmp(ctx.err.msg, "no ranges for this node"))))
			abort();
		/* A namespace the entry's list leaves out never gets its sets; one it
		 * names (or every one, without a list) is never refused for it. */
		if ((!allowed && !ret) ||
		    (allowed && ret &&
		     !strcmp(ctx.err.msg, "namespace not allowed the node's ranges")))
			abort();
		ipam_conf_free(&c);
	}
	fuzz_ctx_free(&ctx);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct cni_nodeconf nc;
	struct cni_error err = {0};
	int fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC);
	int ret;

	if (fd < 0 || fchmod(fd, 0600) || (size && write(fd, data, size) != (ssize_t)size))
		abort();
	close(fd);
	ret = cni_nodeconf_load(&nc, path, &err);
	fuzz_check_error(&err, ret);
	if (!ret) {
		node_add(&nc);
		cni_nodeconf_free(&nc);
	}
	return 0;
}
