/* SPDX-License-Identifier: Apache-2.0 */
/* libnl-3 core plumbing shared by link.c (rtnetlink) and rdma.c
 * (NETLINK_RDMA): sockets, one request/reply exchange, error translation.
 * Included by those two files only. */
#ifndef CNI_NL_H
#define CNI_NL_H

#include <stdbool.h>
#include <netlink/netlink.h>
#include <netlink/msg.h>

/* Open a socket of protocol with extended acks enabled; NULL with errno. */
struct nl_sock *cni_nl_open(int protocol);

static inline void cni_nl_closep(struct nl_sock **sk)
{
	if (*sk)
		nl_socket_free(*sk);
}

static inline void cni_nl_msg_freep(struct nl_msg **m)
{
	if (*m)
		nlmsg_free(*m);
}

#define _cleanup_nl_sock_ __attribute__((cleanup(cni_nl_closep)))
#define _cleanup_nl_msg_ __attribute__((cleanup(cni_nl_msg_freep)))

/* Called for every reply message; returns 0 or -errno. */
typedef int (*cni_nl_parse_fn)(struct nl_msg *msg, void *arg);

/* Send msg (not consumed) and receive until the kernel's ack, error or (for
 * dumps) NLMSG_DONE, passing each reply to parse. Returns 0 or the kernel's
 * own -errno; its extended-ack text is kept for cni_nl_ext_ack(). */
int cni_nl_talk(struct nl_sock *sk, struct nl_msg *msg, cni_nl_parse_fn parse,
		void *arg);

/* The extended-ack text of the last failed exchange in this thread, or "". */
const char *cni_nl_ext_ack(void);

/* Map a (negative) libnl NLE_* code to a negative errno. */
int cni_nl_errno(int nlerr);

#endif
