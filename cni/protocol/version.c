// SPDX-License-Identifier: Apache-2.0
#include <errno.h>
#include <string.h>

#include "base/cleanup.h"
#include "base/util.h"
#include "protocol/version.h"

static const char *const versions[CNI_VERSION_COUNT] = {
    [CNI_V010] = "0.1.0", [CNI_V020] = "0.2.0", [CNI_V030] = "0.3.0", [CNI_V031] = "0.3.1",
    [CNI_V040] = "0.4.0", [CNI_V100] = "1.0.0", [CNI_V110] = "1.1.0",
};

const char *cni_version_str(enum cni_version v)
{
	return v < CNI_VERSION_COUNT ? versions[v] : "?";
}

bool cni_version_parse(const char *s, enum cni_version *v)
{
	if (!s || !*s) {
		*v = CNI_V010;
		return true;
	}
	for (size_t i = 0; i < ARRAY_SIZE(versions); i++) {
		if (!strcmp(s, versions[i])) {
			*v = (enum cni_version)i;
			return true;
		}
	}
	return false;
}

int cni_version_list(char *buf, size_t len)
{
	size_t off = 0;
	int ret;

	for (size_t i = 0; i < ARRAY_SIZE(versions); i++) {
		ret = check_snprintf(buf + off, len - off, "%s\"%s\"%s", i ? " " : "[", versions[i],
				     i + 1 == ARRAY_SIZE(versions) ? "]" : "");
		if (ret)
			return ret;
		off += strlen(buf + off);
	}
	return 0;
}

int cni_version_unsupported(const char *s, struct cni_error *err)
{
	char list[128];

	cni_version_list(list, sizeof(list));
	return cni_errorf(err, -ENOTSUP, CNI_ERR_INCOMPATIBLE_VERSION, "incompatible CNI versions",
			  "config is \"%s\", plugin supports %s", s, list);
}
