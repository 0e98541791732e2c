/* SPDX-License-Identifier: Apache-2.0 */
/* Child processes of a plugin: every wait bounded, nothing inherited that
 * the child does not need (cni/base/child.c). */
#ifndef CNI_CHILD_H
#define CNI_CHILD_H

#include <stdint.h>
#include <sys/types.h>

/* waitpid(pid) for at most wait_ms: 0 when reaped (*status filled),
 * -ETIMEDOUT when it is still running, or -errno. */
int cni_child_wait(pid_t pid, unsigned int wait_ms, int *status);

/* The same until now_ms() reaches deadline (CLOCK_MONOTONIC ms, util.h). */
int cni_child_wait_until(pid_t pid, uint64_t deadline, int *status);

/* SIGKILL pid and its process group, then wait at most wait_ms for it:
 * 0 when reaped, -ETIMEDOUT when it is stuck (logged and left behind). */
int cni_child_kill(pid_t pid, unsigned int wait_ms);

/* In a child: close every descriptor from 3 up but keep[0..n-1] (negative
 * entries ignored). 0 or -errno. */
int cni_child_close_fds(const int *keep, unsigned int n);

/* In a child: drop every capability (effective, permitted, inheritable).
 * 0 or -errno. */
int cni_child_drop_caps(void);

#endif
