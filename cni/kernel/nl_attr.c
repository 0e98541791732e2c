// SPDX-License-Identifier: Apache-2.0
/* The socket-free half of nl.h: attribute parsing and libnl's error codes,
 * shared by the receive loop (nl.c) and the parsers (link*.c, rdma*.c). */
#include <errno.h>
#include <netlink/errno.h>

#include "kernel/nl.h"
#include "base/cleanup.h"

int cni_nl_errno(int nlerr)
{
	static const struct {
		int nle, err;
	} map[] = {
	    {NLE_NOMEM, ENOMEM},
	    {NLE_AGAIN, EAGAIN},
	    {NLE_BAD_SOCK, EBADF},
	    {NLE_INTR, EINTR},
	    {NLE_INVAL, EINVAL},
	    {NLE_RANGE, ERANGE},
	    {NLE_MSGSIZE, EMSGSIZE},
	    /* A reply larger than the receive buffer (CNI_NL_MSG_MAX). */
	    {NLE_MSG_TRUNC, EMSGSIZE},
	    {NLE_OPNOTSUPP, EOPNOTSUPP},
	    {NLE_AF_NOSUPPORT, EAFNOSUPPORT},
	    {NLE_OBJ_NOTFOUND, ENOENT},
	    {NLE_NOATTR, ENOENT},
	    {NLE_EXIST, EEXIST},
	    {NLE_PERM, EPERM},
	    {NLE_NOACCESS, EACCES},
	    {NLE_NODEV, ENODEV},
	    {NLE_BUSY, EBUSY},
	    {NLE_DUMP_INTR, EINTR},
	    {NLE_IMMUTABLE, EROFS},
	    {NLE_PROTO_MISMATCH, EPROTONOSUPPORT},
	};
	int e = nlerr < 0 ? -nlerr : nlerr;

	for (size_t i = 0; i < ARRAY_SIZE(map); i++)
		if (map[i].nle == e)
			return -map[i].err;
	return -EPROTO;
}

int cni_nl_parse(struct nl_msg *msg, size_t hdrlen, struct nlattr **tb, int maxtype,
		 const struct nla_policy *policy)
{
	/* nlmsg_parse checks that the fixed header fits before reading past it. */
	int ret = nlmsg_parse(nlmsg_hdr(msg), (int)hdrlen, tb, maxtype, policy);

	return ret < 0 ? -EPROTO : 0;
}

int cni_nl_parse_nested(struct nlattr *nest, struct nlattr **tb, int maxtype,
			const struct nla_policy *policy)
{
	int ret = nla_parse_nested(tb, maxtype, nest, policy);

	return ret < 0 ? -EPROTO : 0;
}
