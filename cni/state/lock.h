/* SPDX-License-Identifier: Apache-2.0 */
#ifndef CNI_LOCK_H
#define CNI_LOCK_H

#include "base/error.h"

/* Take an exclusive flock on name in dirfd (created 0600 if missing; opened
 * O_NOFOLLOW|O_NONBLOCK and refused unless a regular file), waiting at most
 * timeout_ms. Returns the locked fd (>= 0); a lock that cannot be had in
 * time is CNI error 11 (-EAGAIN). what names the file in errors. */
int cni_lock_acquireat(int dirfd, const char *name, const char *what, unsigned int timeout_ms,
		       struct cni_error *err);

/* The same for an absolute path whose directory must be private to us
 * (cni_state_opendir with CNI_DIR_PRIVATE; never created here). */
int cni_lock_acquire(const char *path, unsigned int timeout_ms, struct cni_error *err);

/* Release (and close) a lock from cni_lock_acquire(at); -1 is ignored. */
void cni_lock_release(int fd);

#endif
