// SPDX-License-Identifier: Apache-2.0
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/capability.h>

#include "protocol/caps.h"
#include "base/cleanup.h"

int cni_caps_require(uint64_t mask, struct cni_error *err)
{
	char missing[256] = "";
	size_t used = 0;
	cap_t caps;

	/* Asked each time (one capget): a cache would be state a fork or a
	 * built-in delegate has to know about. */
	if (!mask)
		return 0;
	caps = cap_get_proc();
	if (!caps)
		return cni_errorf(err, -errno, CNI_ERR_INTERNAL, "cannot read process capabilities",
				  "%s", strerror(errno));
	for (cap_value_t c = 0; c < 64; c++) {
		cap_flag_value_t v = CAP_CLEAR;
		char *name;

		if (!(mask & CNI_CAP(c)))
			continue;
		if (cap_get_flag(caps, c, CAP_EFFECTIVE, &v) == 0 && v == CAP_SET)
			continue;
		name = cap_to_name(c);
		snprintf(missing + used, sizeof(missing) - used, "%s%s", used ? ", " : "",
			 name ? name : "?");
		used = strlen(missing);
		cap_free(name);
	}
	cap_free(caps);
	if (!used)
		return 0;
	for (char *p = missing; *p; p++)
		if (*p >= 'a' && *p <= 'z')
			*p = (char)(*p - 'a' + 'A');
	return cni_errorf(err, -EPERM, CNI_ERR_PERMISSION, "missing capabilities",
			  "this command needs %s; run the plugin as root (the container "
			  "runtime normally does)",
			  missing);
}
