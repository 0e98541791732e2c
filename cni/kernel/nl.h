/* SPDX-License-Identifier: Apache-2.0 */
/* libnl-3 core plumbing shared by the rtnetlink speakers (link.c, link_vf.c,
 * link_addr.c, link_route.c, link_restore.c) and the RDMA one (rdma.c): one socket per protocol and
 * network namespace, one request/reply exchange that hears only the kernel,
 * attribute parsing and error translation. Included by those files (and
 * their tests) only. */
#ifndef CNI_NL_H
#define CNI_NL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <netlink/attr.h>
#include <netlink/netlink.h>
#include <netlink/msg.h>

#include "kernel/sys.h"

/* The receive buffer: every reply is read whole, in one recvmsg(). The
 * largest is a PF's link with its VF table (IFLA_VFINFO_LIST), a nest whose
 * 16-bit length caps it at 64 KiB: 127 VFs take about 30 KiB without their
 * counters, 47 KiB with them (link_vf.c's CNI_LINK_VF_INFO_MAX). A reply
 * that does not fit fails the exchange (-EMSGSIZE), never reads short. */
#define CNI_NL_MSG_MAX (68 * 1024)

/* How long one exchange may wait for the kernel's answer. */
#define CNI_NL_TIMEOUT_MS 30000

static inline void cni_nl_msg_freep(struct nl_msg **m)
{
	if (*m)
		nlmsg_free(*m);
}

#define _cleanup_nl_msg_ __attribute__((cleanup(cni_nl_msg_freep)))

/* The socket of protocol for the caller's network namespace, kept in sys:
 * opened (extended acks on) on first use, closed by cni_sys_close(). NULL
 * with errno. */
struct nl_sock *cni_nl_sock(struct cni_sys *sys, int protocol);

/* Called for every accepted reply message; returns 0 or -errno. */
typedef int (*cni_nl_parse_fn)(struct nl_msg *msg, void *arg);

/* Send msg (not consumed; its sequence number and port are set here) and
 * receive until the kernel's ack, error or (for dumps) NLMSG_DONE, passing
 * each reply to parse. Only the kernel's answer to this request counts:
 * anything else is dropped unseen (see cni_nl_is_reply()). Returns 0, the
 * kernel's -errno from an NLMSG_ERROR or a dump's NLMSG_DONE (a dump it
 * refused partway, whatever parse saw before; its extended-ack text kept in
 * sys, cni_sys_ext_ack()), parse's error, or -ETIMEDOUT after CNI_NL_TIMEOUT_MS. sk is one of
 * sys's: one that ends broken (timeout, overrun) is freed and forgotten there. */
int cni_nl_talk(struct cni_sys *sys, struct nl_sock *sk, struct nl_msg *msg, cni_nl_parse_fn parse,
		void *arg);

/* cni_nl_talk() on cni_nl_sock(protocol). */
int cni_nl_request(struct cni_sys *sys, int protocol, struct nl_msg *msg, cni_nl_parse_fn parse,
		   void *arg);

/* Whether a received msg answers request seq sent from port: it came from
 * the kernel (source nl_pid 0; a process in the same namespace holding
 * CAP_NET_ADMIN can send to our port, never as 0) and carries seq and port. */
bool cni_nl_is_reply(struct nl_msg *msg, uint32_t seq, uint32_t port);

/* Split msg's attributes, after a fixed header of hdrlen bytes, into
 * tb[0..maxtype] with libnl's nla_parse and policy (types above maxtype, from
 * newer kernels, are skipped). -EPROTO when the message is malformed. */
int cni_nl_parse(struct nl_msg *msg, size_t hdrlen, struct nlattr **tb, int maxtype,
		 const struct nla_policy *policy);

/* The same for the attributes nested in nest. */
int cni_nl_parse_nested(struct nlattr *nest, struct nlattr **tb, int maxtype,
			const struct nla_policy *policy);

/* The extended-ack text (NLMSGERR_ATTR_MSG) of an NLMSG_ERROR or NLMSG_DONE
 * message, or "" when it has none; a malformed message gives "". */
void cni_nl_ext_ack(const struct nlmsghdr *msg, char ext_ack[CNI_SYS_EXT_ACK]);

/* The kernel's -errno that an NLMSG_DONE carries when the dump failed, or 0
 * (a dump that ended well, a DONE too short to carry one, another type). */
int cni_nl_done_errno(const struct nlmsghdr *msg);

/* Map a (negative) libnl NLE_* code to a negative errno. */
int cni_nl_errno(int nlerr);

#endif
