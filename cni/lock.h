/* SPDX-License-Identifier: Apache-2.0 */
#ifndef CNI_LOCK_H
#define CNI_LOCK_H

#include "error.h"

/* Take an exclusive flock on path (created 0600 if missing, O_NOFOLLOW),
 * waiting at most timeout_ms. Returns the locked fd (>= 0); a lock that
 * cannot be had in time is CNI error 11 (-EAGAIN). */
int cni_lock_acquire(const char *path, unsigned int timeout_ms,
		     struct cni_error *err);

/* Release (and close) a lock from cni_lock_acquire; -1 is ignored. */
void cni_lock_release(int fd);

#endif
