// SPDX-License-Identifier: Apache-2.0
/* One range: subnet, rangeStart, rangeEnd, gateway (NUL-separated; an
 * empty part is an absent key), then the address math on the result. */
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "range.h"

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	cni_log_setup("panic", NULL);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *p[5];
	char *copy = fuzz_split(data, size, p, 5), why[256], buf[256];
	struct ipam_range r;
	struct ipam_rangeset set = {.r = &r, .n = 1};
	struct cni_addr a, next;

	memset(&r, 0, sizeof(r));
	if (ipam_range_parse(&r,
			     &(struct ipam_range_spec){*p[0] ? p[0] : NULL, *p[1] ? p[1] : NULL,
						       *p[2] ? p[2] : NULL, *p[3] ? p[3] : NULL},
			     why, sizeof(why))) {
		if (!*why)
			abort();
		goto out;
	}
	if (ipam_addr_cmp(&r.start, &r.end) > 0 || !ipam_range_contains(&r, &r.start) ||
	    !ipam_range_contains(&r, &r.end) || ipam_range_size(&r) == 0 ||
	    ipam_rangeset_check(&set, why, sizeof(why)) || !ipam_rangesets_overlap(&set, &set))
		abort();
	ipam_range_str(&r, buf, sizeof(buf));
	/* A fifth part, when it is an address, is probed against the range. */
	if (cni_addr_parse(p[4], &a) && a.family == r.subnet.family) {
		bool in = ipam_range_contains(&r, &a);

		if (in != (ipam_rangeset_find(&set, &a) == 0))
			abort();
		ipam_range_reserved(&r, &a);
		if (ipam_addr_next(&a, &next) && ipam_addr_cmp(&a, &next) >= 0)
			abort();
	}
out:
	free(copy);
	return 0;
}
