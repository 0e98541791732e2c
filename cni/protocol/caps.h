/* SPDX-License-Identifier: Apache-2.0 */
#ifndef CNI_CAPS_H
#define CNI_CAPS_H

#include <stdint.h>
#include "base/error.h"

/* Capability bits for cni_caps_require(), as in <linux/capability.h>. */
#define CNI_CAP(c) (1ULL << (c))

/* 0 when every capability in mask is effective; otherwise code 102 naming
 * the missing ones (and -EPERM). */
int cni_caps_require(uint64_t mask, struct cni_error *err);

#endif
