// SPDX-License-Identifier: Apache-2.0
/* ipam.resolvConf: a planted resolv.conf read into the result's dns. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "ipam/conf.h"

static char conf[512];

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	cni_log_setup("panic", NULL);
	snprintf(conf, sizeof(conf),
		 "{\"cniVersion\":\"1.0.0\",\"name\":\"n\",\"ipam\":{\"type\":\"ib-host-local\","
		 "\"subnet\":\"10.1.0.0/24\",\"resolvConf\":\"%s/resolv.conf\"}}",
		 fuzz_tmpdir());
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ipam_conf c;
	struct cni_ctx ctx;
	int ret;

	fuzz_write(fuzz_tmpdir(), "resolv.conf", data, size);
	if (fuzz_ctx(&ctx, conf, strlen(conf), CNI_CMD_ADD, ""))
		abort();
	ret = ipam_conf_load(&ctx, false, &c);
	fuzz_check_error(&ctx.err, ret);
	if (!ret) {
		const struct cni_dns *d = &c.tmpl->dns;

		/* Every word is non-empty and free of the separators. */
		for (size_t i = 0; i < d->n_nameservers; i++)
			if (!*d->nameservers[i] || strpbrk(d->nameservers[i], " \t\r\n"))
				abort();
		for (size_t i = 0; i < d->n_search; i++)
			if (!*d->search[i] || strpbrk(d->search[i], " \t\r\n"))
				abort();
	}
	ipam_conf_free(&c);
	fuzz_ctx_free(&ctx);
	return 0;
}
