/* SPDX-License-Identifier: Apache-2.0 */
#ifndef CNI_NETNS_H
#define CNI_NETNS_H

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "base/error.h"
#include "kernel/sys.h"

/* Open path (CNI_NETNS) non-blocking and verify it is a network namespace
 * file (nsfs, CLONE_NEWNET) other than the caller's own. Returns the fd, or
 * -errno with err (code 4) naming the path. */
int cni_netns_open(struct cni_sys *sys, const char *path, struct cni_error *err);

/* cni_netns_gone's answers when this mount view cannot tell (keep the
 * attachment): the file is there but is not a namespace mount (a file the
 * runtime left unmounted, or a view its netns mounts do not propagate to),
 * or the file is absent from a directory that shows no namespace mount at
 * all (not the runtime's directory, or one its mounts do not reach). */
#define CNI_NETNS_NOT_MOUNT EMEDIUMTYPE
#define CNI_NETNS_NO_MOUNTS ENOMEDIUM

/* Whether the namespace file a record kept (path, as the runtime gave it)
 * is gone: 1 only when path no longer exists in a directory that does and
 * that shows another namespace mount (so this view sees the runtime's
 * mounts); 0 when it is a network namespace; -CNI_NETNS_NOT_MOUNT or
 * -CNI_NETNS_NO_MOUNTS as above, -ENOENT when its directory is missing,
 * other -errno when that cannot be told. Opened O_PATH: a FIFO or a device
 * put there is never opened; a link is followed, as the runtime's
 * /proc/PID/ns/net is one. */
int cni_netns_gone(const char *path);

/* For a log line: why ret (a cni_netns_gone answer) proves nothing, and
 * the fix: a sentence for CNI_NETNS_NOT_MOUNT or CNI_NETNS_NO_MOUNTS, else
 * strerror's text. */
const char *cni_netns_unseen_text(int ret);

/* The netns directories one pass of the node agent could not see into
 * (CNI_NETNS_NOT_MOUNT, CNI_NETNS_NO_MOUNTS), so that each is said once. */
#define CNI_NETNS_BLIND_MAX 8
struct cni_netns_blind {
	unsigned int n, more; /* more: kept in directories past the table */
	struct {
		char dir[256];
		unsigned int kept;
		int why; /* -CNI_NETNS_NO_MOUNTS once any answer was */
	} d[CNI_NETNS_BLIND_MAX];
};

/* Note an attachment kept because cni_netns_gone(path) was ret: true when
 * ret is one of the two answers above (noted, to be said by the report),
 * false for any other (the caller says it). */
bool cni_netns_blind_note(struct cni_netns_blind *b, const char *path, int ret);

/* One warning line per directory noted: how many attachments it kept, why,
 * and the fix. */
void cni_netns_blind_report(const struct cni_netns_blind *b);

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

/* A network namespace's identity: its nsfs file's device and inode, the
 * kernel's 64-bit namespace ID (NS_GET_ID, Linux 6.18) and its cookie
 * (SO_NETNS_COOKIE, Linux 5.14), each 0 where the kernel has none. The
 * inode is reused once the namespace is freed (the lowest free number goes
 * to the next namespace); the ID and the cookie never are (in one boot). */
struct cni_netns_id {
	uint64_t dev, ino, nsid, cookie;
};

/* The identity of the namespace file fd (an fd cni_netns_open returned,
 * so the namespace actually used), without the cookie (0: it takes an
 * entry, cni_netns_cookie). 0 or -errno (fstat). */
int cni_netns_id(int fd, struct cni_netns_id *id);

/* The cookie of the namespace fd, read from a socket created in it (entered
 * and left again; nothing there is changed): 0 with *cookie, *cookie 0 when
 * the kernel has none (before Linux 5.14), or -errno. */
int cni_netns_cookie(struct cni_sys *sys, int fd, uint64_t *cookie);

/* True when a and b name one namespace: same device and inode, and the
 * same ID, and the same cookie, when both have one. (Inline: the unit
 * tier's fake kernel keeps the real rule.) */
static inline bool cni_netns_id_same(const struct cni_netns_id *a, const struct cni_netns_id *b)
{
	if (a->dev != b->dev || a->ino != b->ino)
		return false;
	if (a->nsid && b->nsid && a->nsid != b->nsid)
		return false;
	return !a->cookie || !b->cookie || a->cookie == b->cookie;
}

/* True when fd and the caller are in the same network namespace. */
int cni_netns_is_current(struct cni_sys *sys, int fd);

#endif
