/* SPDX-License-Identifier: Apache-2.0 */
#ifndef CNI_VERSION_H
#define CNI_VERSION_H

#include <stdbool.h>
#include "base/error.h"

enum cni_version {
	CNI_V010,
	CNI_V020,
	CNI_V030,
	CNI_V031,
	CNI_V040,
	CNI_V100,
	CNI_V110,
	CNI_VERSION_COUNT,
};

#define CNI_VERSION_LATEST CNI_V110

/* The version's text, e.g. "0.3.1". */
const char *cni_version_str(enum cni_version v);

/* Exact membership in the supported list ("" means 0.1.0); false otherwise. */
bool cni_version_parse(const char *s, enum cni_version *v);

/* Fill err with code 1 (incompatible versions) naming s; returns -ENOTSUP. */
int cni_version_unsupported(const char *s, struct cni_error *err);

/* Writes `["0.1.0", ..., "1.1.0"]` into buf; 0 or -ENAMETOOLONG. */
int cni_version_list(char *buf, size_t len);

#endif
