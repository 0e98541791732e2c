// SPDX-License-Identifier: Apache-2.0
#include <errno.h>
#include <linux/netlink.h>
#include <netlink/errno.h>
#include <netlink/socket.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>

#include "base/cleanup.h"
#include "kernel/netns.h"
#include "kernel/nl.h"
#include "kernel/sys.h"
#include "base/util.h"

#ifndef SOL_NETLINK
#define SOL_NETLINK 270
#endif

/* --- one socket per protocol and network namespace --- */

static struct nl_sock *sock_open(int protocol)
{
	struct nl_sock *sk = nl_socket_alloc();
	struct timeval tv = {.tv_sec = CNI_NL_TIMEOUT_MS / 1000};
	int one = 1, ret;

	if (!sk) {
		errno = ENOMEM;
		return NULL;
	}
	nl_socket_disable_auto_ack(sk);
	/* A buffer that holds any reply whole lets libnl read each message
	 * once instead of peeking at its size first (CNI_NL_MSG_MAX). */
	nl_socket_set_msg_buf_size(sk, CNI_NL_MSG_MAX);
	ret = nl_connect(sk, protocol);
	if (ret < 0) {
		nl_socket_free(sk);
		errno = -cni_nl_errno(ret);
		return NULL;
	}
	/* Older kernels lack the acks' options; the exchange works without
	 * them. The receive timeout bounds a wait for an answer that never
	 * comes. */
	setsockopt(nl_socket_get_fd(sk), SOL_NETLINK, NETLINK_EXT_ACK, &one, sizeof(one));
	setsockopt(nl_socket_get_fd(sk), SOL_NETLINK, NETLINK_CAP_ACK, &one, sizeof(one));
	setsockopt(nl_socket_get_fd(sk), SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	return sk;
}

struct nl_sock *cni_nl_sock(struct cni_sys *sys, int protocol)
{
	struct cni_sys_sock *slot = NULL;
	dev_t dev;
	ino_t ino;
	int ret = cni_netns_current(sys, &dev, &ino);

	if (ret < 0) {
		errno = -ret;
		return NULL;
	}
	for (size_t i = 0; i < ARRAY_SIZE(sys->socks); i++) {
		struct cni_sys_sock *c = &sys->socks[i];

		if (c->sk && c->protocol == protocol && c->dev == dev && c->ino == ino)
			return c->sk;
		if (!c->sk && !slot)
			slot = c;
	}
	if (!slot) {
		slot = &sys->socks[sys->evict++ % ARRAY_SIZE(sys->socks)];
		nl_socket_free(slot->sk);
		slot->sk = NULL;
	}
	slot->sk = sock_open(protocol);
	slot->protocol = protocol;
	slot->dev = dev;
	slot->ino = ino;
	return slot->sk;
}

/* After an exchange that ended without the kernel's last word (timeout,
 * overrun) a dump may still be running on the socket: the kernel would
 * refuse the next one with EBUSY. Forget the socket; the next request opens
 * a fresh one. */
static void sock_discard(struct cni_sys *sys, struct nl_sock *sk)
{
	for (size_t i = 0; i < ARRAY_SIZE(sys->socks); i++)
		if (sys->socks[i].sk == sk)
			sys->socks[i].sk = NULL;
	nl_socket_free(sk);
}

/* --- one exchange --- */

struct talk {
	int err;
	bool done, broken;
	bool single; /* neither acked nor a dump: the reply ends it */
	uint32_t seq, port;
	uint64_t deadline; /* now_ms() after which the exchange gives up */
	cni_nl_parse_fn parse;
	void *arg;
	char *ext_ack; /* sys->ext_ack */
};

bool cni_nl_is_reply(struct nl_msg *msg, uint32_t seq, uint32_t port)
{
	const struct sockaddr_nl *src = nlmsg_get_src(msg);
	const struct nlmsghdr *h = nlmsg_hdr(msg);

	return src && src->nl_family == AF_NETLINK && src->nl_pid == 0 && h->nlmsg_seq == seq &&
	       h->nlmsg_pid == port;
}

/* The extended-ack attributes that follow off bytes of payload, when the
 * header says they are there. */
static void ack_tlvs(const struct nlmsghdr *h, size_t off, char ext_ack[CNI_SYS_EXT_ACK])
{
	struct nlattr *tb[NLMSGERR_ATTR_MAX + 1];

	if (!(h->nlmsg_flags & NLM_F_ACK_TLVS) || h->nlmsg_len < NLMSG_HDRLEN + off)
		return;
	if (nla_parse(tb, NLMSGERR_ATTR_MAX, (struct nlattr *)((uintptr_t)h + NLMSG_HDRLEN + off),
		      (int)(h->nlmsg_len - NLMSG_HDRLEN - off), NULL) < 0)
		return;
	if (tb[NLMSGERR_ATTR_MSG])
		nla_strlcpy(ext_ack, tb[NLMSGERR_ATTR_MSG], CNI_SYS_EXT_ACK);
}

void cni_nl_ext_ack(const struct nlmsghdr *outer, char ext_ack[CNI_SYS_EXT_ACK])
{
	const struct nlmsgerr *e = (const struct nlmsgerr *)((const char *)outer + NLMSG_HDRLEN);
	size_t off = sizeof(*e);

	ext_ack[0] = '\0';
	/* A dump's end: the attributes follow its int (netlink_dump_done()). */
	if (outer->nlmsg_type == NLMSG_DONE) {
		ack_tlvs(outer, NLMSG_ALIGN(sizeof(int)), ext_ack);
		return;
	}
	if (outer->nlmsg_len < NLMSG_HDRLEN + off)
		return;
	if (!(outer->nlmsg_flags & NLM_F_CAPPED))
		off += e->msg.nlmsg_len - NLMSG_HDRLEN;
	ack_tlvs(outer, off, ext_ack);
}

int cni_nl_done_errno(const struct nlmsghdr *h)
{
	int err;

	/* An NLMSG_DONE without its int (older kernels, some families) is a
	 * normal end. */
	if (h->nlmsg_type != NLMSG_DONE || h->nlmsg_len < NLMSG_HDRLEN + sizeof(err))
		return 0;
	memcpy(&err, (const char *)h + NLMSG_HDRLEN, sizeof(err));
	return err < 0 ? err : 0;
}

/* First look at every message: whatever is not the kernel's answer to this
 * request (a forged reply, a stale one from an abandoned exchange) is
 * skipped before libnl acts on its type. */
static int on_msg_in(struct nl_msg *msg, void *arg)
{
	struct talk *t = arg;

	/* Foreign messages (a pod with CAP_NET_ADMIN can send them to our
	 * port) must not keep us here past the deadline. */
	if (now_ms() > t->deadline) {
		t->err = -ETIMEDOUT;
		t->done = t->broken = true;
		return NL_STOP;
	}
	return cni_nl_is_reply(msg, t->seq, t->port) ? NL_OK : NL_SKIP;
}

static int on_error(struct sockaddr_nl *nla, struct nlmsgerr *e, void *arg)
{
	struct talk *t = arg;

	t->err = e->error;
	t->done = true;
	cni_nl_ext_ack((const struct nlmsghdr *)((const char *)e - NLMSG_HDRLEN), t->ext_ack);
	return NL_STOP;
}

static int on_ack(struct nl_msg *msg, void *arg)
{
	struct talk *t = arg;

	t->done = true;
	return NL_STOP;
}

/* NLMSG_DONE ends a dump; its int is the dump's own result, the kernel's
 * -errno when its dump callback failed partway (what came before is then
 * incomplete), with extended-ack text as an NLMSG_ERROR has. */
static int on_finish(struct nl_msg *msg, void *arg)
{
	struct talk *t = arg;
	const struct nlmsghdr *h = nlmsg_hdr(msg);
	int err = cni_nl_done_errno(h);

	t->done = true;
	if (err) {
		t->err = err;
		cni_nl_ext_ack(h, t->ext_ack);
	}
	return NL_STOP;
}

static int on_valid(struct nl_msg *msg, void *arg)
{
	struct talk *t = arg;
	int ret;

	/* After a parse error keep reading to the end, so that nothing of this
	 * dump is left for the next exchange on the socket. */
	if (t->parse && !t->err && (ret = t->parse(msg, t->arg)))
		t->err = ret;
	if (t->single) {
		t->done = true;
		return NL_STOP;
	}
	return NL_OK;
}

int cni_nl_talk(struct cni_sys *sys, struct nl_sock *sk, struct nl_msg *msg, cni_nl_parse_fn parse,
		void *arg)
{
	struct talk t = {.parse = parse,
			 .arg = arg,
			 .deadline = now_ms() + CNI_NL_TIMEOUT_MS,
			 .ext_ack = sys->ext_ack};
	struct nlmsghdr *h = nlmsg_hdr(msg);
	struct nl_cb *cb;
	int ret;

	sys->ext_ack[0] = '\0';
	t.seq = h->nlmsg_seq = nl_socket_use_seq(sk);
	t.port = h->nlmsg_pid = nl_socket_get_local_port(sk);
	h->nlmsg_flags |= NLM_F_REQUEST;
	t.single = !(h->nlmsg_flags & NLM_F_ACK) && (h->nlmsg_flags & NLM_F_DUMP) != NLM_F_DUMP;
	cb = nl_cb_alloc(NL_CB_CUSTOM);
	if (!cb)
		return -ENOMEM;
	nl_cb_set(cb, NL_CB_MSG_IN, NL_CB_CUSTOM, on_msg_in, &t);
	nl_cb_err(cb, NL_CB_CUSTOM, on_error, &t);
	nl_cb_set(cb, NL_CB_ACK, NL_CB_CUSTOM, on_ack, &t);
	nl_cb_set(cb, NL_CB_FINISH, NL_CB_CUSTOM, on_finish, &t);
	nl_cb_set(cb, NL_CB_VALID, NL_CB_CUSTOM, on_valid, &t);
	ret = nl_send(sk, msg);
	if (ret < 0) {
		nl_cb_put(cb);
		return cni_nl_errno(ret);
	}
	while (!t.done) {
		ret = nl_recvmsgs(sk, cb);
		if (ret < 0 && !t.done) {
			/* SO_RCVTIMEO expired: recvmsg's EAGAIN. */
			t.err = ret == -NLE_AGAIN ? -ETIMEDOUT : cni_nl_errno(ret);
			t.broken = true;
			break;
		}
	}
	nl_cb_put(cb);
	if (t.broken)
		sock_discard(sys, sk);
	return t.err;
}

int cni_nl_request(struct cni_sys *sys, int protocol, struct nl_msg *msg, cni_nl_parse_fn parse,
		   void *arg)
{
	struct nl_sock *sk = cni_nl_sock(sys, protocol);

	if (!sk)
		return -errno;
	return cni_nl_talk(sys, sk, msg, parse, arg);
}
