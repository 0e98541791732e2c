/* SPDX-License-Identifier: Apache-2.0 */
#ifndef CNI_NETNS_H
#define CNI_NETNS_H

#include <sys/types.h>

#include "base/error.h"
#include "kernel/sys.h"

/* Open path (CNI_NETNS) non-blocking and verify it is a network namespace
 * file (nsfs, CLONE_NEWNET) other than the caller's own. Returns the fd, or
 * -errno with err (code 4) naming the path. */
int cni_netns_open(struct cni_sys *sys, const char *path, struct cni_error *err);

/* Whether the namespace file a record kept (path, as the runtime gave it)
 * is gone: 1 when path no longer exists in a directory that does, or is no
 * longer a network namespace file (not nsfs: the runtime's bind mount is
 * gone; or another kind of namespace); 0 when it is one; -errno when that
 * cannot be told (keep the attachment), -ENOENT when its directory is
 * missing too. Opened O_PATH: a FIFO or a device put there is never
 * opened; a link is followed, as the runtime's /proc/PID/ns/net is one. */
int cni_netns_gone(const char *path);

/* Switch the calling thread into netns fd, noted in sys; *saved receives an
 * fd of the current namespace for cni_netns_restore() (only that call may
 * close it: outermost entries share one sys keeps open). 0 or -errno. */
int cni_netns_enter(struct cni_sys *sys, int fd, int *saved);

/* Return to the namespace saved by cni_netns_enter() and release it (set
 * *saved to -1); 0.
 * Failing to return is fatal: the process cannot safely go on acting on the
 * "host", so it prints a code 100 error (cni_die) and exits. */
int cni_netns_restore(struct cni_sys *sys, int *saved);

/* The calling thread's network namespace (nsfs device and inode), tracked
 * in sys across cni_netns_enter/restore; looked up only when unknown. A
 * switch made elsewhere (a setns of a child's own) needs a fresh sys.
 * 0 or -errno. */
int cni_netns_current(struct cni_sys *sys, dev_t *dev, ino_t *ino);

/* A new fd of the calling thread's network namespace (caller closes it):
 * a dup of the one sys keeps for outermost entries when the thread is there,
 * else /proc/thread-self/ns/net. -errno on failure. */
int cni_netns_open_current(struct cni_sys *sys);

/* True when fd and the caller are in the same network namespace. */
int cni_netns_is_current(struct cni_sys *sys, int fd);

#endif
