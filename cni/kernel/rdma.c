// SPDX-License-Identifier: Apache-2.0
#include <errno.h>
#include <fcntl.h>
#include <linux/netlink.h>
#include <rdma/rdma_netlink.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/cleanup.h"
#include "base/log.h"
#include "kernel/netns.h"
#include "kernel/nl.h"
#include "kernel/rdma.h"

/* Every constant used here is in the uapi header of Debian 12's
 * linux-libc-dev (6.1): the newest, RDMA_NLDEV_NET_NS_FD, came with 5.3. */

const char *cni_rdma_strerror(int ret)
{
	switch (-ret) {
	case EPROTONOSUPPORT:
		return "the kernel has no RDMA subsystem (is ib_core loaded?)";
	case EBUSY:
		return "another network namespace exists; the mode can only change while there is "
		       "none";
	case EOPNOTSUPP:
		return "the device's driver cannot change network namespace, or the mode is shared";
	case ENXIO:
		return "the device is in neither the pod's network namespace nor the host's (moved "
		       "on by the pod?); the record stays until it is back";
	default:
		return strerror(-ret);
	}
}

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

/* DEV_INDEX and NET_NS_FD only: with DEV_NAME the kernel would rename and
 * ignore the namespace. */
struct nl_msg *cni_rdma_msg_move(uint32_t index, int netns_fd)
{
	struct nl_msg *msg = request(RDMA_NLDEV_CMD_SET, 0);

	if (msg && (nla_put_u32(msg, RDMA_NLDEV_ATTR_DEV_INDEX, index) < 0 ||
		    nla_put_u32(msg, RDMA_NLDEV_NET_NS_FD, (uint32_t)netns_fd) < 0)) {
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
    [RDMA_NLDEV_ATTR_LINK_TYPE] = {.type = NLA_STRING},
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
	if (tb[RDMA_NLDEV_ATTR_LINK_TYPE])
		nla_strlcpy(dev->link_type, tb[RDMA_NLDEV_ATTR_LINK_TYPE], sizeof(dev->link_type));
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

struct dump {
	struct cni_rdma_dev *devs;
	size_t n;
};

static int dump_parse(struct nl_msg *msg, void *arg)
{
	struct dump *d = arg;
	struct cni_rdma_dev *p = realloc(d->devs, (d->n + 1) * sizeof(*p));
	int ret;

	if (!p)
		return -ENOMEM;
	d->devs = p;
	ret = cni_rdma_parse_dev(msg, &p[d->n]);
	if (!ret)
		d->n++;
	return ret;
}

int cni_rdma_devs(struct cni_sys *sys, struct cni_rdma_dev **devs, size_t *n)
{
	_cleanup_nl_msg_ struct nl_msg *msg = cni_rdma_msg_dump();
	struct dump d = {0};
	int ret = rdma_talk(sys, msg, dump_parse, &d);

	if (ret) {
		free(d.devs);
		return ret;
	}
	*devs = d.devs;
	*n = d.n;
	return 0;
}

static const struct cni_rdma_dev *find(const struct cni_rdma_dev *devs, size_t n, const char *name,
				       uint32_t index)
{
	for (size_t i = 0; i < n; i++)
		if (name ? !strcmp(devs[i].name, name) : devs[i].index == index)
			return &devs[i];
	return NULL;
}

int cni_rdma_dev_get(struct cni_sys *sys, const char *name, uint32_t index,
		     struct cni_rdma_dev *dev)
{
	const struct cni_rdma_dev *d;
	struct cni_rdma_dev *devs;
	size_t n;
	int ret = cni_rdma_devs(sys, &devs, &n);

	if (ret)
		return ret;
	d = find(devs, n, name, index);
	if (d)
		*dev = *d;
	free(devs);
	return d ? 0 : -ENODEV;
}

int cni_rdma_move(struct cni_sys *sys, uint32_t index, int netns_fd)
{
	_cleanup_nl_msg_ struct nl_msg *msg = cni_rdma_msg_move(index, netns_fd);

	return rdma_talk(sys, msg, NULL, NULL);
}

const struct cni_rdma_dev *cni_rdma_find(const struct cni_rdma_dev *devs, size_t n,
					 const struct cni_rdma_ref *ref)
{
	for (size_t i = 0; i < n; i++)
		if (ref->has_index ? devs[i].index == ref->index : !strcmp(devs[i].name, ref->name))
			return &devs[i];
	return NULL;
}

/* In the pod: move one device home. Only the kernel's "no such device",
 * or a second look that no longer finds it, counts as gone. */
static int return_one(struct cni_sys *sys, const struct cni_rdma_dev *d,
		      const struct cni_rdma_ref *ref, int host)
{
	struct cni_rdma_dev again;
	int ret = cni_rdma_move(sys, d->index, host);

	if (!ret)
		log_info("moved RDMA device %s (index %u) back to the host", d->name, d->index);
	if (!ret || ret == -ENODEV ||
	    cni_rdma_dev_get(sys, ref->has_index ? NULL : ref->name, d->index, &again) == -ENODEV)
		return 0;
	return ret;
}

/* Back on the host: every device known by index is here. */
static int confirm_home(struct cni_sys *sys, const struct cni_rdma_ref *refs, size_t n,
			const char **failed)
{
	struct cni_rdma_dev *devs = NULL;
	size_t count = 0;
	int ret = cni_rdma_devs(sys, &devs, &count);

	if (ret == -EPROTONOSUPPORT)
		ret = 0;
	for (size_t i = 0; i < n && !ret; i++)
		if (refs[i].has_index && !cni_rdma_find(devs, count, &refs[i])) {
			*failed = refs[i].name;
			ret = -ENXIO;
		}
	free(devs);
	return ret;
}

int cni_rdma_return(struct cni_sys *sys, int pod_fd, const struct cni_rdma_ref *refs, size_t n,
		    const char **failed)
{
	_cleanup_close_ int host = cni_netns_open_current(sys);
	struct cni_rdma_dev *devs = NULL;
	size_t count = 0;
	int saved = -1, ret;
	bool none = false;

	*failed = NULL;
	if (host < 0)
		return host;
	ret = cni_netns_enter(sys, pod_fd, &saved);
	if (ret)
		return ret;
	/* One dump in the pod (the kernel requires the move to be asked from
	 * the device's netns); a device it does not show must be on the host. */
	ret = cni_rdma_devs(sys, &devs, &count);
	if (ret == -EPROTONOSUPPORT) {
		ret = 0; /* no RDMA subsystem: nothing can be in the pod */
		none = true;
	}
	for (size_t i = 0; i < n && !ret; i++) {
		const struct cni_rdma_dev *d = cni_rdma_find(devs, count, &refs[i]);

		if (d && (ret = return_one(sys, d, &refs[i], host)))
			*failed = refs[i].name;
	}
	free(devs);
	if (cni_netns_restore(sys, &saved) && !ret)
		ret = -EIO;
	return ret || none ? ret : confirm_home(sys, refs, n, failed);
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
