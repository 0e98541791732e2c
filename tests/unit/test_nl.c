// SPDX-License-Identifier: Apache-2.0
/* cni/kernel/nl.c: only the kernel's answer to our own request is heard. A process
 * in the pod's namespace holding CAP_NET_ADMIN can send to the socket we
 * open there; these tests are that process, in a private network namespace,
 * with real sockets and the real kernel. */
#include <criterion/criterion.h>
#include <arpa/inet.h>
#include <dlfcn.h>
#include <fcntl.h>
#include <net/if.h>
#include <linux/rtnetlink.h>
#include <netlink/socket.h>
#include <sched.h>
#include <sys/socket.h>

#include "base/cleanup.h"
#include "helpers.h"
#include "kernel/link.h"
#include "kernel/link_nl.h"
#include "kernel/netns.h"
#include "kernel/nl.h"
#include "kernel/sys.h"

/* One kernel context for the process (each test runs in a fork of its own). */
static struct cni_sys test_sys = CNI_SYS_INIT;
static struct cni_sys *const sys = &test_sys;

static struct nl_msg *crafted(int type, uint32_t seq, uint32_t port, uint32_t sender)
{
	struct nl_msg *msg = nlmsg_alloc_simple(type, 0);
	struct sockaddr_nl src = {.nl_family = AF_NETLINK, .nl_pid = sender};

	cr_assert_not_null(msg);
	nlmsg_hdr(msg)->nlmsg_seq = seq;
	nlmsg_hdr(msg)->nlmsg_pid = port;
	nlmsg_set_src(msg, &src);
	return msg;
}

Test(nl, reply_rule)
{
	static const struct {
		uint32_t seq, port, sender;
		bool accepted;
		const char *what;
	} cases[] = {
	    {7, 100, 0, true, "the kernel's answer"},
	    {7, 100, 4242, false, "same sequence and port from a process"},
	    {8, 100, 0, false, "the kernel's answer to another request"},
	    {7, 101, 0, false, "the kernel's message for another socket's request"},
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct nl_msg *msg =
		    crafted(RTM_NEWLINK, cases[i].seq, cases[i].port, cases[i].sender);

		cr_assert_eq(cni_nl_is_reply(msg, 7, 100), cases[i].accepted, "%s", cases[i].what);
		nlmsg_free(msg);
	}
}

/* A private network namespace (with CAP_NET_ADMIN in it), or skip. */
static void private_netns(void)
{
	if (unshare(CLONE_NEWNET) < 0 && unshare(CLONE_NEWUSER | CLONE_NEWNET) < 0)
		cr_skip_test("no network namespace of our own (%s): the netns tier runs "
			     "ib-sriov in one",
			     strerror(errno));
	/* A switch made outside cni_netns_enter/restore: a fresh context. */
	cni_sys_close(sys);
}

struct forger {
	int fd;
	uint32_t port; /* the target: our socket */
};

/* The attacker: a NETLINK_ROUTE socket of its own in the same namespace. */
static struct forger forger_for(struct nl_sock *ours)
{
	struct forger f = {.port = nl_socket_get_local_port(ours)};
	struct sockaddr_nl self = {.nl_family = AF_NETLINK};

	f.fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE);
	cr_assert_geq(f.fd, 0);
	cr_assert_eq(bind(f.fd, (struct sockaddr *)&self, sizeof(self)), 0);
	return f;
}

/* Send msg (its seq and port set to what our next request will carry) from
 * the forger to our socket; -errno from sendto. */
static int forge(struct forger *f, struct nl_msg *msg, uint32_t seq)
{
	struct sockaddr_nl to = {.nl_family = AF_NETLINK, .nl_pid = f->port};
	struct nlmsghdr *h = nlmsg_hdr(msg);

	h->nlmsg_seq = seq;
	h->nlmsg_pid = f->port;
	if (sendto(f->fd, h, h->nlmsg_len, 0, (struct sockaddr *)&to, sizeof(to)) < 0)
		return -errno;
	return 0;
}

/* What our socket will put in its next request. */
static uint32_t next_seq(struct nl_sock *sk)
{
	return nl_socket_use_seq(sk) + 1;
}

static struct nl_msg *forged_link(void)
{
	struct ifinfomsg ifi = {.ifi_family = AF_UNSPEC, .ifi_index = 1};
	struct nl_msg *msg = nlmsg_alloc_simple(RTM_NEWLINK, 0);

	cr_assert(nlmsg_append(msg, &ifi, sizeof(ifi), NLMSG_ALIGNTO) == 0 &&
		  nla_put_string(msg, IFLA_IFNAME, "lo") == 0 &&
		  nla_put_u32(msg, IFLA_MTU, 1234) == 0);
	return msg;
}

static struct nl_msg *forged_error(int error)
{
	struct nl_msg *msg = nlmsg_alloc_simple(NLMSG_ERROR, 0);
	struct nlmsgerr e = {.error = error};

	cr_assert(nlmsg_append(msg, &e, sizeof(e), NLMSG_ALIGNTO) == 0);
	return msg;
}

Test(nl, forged_link_reply_and_ack_are_not_heard)
{
	struct cni_link lo;
	struct nl_sock *sk;
	struct forger f;
	struct nl_msg *link, *ack;

	private_netns();
	cr_assert_eq(cni_link_get(sys, "lo", 0, &lo), 0);
	sk = cni_nl_sock(sys, NETLINK_ROUTE);
	cr_assert_not_null(sk, "the socket used above is kept");
	f = forger_for(sk);
	link = forged_link();
	ack = forged_error(0);
	uint32_t seq = next_seq(sk);

	cr_assert_eq(forge(&f, link, seq), 0, "CAP_NET_ADMIN lets the forger reach our port");
	cr_assert_eq(forge(&f, ack, seq), 0);
	cr_assert_eq(cni_link_get(sys, "lo", 0, &lo), 0);
	cr_assert_eq(lo.mtu, 65536, "the kernel's lo, not the forged MTU %u", lo.mtu);
	nlmsg_free(link);
	nlmsg_free(ack);
	close(f.fd);
}

Test(nl, forged_error_is_not_heard)
{
	struct cni_link lo;
	struct nl_sock *sk;
	struct forger f;
	struct nl_msg *err;

	private_netns();
	cr_assert_eq(cni_link_get(sys, "lo", 0, &lo), 0);
	sk = cni_nl_sock(sys, NETLINK_ROUTE);
	f = forger_for(sk);
	err = forged_error(-EPERM);
	cr_assert_eq(forge(&f, err, next_seq(sk)), 0);
	cr_assert_eq(cni_link_set_up(sys, lo.ifindex, true), 0, "the forged EPERM was ignored");
	cr_assert_eq(cni_link_get(sys, NULL, lo.ifindex, &lo), 0);
	cr_assert(lo.flags & IFF_UP, "and the kernel really did it");
	nlmsg_free(err);
	close(f.fd);
}

Test(nl, forged_done_does_not_end_a_dump)
{
	struct cni_prefix lo4 = {.family = AF_INET, .a = {127, 0, 0, 1}, .len = 8};
	struct nl_sock *sk;
	struct forger f;
	struct nl_msg *done;

	private_netns();
	cr_assert_eq(cni_link_set_up(sys, 1, true), 0, "lo up gains 127.0.0.1/8");
	sk = cni_nl_sock(sys, NETLINK_ROUTE);
	f = forger_for(sk);
	done = nlmsg_alloc_simple(NLMSG_DONE, NLM_F_MULTI);
	cr_assert_eq(forge(&f, done, next_seq(sk)), 0);
	cr_assert_eq(cni_link_has_addr(sys, 1, &lo4), 1, "the whole dump was read");
	nlmsg_free(done);
	close(f.fd);
}

/* A kernel message with our sequence number on our socket, for another
 * socket's request: a notification. Without the port check it would be
 * taken for part of our dump. */
Test(nl, kernel_notification_with_our_seq_is_not_a_reply)
{
	struct cni_prefix gone = {.family = AF_INET, .a = {10, 9, 9, 9}, .len = 32};
	struct ifaddrmsg ifa = {.ifa_family = AF_INET, .ifa_prefixlen = 32, .ifa_index = 1};
	struct nl_sock *sk;
	struct forger f;
	uint32_t seq;

	private_netns();
	cr_assert_eq(cni_link_set_up(sys, 1, true), 0);
	sk = cni_nl_sock(sys, NETLINK_ROUTE);
	cr_assert_eq(nl_socket_add_membership(sk, RTNLGRP_IPV4_IFADDR), 0);
	f = forger_for(sk);
	seq = next_seq(sk);
	/* Another socket adds and deletes an address under our next seq: the
	 * kernel notifies us of both with that seq and the other's port. */
	for (int type = RTM_NEWADDR; type <= RTM_DELADDR; type++) {
		struct nl_msg *msg = nlmsg_alloc_simple(type, NLM_F_REQUEST | NLM_F_CREATE);
		struct sockaddr_nl kernel = {.nl_family = AF_NETLINK};
		struct nlmsghdr *h = nlmsg_hdr(msg);

		cr_assert(nlmsg_append(msg, &ifa, sizeof(ifa), NLMSG_ALIGNTO) == 0 &&
			  nla_put(msg, IFA_LOCAL, 4, gone.a) == 0);
		h->nlmsg_seq = seq;
		cr_assert_gt(
		    sendto(f.fd, h, h->nlmsg_len, 0, (struct sockaddr *)&kernel, sizeof(kernel)),
		    0);
		nlmsg_free(msg);
	}
	cr_assert_eq(cni_link_has_addr(sys, 1, &gone), 0, "the notification was not a reply");
	close(f.fd);
}

/* The kernel's answer to a request nobody waited for (an exchange given
 * up on) waits in the socket; the next exchange must not take it. */
Test(nl, stale_kernel_reply_is_not_heard)
{
	struct cni_link lo;
	struct nl_sock *sk;
	struct nl_msg *old;

	private_netns();
	cr_assert_eq(cni_link_get(sys, "lo", 0, &lo), 0);
	sk = cni_nl_sock(sys, NETLINK_ROUTE);
	old = nlmsg_alloc_simple(RTM_GETLINK, NLM_F_REQUEST | NLM_F_ACK);
	struct ifinfomsg ifi = {.ifi_index = 9999};

	cr_assert_eq(nlmsg_append(old, &ifi, sizeof(ifi), NLMSG_ALIGNTO), 0);
	nlmsg_hdr(old)->nlmsg_seq = 3;
	cr_assert_gt(nl_send(sk, old), 0, "its ENODEV is now queued");
	cr_assert_eq(cni_link_get(sys, "lo", 0, &lo), 0);
	cr_assert_eq(lo.ifindex, 1);
	nlmsg_free(old);
}

/* Contexts share nothing, and closing one releases all it kept: its
 * sockets and the home namespace fd. */
Test(nl, contexts_are_independent_and_close_everything)
{
	struct cni_sys a = CNI_SYS_INIT, b = CNI_SYS_INIT;
	int before = open_fds();
	struct nl_sock *sa, *sb;
	struct cni_link lo;

	cr_assert_eq(cni_link_get(&a, "lo", 0, &lo), 0);
	sa = cni_nl_sock(&a, NETLINK_ROUTE);
	sb = cni_nl_sock(&b, NETLINK_ROUTE);
	cr_assert(sa && sb && sa != sb, "a socket per context");
	cr_assert_eq(cni_link_get(&a, "nonexistent0", 0, &lo), -ENODEV);
	cr_assert_gt(open_fds(), before);
	cni_sys_close(&a);
	cni_sys_close(&b);
	cr_assert_eq(open_fds(), before, "sockets and the home fd closed");
	cr_assert_eq(a.home, -1);
	cr_assert_str_empty(cni_sys_ext_ack(&a));
}

Test(nl, one_socket_per_namespace)
{
	_cleanup_close_ int host_fd = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
	_cleanup_close_ int pod_fd = -1;
	struct cni_link lo;
	struct nl_sock *host, *pod;
	int saved = -1;

	cr_assert_geq(host_fd, 0);
	cr_assert_eq(cni_link_get(sys, "lo", 0, &lo), 0);
	host = cni_nl_sock(sys, NETLINK_ROUTE);
	cr_assert_eq(cni_link_get(sys, "lo", 0, &lo), 0);
	cr_assert_eq(cni_nl_sock(sys, NETLINK_ROUTE), host, "reused in the same namespace");
	if (unshare(CLONE_NEWNET) < 0 && unshare(CLONE_NEWUSER | CLONE_NEWNET) < 0)
		cr_skip_test("no network namespace of our own (%s)", strerror(errno));
	pod_fd = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
	cr_assert_geq(pod_fd, 0);
	/* Back where the context believes we are, then in through it. */
	cr_assert_eq(setns(host_fd, CLONE_NEWNET), 0);
	cr_assert_eq(cni_netns_enter(sys, pod_fd, &saved), 0);
	pod = cni_nl_sock(sys, NETLINK_ROUTE);
	cr_assert_not_null(pod);
	cr_assert_neq(pod, host, "a namespace of its own gets a socket of its own");
	cr_assert_eq(cni_netns_restore(sys, &saved), 0);
	cr_assert_eq(cni_nl_sock(sys, NETLINK_ROUTE), host, "the host's again after the return");
	cni_sys_close(sys);
}

/* Entering a pod and coming back: each request goes to the namespace the
 * thread is in (a fresh one's lo is down; the test's own is up). */
Test(nl, requests_follow_enter_and_restore)
{
	_cleanup_close_ int host = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
	_cleanup_close_ int pod = -1;
	struct cni_link lo;
	int saved = -1;

	cr_assert_geq(host, 0);
	cr_assert_eq(cni_link_get(sys, "lo", 0, &lo), 0);
	if (!(lo.flags & IFF_UP))
		cr_skip_test("lo is down here: nothing tells the namespaces apart");
	private_netns();
	pod = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
	cr_assert_geq(pod, 0);
	cr_assert_eq(cni_netns_enter(sys, host, &saved), 0);
	for (int round = 0; round < 2; round++) {
		int back = -1;

		cr_assert_eq(cni_link_get(sys, "lo", 0, &lo), 0);
		cr_assert(lo.flags & IFF_UP, "round %d: asked the host", round);
		cr_assert_eq(cni_netns_enter(sys, pod, &back), 0);
		cr_assert_eq(cni_link_get(sys, "lo", 0, &lo), 0);
		cr_assert(!(lo.flags & IFF_UP), "round %d: asked the pod", round);
		cr_assert_eq(cni_netns_restore(sys, &back), 0);
	}
	cr_assert_eq(cni_netns_restore(sys, &saved), 0);
	cr_assert_eq(cni_link_get(sys, "lo", 0, &lo), 0);
	cr_assert(!(lo.flags & IFF_UP), "back in the private namespace");
	cni_sys_close(sys);
}

/* --- a dump the kernel refuses partway ---
 * A dump callback that fails (RDMA_NLDEV_CMD_PORT_GET without a device
 * index, a table gone mid-walk) ends the dump with NLMSG_DONE carrying its
 * -errno and, on a socket with NETLINK_EXT_ACK, NLM_F_ACK_TLVS and the text
 * (netlink_dump_done()). No process can speak as the kernel, so the tests
 * take the real kernel's answer to a real dump and rewrite its NLMSG_DONE as
 * such a kernel sends it: libnl reads through recvmsg(), which this binary
 * interposes for our socket's fd only. */
static struct {
	int fd;		  /* our socket's, -1: every read untouched */
	int err;	  /* the DONE's int */
	const char *text; /* its NLMSGERR_ATTR_MSG, or none */
	int payload;	  /* >= 0: cut the DONE's payload to this many bytes */
	int rewritten;
} refuse = {.fd = -1, .payload = -1};

/* The DONE ending buf's n bytes (the kernel puts it last), rewritten in
 * place (cap bytes of room); the datagram's new length. */
static ssize_t rewrite_done(void *buf, ssize_t n, size_t cap)
{
	int left = (int)n;
	struct nlmsghdr *h = buf;
	struct nlattr *nla;
	size_t len;

	for (; NLMSG_OK(h, left) && h->nlmsg_type != NLMSG_DONE; h = NLMSG_NEXT(h, left))
		;
	if (!NLMSG_OK(h, left))
		return n;
	cr_assert_eq(h->nlmsg_len, NLMSG_LENGTH(sizeof(int)), "the kernel's DONE: its int only");
	refuse.rewritten++;
	if (refuse.payload >= 0) {
		h->nlmsg_len = NLMSG_LENGTH((size_t)refuse.payload);
		return (char *)h - (char *)buf + (ssize_t)h->nlmsg_len;
	}
	memcpy(NLMSG_DATA(h), &refuse.err, sizeof(int));
	if (refuse.text) {
		len = strlen(refuse.text) + 1;
		nla = (struct nlattr *)((char *)h + NLMSG_LENGTH(sizeof(int)));
		cr_assert_leq((char *)nla - (char *)buf + NLA_HDRLEN + NLA_ALIGN(len), cap);
		nla->nla_type = NLMSGERR_ATTR_MSG;
		nla->nla_len = (uint16_t)(NLA_HDRLEN + len);
		memset((char *)nla + NLA_HDRLEN, 0, NLA_ALIGN(len));
		memcpy((char *)nla + NLA_HDRLEN, refuse.text, len);
		h->nlmsg_flags |= NLM_F_ACK_TLVS;
		h->nlmsg_len += NLA_HDRLEN + NLA_ALIGN(len);
	}
	return (char *)h - (char *)buf + (ssize_t)h->nlmsg_len;
}

/* The big-PF tests' reply swap (below). */
static struct {
	bool on;
	int fd;
	uint32_t n_vfs, listed; /* IFLA_NUM_VF; the entries in the list */
	size_t pad;		/* bytes of IFLA_IFALIAS-like filler, to grow it */
	uint32_t ext_mask;	/* the last RTM_GETLINK's IFLA_EXT_MASK */
	size_t sent;		/* the reply's length */
} big = {.fd = -1};
static ssize_t swap_reply(struct msghdr *m, ssize_t n);

ssize_t recvmsg(int fd, struct msghdr *m, int flags)
{
	ssize_t (*real)(int, struct msghdr *, int) =
	    (ssize_t(*)(int, struct msghdr *, int))dlsym(RTLD_NEXT, "recvmsg");
	ssize_t n = real(fd, m, flags);

	if (n > 0 && big.on && fd == big.fd && m->msg_iovlen == 1)
		return swap_reply(m, n);
	if (n <= 0 || fd != refuse.fd || (flags & MSG_PEEK) || m->msg_iovlen != 1)
		return n;
	return rewrite_done(m->msg_iov[0].iov_base, n, m->msg_iov[0].iov_len);
}

static int count_entry(struct nl_msg *msg, void *arg)
{
	(*(int *)arg)++;
	return 0;
}

/* lo's addresses dumped (127.0.0.1/8 once lo is up) with the DONE
 * rewritten as refuse says; the exchange's result, entries counted. */
static int refused_dump(int *entries)
{
	_cleanup_nl_msg_ struct nl_msg *msg =
	    cni_link_req(RTM_GETADDR, NLM_F_DUMP, AF_INET, sizeof(struct ifaddrmsg));
	struct nl_sock *sk = cni_nl_sock(sys, NETLINK_ROUTE);
	int ret;

	cr_assert(msg && sk);
	*entries = 0;
	refuse.fd = nl_socket_get_fd(sk);
	refuse.rewritten = 0;
	ret = cni_nl_talk(sys, sk, msg, count_entry, entries);
	refuse.fd = -1;
	cr_assert_eq(refuse.rewritten, 1, "the kernel's DONE was the one rewritten");
	return ret;
}

Test(nl, dump_refused_at_its_end_is_the_kernels_error)
{
	int entries;

	private_netns();
	cr_assert_eq(cni_link_set_up(sys, 1, true), 0);
	refuse.err = -EOPNOTSUPP;
	refuse.text = "Dump not supported for this device";
	cr_assert_eq(refused_dump(&entries), -EOPNOTSUPP, "not the end of a shorter dump");
	cr_assert_geq(entries, 1, "the entries before the refusal were read");
	cr_assert_str_eq(cni_sys_ext_ack(sys), "Dump not supported for this device");
	/* The same refusal without text: none is left from the last one. */
	refuse.text = NULL;
	cr_assert_eq(refused_dump(&entries), -EOPNOTSUPP);
	cr_assert_str_empty(cni_sys_ext_ack(sys));
}

/* A dump callback that fails with no text (most do) ends the same way, and
 * a caller that used to see "not there" fails instead. */
Test(nl, dump_refused_without_text)
{
	struct cni_prefix lo4 = {.family = AF_INET, .a = {127, 0, 0, 1}, .len = 8};
	int entries;

	private_netns();
	cr_assert_eq(cni_link_set_up(sys, 1, true), 0);
	refuse.err = -EOPNOTSUPP;
	refuse.text = NULL;
	cr_assert_eq(refused_dump(&entries), -EOPNOTSUPP);
	cr_assert_geq(entries, 1);
	cr_assert_str_empty(cni_sys_ext_ack(sys));
	refuse.fd = nl_socket_get_fd(cni_nl_sock(sys, NETLINK_ROUTE));
	cr_assert_eq(cni_link_has_addr(sys, 1, &lo4), -EOPNOTSUPP);
	refuse.fd = -1;
	/* The refusal ended the exchange cleanly: the socket serves on. */
	cr_assert_eq(cni_link_has_addr(sys, 1, &lo4), 1);
}

Test(nl, dump_done_without_error_ends_it_well)
{
	int entries;

	private_netns();
	cr_assert_eq(cni_link_set_up(sys, 1, true), 0);
	/* The kernel's own DONE (its int 0), passed through the rewrite. */
	refuse.err = 0;
	refuse.text = NULL;
	cr_assert_eq(refused_dump(&entries), 0);
	cr_assert_geq(entries, 1);
	/* A DONE too short to carry an int, as some senders have it. */
	for (int payload = 0; payload < (int)sizeof(int); payload++) {
		refuse.payload = payload;
		cr_assert_eq(refused_dump(&entries), 0, "a %d-byte DONE is an end", payload);
		cr_assert_geq(entries, 1);
	}
	refuse.payload = -1;
}

/* The DONE parsers on messages that lie. */
Test(nl, done_errno_and_text_of_crafted_messages)
{
	struct nl_msg *msg = nlmsg_alloc_simple(NLMSG_DONE, NLM_F_MULTI | NLM_F_ACK_TLVS);
	int err = -EOPNOTSUPP;
	char text[CNI_SYS_EXT_ACK];

	cr_assert(nlmsg_append(msg, &err, sizeof(err), NLMSG_ALIGNTO) == 0 &&
		  nla_put_string(msg, NLMSGERR_ATTR_MSG, "no") == 0);
	cr_assert_eq(cni_nl_done_errno(nlmsg_hdr(msg)), -EOPNOTSUPP);
	cni_nl_ext_ack(nlmsg_hdr(msg), text);
	cr_assert_str_eq(text, "no");
	nlmsg_hdr(msg)->nlmsg_flags = NLM_F_MULTI;
	cni_nl_ext_ack(nlmsg_hdr(msg), text);
	cr_assert_str_empty(text, "without NLM_F_ACK_TLVS no text is trusted");
	nlmsg_hdr(msg)->nlmsg_type = RTM_NEWLINK;
	cr_assert_eq(cni_nl_done_errno(nlmsg_hdr(msg)), 0, "only a DONE ends a dump");
	nlmsg_hdr(msg)->nlmsg_type = NLMSG_DONE;
	nlmsg_hdr(msg)->nlmsg_len = NLMSG_HDRLEN + 3;
	cr_assert_eq(cni_nl_done_errno(nlmsg_hdr(msg)), 0, "three bytes are no int");
	nlmsg_free(msg);
}

/* --- a big PF's VF table through the real receive path ---
 * GPU nodes run PFs of up to 127 VFs. No VM here has one, so the kernel's
 * answer to a VF-table read of lo is replaced, as it arrives, by the reply
 * a 127-VF PF's kernel sends (every VF attribute Linux 6.x fills, and the
 * counters too: what a kernel that ignores RTEXT_FILTER_SKIP_STATS sends),
 * with the kernel's sequence number and port; the request is read back as
 * it was sent. */

static void put_vf_info(struct nl_msg *msg, uint32_t i)
{
	struct ifla_vf_mac mac = {.vf = i, .mac = {0x02, 0, 0, 0, (uint8_t)(i >> 8), (uint8_t)i}};
	struct ifla_vf_broadcast bc = {{0}};
	struct ifla_vf_vlan vlan = {.vf = i, .vlan = i};
	struct ifla_vf_vlan_info vi = {.vf = i, .vlan = i, .vlan_proto = htons(0x8100)};
	struct ifla_vf_rate rate = {.vf = i};
	struct ifla_vf_tx_rate tx = {.vf = i};
	struct ifla_vf_spoofchk sc = {.vf = i, .setting = 1};
	struct ifla_vf_link_state ls = {.vf = i};
	struct ifla_vf_rss_query_en rss = {.vf = i};
	struct ifla_vf_trust tr = {.vf = i};
	struct ifla_vf_guid g = {.vf = i, .guid = 0x0200000000000000ULL + i};
	struct nlattr *info = nla_nest_start(msg, IFLA_VF_INFO), *list, *stats;

	cr_assert(info && !nla_put(msg, IFLA_VF_MAC, sizeof(mac), &mac) &&
		  !nla_put(msg, IFLA_VF_BROADCAST, sizeof(bc), &bc) &&
		  !nla_put(msg, IFLA_VF_VLAN, sizeof(vlan), &vlan) &&
		  !nla_put(msg, IFLA_VF_RATE, sizeof(rate), &rate) &&
		  !nla_put(msg, IFLA_VF_TX_RATE, sizeof(tx), &tx) &&
		  !nla_put(msg, IFLA_VF_SPOOFCHK, sizeof(sc), &sc) &&
		  !nla_put(msg, IFLA_VF_LINK_STATE, sizeof(ls), &ls) &&
		  !nla_put(msg, IFLA_VF_RSS_QUERY_EN, sizeof(rss), &rss) &&
		  !nla_put(msg, IFLA_VF_TRUST, sizeof(tr), &tr) &&
		  !nla_put(msg, IFLA_VF_IB_NODE_GUID, sizeof(g), &g) &&
		  !nla_put(msg, IFLA_VF_IB_PORT_GUID, sizeof(g), &g));
	list = nla_nest_start(msg, IFLA_VF_VLAN_LIST);
	cr_assert(list && !nla_put(msg, IFLA_VF_VLAN_INFO, sizeof(vi), &vi));
	nla_nest_end(msg, list);
	stats = nla_nest_start(msg, IFLA_VF_STATS);
	cr_assert_not_null(stats);
	for (int s = IFLA_VF_STATS_RX_PACKETS; s <= IFLA_VF_STATS_TX_DROPPED; s++)
		if (s != IFLA_VF_STATS_PAD) {
			/* As nla_put_u64_64bit: a pad attribute before each. */
			cr_assert(!nla_put(msg, IFLA_VF_STATS_PAD, 0, NULL) &&
				  !nla_put_u64(msg, s, 1000 + i));
		}
	nla_nest_end(msg, stats);
	nla_nest_end(msg, info);
}

/* The reply: lo's index, IFLA_NUM_VF big.n_vfs, big.listed entries. */
static struct nl_msg *big_reply(const struct nlmsghdr *kernel)
{
	struct ifinfomsg ifi = {.ifi_family = AF_UNSPEC, .ifi_index = 1};
	struct nl_msg *msg = nlmsg_alloc_size(256 * 1024);
	struct nlattr *list;
	static char filler[64 * 1024];

	cr_assert(msg && !nlmsg_append(msg, &ifi, sizeof(ifi), NLMSG_ALIGNTO) &&
		  !nla_put_string(msg, IFLA_IFNAME, "pf0") &&
		  !nla_put_u32(msg, IFLA_NUM_VF, big.n_vfs));
	/* An attribute nobody reads, to make the reply as large as a test wants. */
	for (size_t left = big.pad; left; left -= left > 60000 ? 60000 : left)
		cr_assert(!nla_put(msg, IFLA_PHYS_PORT_ID + 100, left > 60000 ? 60000 : (int)left,
				   filler));
	list = nla_nest_start(msg, IFLA_VFINFO_LIST);
	cr_assert_not_null(list);
	for (uint32_t i = 0; i < big.listed; i++)
		put_vf_info(msg, i);
	nla_nest_end(msg, list);
	nlmsg_hdr(msg)->nlmsg_type = RTM_NEWLINK;
	nlmsg_hdr(msg)->nlmsg_seq = kernel->nlmsg_seq;
	nlmsg_hdr(msg)->nlmsg_pid = kernel->nlmsg_pid;
	return msg;
}

ssize_t sendmsg(int fd, const struct msghdr *m, int flags)
{
	ssize_t (*real)(int, const struct msghdr *, int) =
	    (ssize_t(*)(int, const struct msghdr *, int))dlsym(RTLD_NEXT, "sendmsg");
	struct nlmsghdr *h = m->msg_iov[0].iov_base;
	struct nlattr *tb[IFLA_MAX + 1];

	if (big.on && fd == big.fd && h->nlmsg_type == RTM_GETLINK &&
	    nlmsg_parse(h, sizeof(struct ifinfomsg), tb, IFLA_MAX, NULL) == 0)
		big.ext_mask = tb[IFLA_EXT_MASK] ? nla_get_u32(tb[IFLA_EXT_MASK]) : 0;
	return real(fd, m, flags);
}

/* Called by recvmsg() above: the kernel's RTM_NEWLINK replaced, truncated
 * to the caller's buffer as the kernel does (MSG_TRUNC in msg_flags). */
static ssize_t swap_reply(struct msghdr *m, ssize_t n)
{
	struct nlmsghdr *h = m->msg_iov[0].iov_base;
	struct nl_msg *msg;
	size_t len, cap = m->msg_iov[0].iov_len;

	if (n < (ssize_t)sizeof(*h) || h->nlmsg_type != RTM_NEWLINK)
		return n;
	msg = big_reply(h);
	len = nlmsg_hdr(msg)->nlmsg_len;
	big.sent = len;
	memcpy(h, nlmsg_hdr(msg), len < cap ? len : cap);
	nlmsg_free(msg);
	if (len > cap) {
		m->msg_flags |= MSG_TRUNC;
		return (ssize_t)cap;
	}
	return (ssize_t)len;
}

/* cni_link_vfs_get of lo with the reply swapped; its result. */
static int big_read(uint32_t n_vfs, uint32_t listed, size_t pad, struct cni_vf **vfs, size_t *n)
{
	struct nl_sock *sk;
	struct cni_link lo;
	int ret;

	cr_assert_eq(cni_link_get(sys, "lo", 0, &lo), 0);
	sk = cni_nl_sock(sys, NETLINK_ROUTE);
	cr_assert_not_null(sk);
	big = (typeof(big)){
	    .on = true, .fd = nl_socket_get_fd(sk), .n_vfs = n_vfs, .listed = listed, .pad = pad};
	ret = cni_link_vfs_get(sys, 1, vfs, n, NULL);
	big.on = false;
	return ret;
}

Test(nl, vf_table_of_127_vfs_read_whole_without_counters)
{
	static const uint32_t sizes[] = {8, 64, 127};

	private_netns();
	for (size_t s = 0; s < ARRAY_SIZE(sizes); s++) {
		_cleanup_free_ struct cni_vf *vfs = NULL;
		size_t n = 0;

		cr_assert_eq(big_read(sizes[s], sizes[s], 0, &vfs, &n), 0, "%u VFs", sizes[s]);
		cr_assert_eq(big.ext_mask, RTEXT_FILTER_VF | RTEXT_FILTER_SKIP_STATS,
			     "%u VFs: the request's IFLA_EXT_MASK is %#x", sizes[s], big.ext_mask);
		cr_assert_eq(n, sizes[s], "%u VFs: %zu read", sizes[s], n);
		for (size_t i = 0; i < n; i++)
			cr_assert(vfs[i].vf == i && vfs[i].vlan == i &&
				      vfs[i].mac[5] == (uint8_t)i &&
				      vfs[i].port_guid == 0x0200000000000000ULL + i &&
				      vfs[i].mask == 0xff,
				  "%u VFs: entry %zu", sizes[s], i);
		cr_assert_leq(big.sent, CNI_NL_MSG_MAX, "%u VFs: %zu bytes", sizes[s], big.sent);
	}
	cr_assert_gt(big.sent, 32 * 1024, "127 VFs with counters: %zu bytes", big.sent);
}

/* A reply larger than the buffer is an error, never a table of fewer VFs;
 * a list shorter than IFLA_NUM_VF (the kernel skips a VF its driver cannot
 * read, one resetting) is the VFs it holds; the socket serves on. */
Test(nl, vf_table_cut_short_is_an_error)
{
	_cleanup_free_ struct cni_vf *vfs = NULL;
	struct cni_link lo;
	size_t n = 7;

	private_netns();
	cr_assert_eq(big_read(127, 127, CNI_NL_MSG_MAX, &vfs, &n), -EMSGSIZE, "a %zu-byte reply",
		     big.sent);
	cr_assert_null(vfs);
	cr_assert_eq(n, 0);
	cr_assert_eq(big_read(127, 126, 0, &vfs, &n), 0, "one VF skipped");
	cr_assert_eq(n, 126);
	free(vfs);
	vfs = NULL;
	cr_assert_eq(big_read(127, 0, 0, &vfs, &n), 0, "no list: a PF that reports none");
	cr_assert_eq(n, 0);
	cr_assert_eq(cni_link_get(sys, "lo", 0, &lo), 0);
	cr_assert_eq(lo.ifindex, 1);
}
