// SPDX-License-Identifier: Apache-2.0
#include <errno.h>
#include <fcntl.h>
#include <linux/netlink.h>
#include <rdma/rdma_netlink.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "base/util.h"

#include "base/cleanup.h"
#include "base/log.h"
#include "kernel/netns.h"
#include "kernel/nl.h"
#include "kernel/rdma.h"

/* Every constant used here is in the uapi header of Debian 12's
 * linux-libc-dev (6.1): the newest, RDMA_NLDEV_NET_NS_FD, came with 5.3. */

static struct nl_msg *request(int cmd, int flags)
{
	return nlmsg_alloc_simple(RDMA_NL_GET_TYPE(RDMA_NL_NLDEV, cmd),
				  NLM_F_REQUEST | NLM_F_ACK | flags);
}

struct nl_msg *cni_rdma_msg_sys_get(void)
{
	return request(RDMA_NLDEV_CMD_SYS_GET, 0);
}

struct nl_msg *cni_rdma_msg_sys_set(bool exclusive)
{
	struct nl_msg *msg = request(RDMA_NLDEV_CMD_SYS_SET, 0);

	if (msg && nla_put_u8(msg, RDMA_NLDEV_SYS_ATTR_NETNS_MODE, exclusive ? 0 : 1) < 0) {
		nlmsg_free(msg);
		return NULL;
	}
	return msg;
}

struct nl_msg *cni_rdma_msg_dump(void)
{
	return request(RDMA_NLDEV_CMD_GET, NLM_F_DUMP);
}

/* SET with any of a netns and a name: index first, the kernel's order. */
static struct nl_msg *set_msg(uint32_t index, int netns_fd, const char *name)
{
	struct nl_msg *msg = request(RDMA_NLDEV_CMD_SET, 0);

	if (msg &&
	    (nla_put_u32(msg, RDMA_NLDEV_ATTR_DEV_INDEX, index) < 0 ||
	     (netns_fd >= 0 && nla_put_u32(msg, RDMA_NLDEV_NET_NS_FD, (uint32_t)netns_fd) < 0) ||
	     (name && nla_put_string(msg, RDMA_NLDEV_ATTR_DEV_NAME, name) < 0))) {
		nlmsg_free(msg);
		return NULL;
	}
	return msg;
}

/* DEV_INDEX and NET_NS_FD only: a kernel before Linux 7 given DEV_NAME too
 * renames and ignores the namespace. */
struct nl_msg *cni_rdma_msg_move(uint32_t index, int netns_fd)
{
	return set_msg(index, netns_fd, NULL);
}

struct nl_msg *cni_rdma_msg_move_named(uint32_t index, int netns_fd, const char *name)
{
	return set_msg(index, netns_fd, name);
}

struct nl_msg *cni_rdma_msg_rename(uint32_t index, const char *name)
{
	return set_msg(index, -1, name);
}

struct nl_msg *cni_rdma_msg_port_dump(uint32_t index)
{
	struct nl_msg *msg = request(RDMA_NLDEV_CMD_PORT_GET, NLM_F_DUMP);

	if (msg && nla_put_u32(msg, RDMA_NLDEV_ATTR_DEV_INDEX, index) < 0) {
		nlmsg_free(msg);
		return NULL;
	}
	return msg;
}

static int rdma_talk(struct cni_sys *sys, struct nl_msg *msg, cni_nl_parse_fn parse, void *arg)
{
	struct nl_sock *sk;

	if (!msg)
		return -ENOMEM;
	sk = cni_nl_sock(sys, NETLINK_RDMA);
	if (!sk)
		return errno == EPROTONOSUPPORT || errno == EAFNOSUPPORT ? -EPROTONOSUPPORT
									 : -errno;
	return cni_nl_talk(sys, sk, msg, parse, arg);
}

/* RDMA replies have no fixed header; newer kernels send attributes past
 * RDMA_NLDEV_ATTR_MAX, which nla_parse skips. */
static const struct nla_policy dev_policy[RDMA_NLDEV_ATTR_MAX + 1] = {
    [RDMA_NLDEV_ATTR_DEV_INDEX] = {.type = NLA_U32},
    [RDMA_NLDEV_ATTR_DEV_NAME] = {.type = NLA_STRING},
    [RDMA_NLDEV_ATTR_PORT_INDEX] = {.type = NLA_U32},
    [RDMA_NLDEV_ATTR_NODE_GUID] = {.type = NLA_U64},
};

static const struct nla_policy port_policy[RDMA_NLDEV_ATTR_MAX + 1] = {
    [RDMA_NLDEV_ATTR_DEV_INDEX] = {.type = NLA_U32},
    [RDMA_NLDEV_ATTR_DEV_NAME] = {.type = NLA_STRING},
    [RDMA_NLDEV_ATTR_PORT_INDEX] = {.type = NLA_U32},
    [RDMA_NLDEV_ATTR_NDEV_INDEX] = {.type = NLA_U32},
};

static const struct nla_policy mode_policy[RDMA_NLDEV_ATTR_MAX + 1] = {
    [RDMA_NLDEV_SYS_ATTR_NETNS_MODE] = {.type = NLA_U8},
};

int cni_rdma_parse_dev(struct nl_msg *msg, struct cni_rdma_dev *dev)
{
	struct nlattr *tb[RDMA_NLDEV_ATTR_MAX + 1];
	int ret = cni_nl_parse(msg, 0, tb, RDMA_NLDEV_ATTR_MAX, dev_policy);

	if (ret)
		return ret;
	if (!tb[RDMA_NLDEV_ATTR_DEV_INDEX] || !tb[RDMA_NLDEV_ATTR_DEV_NAME])
		return -EPROTO;
	memset(dev, 0, sizeof(*dev));
	dev->index = nla_get_u32(tb[RDMA_NLDEV_ATTR_DEV_INDEX]);
	nla_strlcpy(dev->name, tb[RDMA_NLDEV_ATTR_DEV_NAME], sizeof(dev->name));
	if (tb[RDMA_NLDEV_ATTR_NODE_GUID])
		dev->node_guid = nla_get_u64(tb[RDMA_NLDEV_ATTR_NODE_GUID]);
	if (tb[RDMA_NLDEV_ATTR_PORT_INDEX])
		dev->ports = nla_get_u32(tb[RDMA_NLDEV_ATTR_PORT_INDEX]);
	return 0;
}

int cni_rdma_parse_port(struct nl_msg *msg, struct cni_rdma_port *port)
{
	struct nlattr *tb[RDMA_NLDEV_ATTR_MAX + 1];
	int ret = cni_nl_parse(msg, 0, tb, RDMA_NLDEV_ATTR_MAX, port_policy);

	if (ret)
		return ret;
	if (!tb[RDMA_NLDEV_ATTR_DEV_INDEX] || !tb[RDMA_NLDEV_ATTR_DEV_NAME] ||
	    !tb[RDMA_NLDEV_ATTR_PORT_INDEX])
		return -EPROTO;
	memset(port, 0, sizeof(*port));
	port->dev_index = nla_get_u32(tb[RDMA_NLDEV_ATTR_DEV_INDEX]);
	nla_strlcpy(port->dev_name, tb[RDMA_NLDEV_ATTR_DEV_NAME], sizeof(port->dev_name));
	port->port = nla_get_u32(tb[RDMA_NLDEV_ATTR_PORT_INDEX]);
	if (tb[RDMA_NLDEV_ATTR_NDEV_INDEX])
		port->ndev_index = nla_get_u32(tb[RDMA_NLDEV_ATTR_NDEV_INDEX]);
	return 0;
}

int cni_rdma_parse_mode(struct nl_msg *msg, bool *exclusive)
{
	struct nlattr *tb[RDMA_NLDEV_ATTR_MAX + 1];
	int ret = cni_nl_parse(msg, 0, tb, RDMA_NLDEV_ATTR_MAX, mode_policy), mode;

	if (ret)
		return ret;
	if (!tb[RDMA_NLDEV_SYS_ATTR_NETNS_MODE])
		return -EPROTO;
	mode = nla_get_u8(tb[RDMA_NLDEV_SYS_ATTR_NETNS_MODE]);
	if (mode != 0 && mode != 1)
		return -EPROTO;
	*exclusive = mode == 0;
	return 0;
}

static int mode_parse(struct nl_msg *msg, void *arg)
{
	return cni_rdma_parse_mode(msg, arg);
}

int cni_rdma_get_netns_mode(struct cni_sys *sys, bool *exclusive)
{
	_cleanup_nl_msg_ struct nl_msg *msg = cni_rdma_msg_sys_get();
	bool mode = false;
	int ret = rdma_talk(sys, msg, mode_parse, &mode);

	if (!ret)
		*exclusive = mode;
	return ret;
}

int cni_rdma_set_netns_mode(struct cni_sys *sys, bool exclusive)
{
	_cleanup_nl_msg_ struct nl_msg *msg = cni_rdma_msg_sys_set(exclusive);

	return rdma_talk(sys, msg, NULL, NULL);
}

/* Bounded by the bytes of what was decoded, never by a count: a pod with
 * CAP_NET_ADMIN creates rxe devices in the host's namespace (exclusive
 * mode), and no number of them may make the host's dumps fail. */
int cni_rdma_dump_add(struct nl_msg *msg, void *arg)
{
	struct cni_rdma_dump *d = arg;
	int ret;

	if (d->n == d->cap) {
		size_t cap = d->cap ? 2 * d->cap : 16;
		char *p;

		if (d->n >= CNI_RDMA_DUMP_MAX_BYTES / d->size)
			return -E2BIG;
		if (cap > CNI_RDMA_DUMP_MAX_BYTES / d->size)
			cap = CNI_RDMA_DUMP_MAX_BYTES / d->size;
		p = realloc(d->items, cap * d->size);
		if (!p)
			return -ENOMEM;
		d->items = p;
		d->cap = cap;
	}
	ret = d->parse(msg, (char *)d->items + d->n * d->size);
	if (!ret)
		d->n++;
	return ret;
}

static int dump(struct cni_sys *sys, struct nl_msg *msg, struct cni_rdma_dump *d, void **items,
		size_t *n)
{
	int ret = rdma_talk(sys, msg, cni_rdma_dump_add, d);

	if (ret) {
		free(d->items);
		return ret;
	}
	*items = d->items;
	*n = d->n;
	return 0;
}

static int dev_item(struct nl_msg *msg, void *item)
{
	return cni_rdma_parse_dev(msg, item);
}

static int port_item(struct nl_msg *msg, void *item)
{
	return cni_rdma_parse_port(msg, item);
}

int cni_rdma_devs(struct cni_sys *sys, struct cni_rdma_dev **devs, size_t *n)
{
	_cleanup_nl_msg_ struct nl_msg *msg = cni_rdma_msg_dump();
	struct cni_rdma_dump d = {.size = sizeof(**devs), .parse = dev_item};

	return dump(sys, msg, &d, (void **)devs, n);
}

int cni_rdma_ports(struct cni_sys *sys, const struct cni_rdma_dev *devs, size_t n_devs,
		   struct cni_rdma_port **ports, size_t *n)
{
	struct cni_rdma_dump d = {.size = sizeof(**ports), .parse = port_item};
	int ret = 0;

	for (size_t i = 0; i < n_devs && !ret; i++) {
		_cleanup_nl_msg_ struct nl_msg *msg = cni_rdma_msg_port_dump(devs[i].index);

		ret = rdma_talk(sys, msg, cni_rdma_dump_add, &d);
		/* Gone since the device dump: no ports. The kernel's port dump
		 * of an index it does not know ends in NLMSG_DONE with EINVAL. */
		if (ret == -EINVAL || ret == -ENODEV)
			ret = 0;
	}
	if (ret) {
		free(d.items);
		return ret;
	}
	*ports = d.items;
	*n = d.n;
	return 0;
}

struct nl_msg *cni_rdma_msg_get(uint32_t index)
{
	struct nl_msg *msg = request(RDMA_NLDEV_CMD_GET, 0);

	if (msg && nla_put_u32(msg, RDMA_NLDEV_ATTR_DEV_INDEX, index) < 0) {
		nlmsg_free(msg);
		return NULL;
	}
	return msg;
}

/* GET_CHARDEV of the uverbs client for one device: what rdma-core asks to
 * bind a provider; the kernel answers for a device of the socket's namespace. */
struct nl_msg *cni_rdma_msg_chardev(uint32_t index)
{
	struct nl_msg *msg = request(RDMA_NLDEV_CMD_GET_CHARDEV, 0);

	if (msg && (nla_put_u32(msg, RDMA_NLDEV_ATTR_DEV_INDEX, index) < 0 ||
		    nla_put_string(msg, RDMA_NLDEV_ATTR_CHARDEV_TYPE, "uverbs") < 0)) {
		nlmsg_free(msg);
		return NULL;
	}
	return msg;
}

/* The uapi header says u64; the kernel puts a u32 (ib_uverbs_get_nl_info),
 * which rdma-core reads. Either width is taken. */
int cni_rdma_parse_driver(struct nl_msg *msg, uint32_t *driver)
{
	struct nlattr *tb[RDMA_NLDEV_ATTR_MAX + 1];
	int ret = cni_nl_parse(msg, 0, tb, RDMA_NLDEV_ATTR_MAX, NULL);
	const struct nlattr *a = ret ? NULL : tb[RDMA_NLDEV_ATTR_UVERBS_DRIVER_ID];

	if (ret)
		return ret;
	if (!a)
		return -ENODATA;
	if (nla_len(a) == sizeof(uint32_t))
		*driver = nla_get_u32(a);
	else if (nla_len(a) == sizeof(uint64_t) && nla_get_u64(a) <= UINT32_MAX)
		*driver = (uint32_t)nla_get_u64(a);
	else
		return -EPROTO;
	return 0;
}

static int driver_parse(struct nl_msg *msg, void *arg)
{
	return cni_rdma_parse_driver(msg, arg);
}

int cni_rdma_driver(struct cni_sys *sys, uint32_t index, uint32_t *driver)
{
	_cleanup_nl_msg_ struct nl_msg *msg = cni_rdma_msg_chardev(index);
	uint32_t d = UINT32_MAX;
	int ret = rdma_talk(sys, msg, driver_parse, &d);

	if (ret == -EINVAL)
		return -ENODEV;
	if (ret)
		return ret;
	if (d == UINT32_MAX)
		return -ENODATA; /* acked without an answer */
	*driver = d;
	return 0;
}

static int get_parse(struct nl_msg *msg, void *arg)
{
	return cni_rdma_parse_dev(msg, arg);
}

/* The kernel's GET answers EINVAL for an index it does not know in the
 * socket's namespace (nldev_get_doit); the request always carries one. */
static int get_by_index(struct cni_sys *sys, uint32_t index, struct cni_rdma_dev *dev)
{
	_cleanup_nl_msg_ struct nl_msg *msg = cni_rdma_msg_get(index);
	struct cni_rdma_dev d = {.name = ""};
	int ret = rdma_talk(sys, msg, get_parse, &d);

	if (ret == -EINVAL)
		return -ENODEV;
	if (ret)
		return ret;
	if (!*d.name || d.index != index)
		return -EPROTO; /* acked without the device */
	*dev = d;
	return 0;
}

/* The kernel has no GET by name: this namespace's dump, searched. */
static int get_by_name(struct cni_sys *sys, const char *name, struct cni_rdma_dev *dev)
{
	struct cni_rdma_dev *devs;
	size_t n;
	int ret = cni_rdma_devs(sys, &devs, &n);

	if (ret)
		return ret;
	ret = -ENODEV;
	for (size_t i = 0; i < n && ret; i++)
		if (!strcmp(devs[i].name, name)) {
			*dev = devs[i];
			ret = 0;
		}
	free(devs);
	return ret;
}

int cni_rdma_dev_get(struct cni_sys *sys, const char *name, uint32_t index,
		     struct cni_rdma_dev *dev)
{
	return name ? get_by_name(sys, name, dev) : get_by_index(sys, index, dev);
}

int cni_rdma_move(struct cni_sys *sys, uint32_t index, int netns_fd)
{
	_cleanup_nl_msg_ struct nl_msg *msg = cni_rdma_msg_move(index, netns_fd);

	return rdma_talk(sys, msg, NULL, NULL);
}

int cni_rdma_rename(struct cni_sys *sys, uint32_t index, const char *name)
{
	_cleanup_nl_msg_ struct nl_msg *msg = cni_rdma_msg_rename(index, name);

	return rdma_talk(sys, msg, NULL, NULL);
}

int cni_rdma_move_named(struct cni_sys *sys, const struct cni_rdma_dev *dev, int netns_fd,
			const char *name)
{
	_cleanup_nl_msg_ struct nl_msg *msg = cni_rdma_msg_move_named(dev->index, netns_fd, name);
	char ack[CNI_SYS_EXT_ACK];
	struct cni_rdma_dev now;
	int ret = rdma_talk(sys, msg, NULL, NULL), undo;

	if (ret)
		return ret;
	/* Success is not proof: a kernel without per-namespace names handles
	 * DEV_NAME first, renames, skips the move and acks. Only a device no
	 * longer seen here has moved. */
	ret = cni_rdma_dev_get(sys, NULL, dev->index, &now);
	if (ret == -ENODEV)
		return 0;
	if (!ret && !strcmp(now.name, dev->name))
		return -ENOSYS;
	/* Renamed here, or unknown: put the name back (a no-op when it has it). */
	memcpy(ack, sys->ext_ack, sizeof(ack));
	undo = cni_rdma_rename(sys, dev->index, dev->name);
	if (undo && undo != -ENODEV)
		log_err("RDMA device %s (index %u) keeps the name %s: renaming it back failed: %s",
			dev->name, dev->index, name, strerror(-undo));
	memcpy(sys->ext_ack, ack, sizeof(ack));
	return ret ? ret : -ENOSYS;
}

int cni_rdma_require_exclusive(struct cni_sys *sys, struct cni_error *err, int code)
{
	bool exclusive = false;
	int ret = cni_rdma_get_netns_mode(sys, &exclusive);

	if (ret)
		return cni_errorf(err, ret, code, "cannot read the RDMA netns mode", "%s",
				  cni_rdma_strerror(ret));
	if (exclusive)
		return 0;
	return cni_errorf(
	    err, -EPERM, code, "the RDMA subsystem is in shared netns mode; exclusive is needed",
	    "the kernel changes the mode only while no network namespace but the host's "
	    "exists, so set it at boot: run `rdma-ns netns-mode exclusive` before the container "
	    "runtime starts (conf-examples has a systemd unit), or add `options ib_core "
	    "netns_mode=0` to /etc/modprobe.d/ and reboot");
}
