// SPDX-License-Identifier: Apache-2.0
/* ib-host-local's config (ranges, requested IPs, routes) for ADD and for
 * DEL's lenient reading. Input: the config, then after a NUL byte CNI_ARGS.
 * ipam.resolvConf is dropped: a path chosen by the fuzzer could name any
 * file here (the resolv target reads fuzzed contents instead). */
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "fuzz.h"
#include "ipam/conf.h"
#include "range.h"

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	cni_log_setup("panic", NULL);
	return 0;
}

static void drop_resolv_conf(struct json_object *ipam)
{
	bool again = true;

	while (again) {
		again = false;
		json_object_object_foreach (ipam, k, v) {
			(void)v;
			if (!strcasecmp(k, "resolvConf")) {
				json_object_object_del(ipam, k);
				again = true;
				break;
			}
		}
	}
}

static void check_sets(const struct ipam_conf *c)
{
	char buf[4096];

	for (size_t i = 0; i < c->n_sets; i++) {
		const struct ipam_rangeset *s = &c->sets[i];

		ipam_rangeset_str(s, buf, sizeof(buf));
		for (size_t j = 0; j < s->n; j++) {
			/* A validated range holds its bounds and has an address to lease. */
			if (!ipam_range_contains(&s->r[j], &s->r[j].start) ||
			    !ipam_range_contains(&s->r[j], &s->r[j].end) ||
			    ipam_range_size(&s->r[j]) == 0 ||
			    ipam_rangeset_find(s, &s->r[j].start) < 0)
				abort();
		}
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *part[2];
	char *copy = fuzz_split(data, size, part, 2);
	struct ipam_conf c;
	struct cni_ctx ctx;

	for (int del = 0; del < 2; del++) {
		int ret = fuzz_ctx(&ctx, part[0], strlen(part[0]), del ? CNI_CMD_DEL : CNI_CMD_ADD,
				   part[1]);

		if (!ret) {
			if (ctx.conf->ipam)
				drop_resolv_conf(ctx.conf->ipam);
			ret = ipam_conf_load(&ctx, del, &c);
			fuzz_check_error(&ctx.err, ret);
			if (!ret)
				check_sets(&c);
			ipam_conf_free(&c);
		}
		fuzz_ctx_free(&ctx);
	}
	free(copy);
	return 0;
}
