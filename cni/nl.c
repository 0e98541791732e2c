// SPDX-License-Identifier: Apache-2.0
#include <errno.h>
#include <linux/netlink.h>
#include <netlink/attr.h>
#include <netlink/errno.h>
#include <netlink/socket.h>
#include <string.h>
#include <sys/socket.h>

#include "cleanup.h"
#include "nl.h"
#include "util.h"

#ifndef SOL_NETLINK
#define SOL_NETLINK 270
#endif

static __thread char ext_ack[256];

const char *cni_nl_ext_ack(void)
{
	return ext_ack;
}

int cni_nl_errno(int nlerr)
{
	static const struct {
		int nle, err;
	} map[] = {
		{ NLE_NOMEM, ENOMEM },	      { NLE_AGAIN, EAGAIN },
		{ NLE_BAD_SOCK, EBADF },      { NLE_INTR, EINTR },
		{ NLE_INVAL, EINVAL },	      { NLE_RANGE, ERANGE },
		{ NLE_MSGSIZE, EMSGSIZE },    { NLE_OPNOTSUPP, EOPNOTSUPP },
		{ NLE_AF_NOSUPPORT, EAFNOSUPPORT }, { NLE_OBJ_NOTFOUND, ENOENT },
		{ NLE_NOATTR, ENOENT },	      { NLE_EXIST, EEXIST },
		{ NLE_PERM, EPERM },	      { NLE_NOACCESS, EACCES },
		{ NLE_NODEV, ENODEV },	      { NLE_BUSY, EBUSY },
		{ NLE_DUMP_INTR, EINTR },     { NLE_IMMUTABLE, EROFS },
		{ NLE_PROTO_MISMATCH, EPROTONOSUPPORT },
	};
	int e = nlerr < 0 ? -nlerr : nlerr;

	for (size_t i = 0; i < ARRAY_SIZE(map); i++)
		if (map[i].nle == e)
			return -map[i].err;
	return -EPROTO;
}

struct nl_sock *cni_nl_open(int protocol)
{
	struct nl_sock *sk = nl_socket_alloc();
	int one = 1, ret;

	if (!sk) {
		errno = ENOMEM;
		return NULL;
	}
	nl_socket_disable_auto_ack(sk);
	ret = nl_connect(sk, protocol);
	if (ret < 0) {
		nl_socket_free(sk);
		errno = -cni_nl_errno(ret);
		return NULL;
	}
	/* Older kernels lack these; the exchange works without them. */
	setsockopt(nl_socket_get_fd(sk), SOL_NETLINK, NETLINK_EXT_ACK, &one, sizeof(one));
	setsockopt(nl_socket_get_fd(sk), SOL_NETLINK, NETLINK_CAP_ACK, &one, sizeof(one));
	return sk;
}

struct talk {
	int err;
	bool done;
	cni_nl_parse_fn parse;
	void *arg;
};

static void keep_ext_ack(const struct nlmsgerr *e)
{
	const struct nlmsghdr *outer = (const struct nlmsghdr *)((const char *)e - NLMSG_HDRLEN);
	struct nlattr *tb[NLMSGERR_ATTR_MAX + 1];
	size_t off = sizeof(*e);

	ext_ack[0] = '\0';
	if (!(outer->nlmsg_flags & NLM_F_ACK_TLVS))
		return;
	if (!(outer->nlmsg_flags & NLM_F_CAPPED))
		off += e->msg.nlmsg_len - NLMSG_HDRLEN;
	if (outer->nlmsg_len < NLMSG_HDRLEN + off)
		return;
	if (nla_parse(tb, NLMSGERR_ATTR_MAX,
		      (struct nlattr *)((char *)(uintptr_t)e + off),
		      (int)(outer->nlmsg_len - NLMSG_HDRLEN - off), NULL) < 0)
		return;
	if (tb[NLMSGERR_ATTR_MSG])
		nla_strlcpy(ext_ack, tb[NLMSGERR_ATTR_MSG], sizeof(ext_ack));
}

static int on_error(struct sockaddr_nl *nla, struct nlmsgerr *e, void *arg)
{
	struct talk *t = arg;

	t->err = e->error;
	t->done = true;
	keep_ext_ack(e);
	return NL_STOP;
}

static int on_ack(struct nl_msg *msg, void *arg)
{
	struct talk *t = arg;

	t->done = true;
	return NL_STOP;
}

static int on_valid(struct nl_msg *msg, void *arg)
{
	struct talk *t = arg;
	int ret;

	if (!t->parse || t->err)
		return NL_OK;
	ret = t->parse(msg, t->arg);
	if (ret)
		t->err = ret;
	return NL_OK;
}

int cni_nl_talk(struct nl_sock *sk, struct nl_msg *msg, cni_nl_parse_fn parse,
		void *arg)
{
	struct talk t = { .parse = parse, .arg = arg };
	struct nl_cb *cb = nl_cb_alloc(NL_CB_CUSTOM);
	int ret;

	if (!cb)
		return -ENOMEM;
	ext_ack[0] = '\0';
	nl_cb_err(cb, NL_CB_CUSTOM, on_error, &t);
	nl_cb_set(cb, NL_CB_ACK, NL_CB_CUSTOM, on_ack, &t);
	nl_cb_set(cb, NL_CB_FINISH, NL_CB_CUSTOM, on_ack, &t);
	nl_cb_set(cb, NL_CB_VALID, NL_CB_CUSTOM, on_valid, &t);
	ret = nl_send_auto(sk, msg);
	if (ret < 0) {
		nl_cb_put(cb);
		return cni_nl_errno(ret);
	}
	while (!t.done) {
		ret = nl_recvmsgs(sk, cb);
		if (ret < 0 && !t.done) {
			t.err = cni_nl_errno(ret);
			break;
		}
	}
	nl_cb_put(cb);
	return t.err;
}
