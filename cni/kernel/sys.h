/* SPDX-License-Identifier: Apache-2.0 */
/* One kernel context per invocation, after iproute2's struct rd: what the
 * netlink and namespace calls of cni/kernel/ keep between calls lives here,
 * owned by the caller and passed to every such call as its first argument.
 * A process or thread that forks or starts uses a fresh one of its own. */
#ifndef CNI_SYS_H
#define CNI_SYS_H

#include <stdbool.h>
#include <sys/types.h>

struct nl_sock;

/* A network namespace as nsfs device and inode. */
struct cni_sys_ns {
	bool known;
	dev_t dev;
	ino_t ino;
};

/* A socket answers in the namespace it was created in: kept per protocol and
 * namespace. It holds that namespace alive, so the inode is not reused. */
struct cni_sys_sock {
	int protocol;
	dev_t dev;
	ino_t ino;
	struct nl_sock *sk;
};

#define CNI_SYS_DEPTH	4   /* nested cni_netns_enter()s tracked */
#define CNI_SYS_SOCKS	8   /* a plugin touches two or three namespaces */
#define CNI_SYS_EXT_ACK 256 /* NLMSGERR_ATTR_MSG text kept, with its NUL */

struct cni_sys {
	/* The namespace the caller is in, kept across cni_netns_enter/restore
	 * (a stack for nested entries; deeper ones make it unknown until
	 * looked up), so that finding a socket costs no /proc lookup. */
	struct cni_sys_ns cur, stack[CNI_SYS_DEPTH];
	unsigned int depth;
	/* The namespace outermost entries return to, kept open after the first
	 * one (ADD and DEL enter the pod's several times); -1 until then. */
	int home;
	struct cni_sys_ns home_id;
	struct cni_sys_sock socks[CNI_SYS_SOCKS];
	unsigned int evict;	       /* the slot a full table gives up next */
	char ext_ack[CNI_SYS_EXT_ACK]; /* the kernel's text for the last failed exchange */
};

/* An empty context: nothing open, the namespace unknown. */
#define CNI_SYS_INIT                                                                               \
	{                                                                                          \
		.home = -1                                                                         \
	}

/* Close the context's sockets and its kept namespace fd and empty it (it
 * may be used again, as if CNI_SYS_INIT). The caller's namespace is not
 * changed: every cni_netns_enter() must have been restored. */
void cni_sys_close(struct cni_sys *sys);

/* The extended-ack text the kernel gave with the last failed exchange on
 * sys, or "" (for the details of the caller's error). */
const char *cni_sys_ext_ack(const struct cni_sys *sys);

#define _cleanup_sys_ __attribute__((cleanup(cni_sys_close)))

#endif
