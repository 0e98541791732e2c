// SPDX-License-Identifier: Apache-2.0
/* libibverbs, seen as ibv_devinfo sees a device. The only includer of
 * <infiniband/verbs.h>. Static builds define RDMA_STATIC_PROVIDERS (Makefile)
 * so that ibv_get_device_list registers the providers linked in. */
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <infiniband/verbs.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/addr.h"
#include "base/child.h"
#include "base/cleanup.h"
#include "base/util.h"
#include "kernel/verbs.h"

/* libibverbs returns errors three ways: a positive errno (query_port,
 * query_device), -1 with errno (query_pkey), -1 without errno (query_gid). */
static int verr(int rc)
{
	if (rc > 0)
		return -rc;
	if (rc < 0)
		return errno > 0 ? -errno : -EIO;
	return 0;
}

static int read_port(struct ibv_context *ctx, unsigned int num, unsigned int flags,
		     struct cni_verbs_port *p)
{
	struct ibv_port_attr a;
	union ibv_gid gid;
	int ret;

	p->num = num;
	errno = 0;
	ret = verr(ibv_query_port(ctx, (uint8_t)num, &a));
	if (ret)
		return ret;
	p->state = a.state;
	p->phys_state = a.phys_state;
	/* Unspecified is what older IB drivers report (ibv_devinfo says InfiniBand). */
	p->link_layer =
	    a.link_layer == IBV_LINK_LAYER_ETHERNET ? CNI_VERBS_LL_ETH : CNI_VERBS_LL_IB;
	p->width = a.active_width;
	/* enum ibv_mtu: 1 is 256 bytes, each step doubles. */
	p->active_mtu =
	    a.active_mtu >= IBV_MTU_256 && a.active_mtu <= IBV_MTU_4096 ? 128u << a.active_mtu : 0;
	p->speed = a.active_speed;
	p->lid = a.lid;
	p->sm_lid = a.sm_lid;
	p->gid_tbl_len = a.gid_tbl_len;
	p->pkey_tbl_len = a.pkey_tbl_len;
	if ((flags & CNI_VERBS_GID0) && a.gid_tbl_len > 0) {
		errno = 0;
		ret = verr(ibv_query_gid(ctx, (uint8_t)num, 0, &gid));
		if (ret)
			return ret;
		p->has_gid0 = true;
		p->subnet_prefix = be64toh(gid.global.subnet_prefix);
		p->port_guid = be64toh(gid.global.interface_id);
	}
	if (!(flags & CNI_VERBS_PKEYS))
		return 0;
	for (unsigned int i = 0; i < a.pkey_tbl_len && i < CNI_VERBS_PKEYS_MAX; i++) {
		__be16 key;

		errno = 0;
		ret = verr(ibv_query_pkey(ctx, (uint8_t)num, (int)i, &key));
		if (ret)
			return ret;
		p->pkeys[p->n_pkeys++] = be16toh(key);
	}
	return 0;
}

/* The valid GID entries (the kernel's ioctl, or sysfs on an older one, as
 * libibverbs chooses), each with its type and netdev: the table holds at
 * most a few per address of each netdev, so a read that does not fit is
 * refused by the kernel (-EINVAL) rather than cut. */
static void read_gids(struct ibv_context *ctx, struct cni_verbs_dev *dev)
{
	struct ibv_gid_entry e[CNI_VERBS_GIDS_MAX * 4];
	ssize_t n;

	errno = 0;
	n = ibv_query_gid_table(ctx, e, ARRAY_SIZE(e), 0);
	if (n < 0) {
		dev->gids_ret = (int)n; /* -errno, as libibverbs returns it */
		return;
	}
	for (ssize_t i = 0; i < n && dev->n_gids < CNI_VERBS_GIDS_MAX; i++) {
		struct cni_verbs_gid *g = &dev->gids[dev->n_gids++];

		memcpy(g->raw, e[i].gid.raw, sizeof(g->raw));
		g->index = e[i].gid_index;
		g->port = e[i].port_num;
		g->type = e[i].gid_type;
		g->ndev_ifindex = e[i].ndev_ifindex;
	}
}

static int read_dev(struct ibv_context *ctx, unsigned int flags, struct cni_verbs_dev *dev)
{
	struct ibv_device_attr attr;
	int ret;

	errno = 0;
	ret = verr(ibv_query_device(ctx, &attr));
	if (ret)
		return ret;
	dev->node_guid = be64toh(attr.node_guid);
	dev->sys_image_guid = be64toh(attr.sys_image_guid);
	copy_str(dev->fw_ver, sizeof(dev->fw_ver), attr.fw_ver);
	dev->vendor_id = attr.vendor_id;
	dev->vendor_part_id = attr.vendor_part_id;
	dev->phys_ports = attr.phys_port_cnt;
	for (unsigned int i = 0; i < attr.phys_port_cnt && i < CNI_VERBS_PORTS_MAX; i++) {
		ret = read_port(ctx, i + 1, flags, &dev->ports[i]);
		if (ret)
			return ret;
		dev->n_ports++;
	}
	if (flags & CNI_VERBS_GIDS)
		read_gids(ctx, dev);
	return 0;
}

int cni_verbs_query(const char *name, unsigned int flags, struct cni_verbs_dev *dev)
{
	struct ibv_device **list, *found = NULL;
	struct ibv_context *ctx;
	int n = 0, ret;

	memset(dev, 0, sizeof(*dev));
	if (copy_str(dev->name, sizeof(dev->name), name))
		return -EINVAL;
	errno = 0;
	list = ibv_get_device_list(&n);
	if (!list)
		return errno > 0 ? -errno : -ENOSYS;
	for (int i = 0; i < n && !found; i++)
		if (!strcmp(ibv_get_device_name(list[i]), name))
			found = list[i];
	if (!found) {
		ibv_free_device_list(list);
		return -ENODEV;
	}
	copy_str(dev->uverbs, sizeof(dev->uverbs), found->dev_name);
	errno = 0;
	ctx = ibv_open_device(found);
	if (!ctx) {
		ret = errno > 0 ? -errno : -EIO;
	} else {
		ret = read_dev(ctx, flags, dev);
		ibv_close_device(ctx);
	}
	ibv_free_device_list(list);
	return ret;
}

struct reply {
	int ret;
	struct cni_verbs_dev dev;
};

/* A pod sees sysfs mounted in its own namespace: /sys/class/infiniband is
 * tagged by network namespace, and libibverbs reads pkeys there. Only the
 * child switches, and it holds no kernel context (struct cni_sys) that could
 * believe otherwise: it makes no netlink request. */
static int enter(int netns_fd)
{
	if (setns(netns_fd, CLONE_NEWNET) < 0 || unshare(CLONE_NEWNS) < 0)
		return -errno;
	if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) == 0)
		mount("sysfs", "/sys", "sysfs", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL);
	return 0;
}

/* The child: nothing of the plugin's environment (libibverbs honours
 * SYSFS_PATH, VERBS_LOG_FILE ...), nothing on stdout (the CNI result) or
 * stderr (libibverbs' unescaped warnings), one write of the reply. */
static _Noreturn void child(int out, int netns_fd, const char *name, unsigned int flags)
{
	struct reply r = {0};
	int null = open("/dev/null", O_RDWR | O_CLOEXEC);
	const int keep[] = {out, netns_fd};

	/* A verbs call must not outlive the plugin. */
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (null >= 0) {
		dup2(null, STDOUT_FILENO);
		dup2(null, STDERR_FILENO);
	}
	/* A fork of the plugin: none of its VF lock, netlink sockets or state
	 * directories goes into a driver call that may never return. */
	r.ret = cni_child_close_fds(keep, ARRAY_SIZE(keep));
	clearenv();
	if (!r.ret && netns_fd >= 0)
		r.ret = enter(netns_fd);
	/* Queries need no capability; the pod's namespace is entered. */
	if (!r.ret)
		r.ret = cni_child_drop_caps();
	if (!r.ret)
		r.ret = cni_verbs_query(name, flags, &r.dev);
	if (write_all(out, &r, sizeof(r)))
		_exit(1);
	_exit(0);
}

static int read_reply(int fd, unsigned int timeout_ms, struct reply *r)
{
	uint64_t deadline = now_ms() + timeout_ms;
	size_t got = 0;

	while (got < sizeof(*r)) {
		struct pollfd pfd = {.fd = fd, .events = POLLIN};
		uint64_t now = now_ms();
		ssize_t n;
		int ready;

		if (now >= deadline)
			return -ETIMEDOUT;
		ready = poll(&pfd, 1, (int)(deadline - now));
		if (ready < 0 && errno == EINTR)
			continue;
		if (ready < 0)
			return -errno;
		if (ready == 0)
			return -ETIMEDOUT;
		n = read(fd, (char *)r + got, sizeof(*r) - got);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n < 0 ? -errno : -EPIPE;
		got += (size_t)n;
	}
	return 0;
}

int cni_verbs_query_in(int netns_fd, const char *name, unsigned int flags, unsigned int timeout_ms,
		       struct cni_verbs_dev *dev)
{
	_cleanup_close_ int rd = -1, wr = -1;
	struct reply r;
	int p[2], status, ret;
	pid_t pid;

	memset(dev, 0, sizeof(*dev));
	if (copy_str(dev->name, sizeof(dev->name), name))
		return -EINVAL;
	if (pipe2(p, O_CLOEXEC) < 0)
		return -errno;
	rd = p[0];
	wr = p[1];
	pid = fork();
	if (pid < 0)
		return -errno;
	if (pid == 0)
		child(wr, netns_fd, name, flags);
	close(steal_fd(wr));
	ret = read_reply(rd, timeout_ms, &r);
	/* Reaped with a bound: a child stuck in a driver call (a firmware
	 * command) must not hold CHECK, the doctor or ADD with it. */
	if (ret || cni_child_wait(pid, CNI_VERBS_KILL_WAIT_MS, &status))
		cni_child_kill(pid, CNI_VERBS_KILL_WAIT_MS);
	if (ret)
		return ret;
	*dev = r.dev;
	return r.ret;
}

int cni_verbs_pkeys(const char *name, unsigned int port, uint16_t *pkeys, size_t max)
{
	struct cni_verbs_dev dev;
	const struct cni_verbs_port *p;
	size_t n = 0;
	int ret = cni_verbs_query_in(-1, name, CNI_VERBS_PKEYS, CNI_VERBS_TIMEOUT_MS, &dev);

	if (ret)
		return ret;
	if (port < 1 || port > dev.n_ports)
		return -ENOENT;
	p = &dev.ports[port - 1];
	for (unsigned int i = 0; i < p->n_pkeys && n < max; i++)
		if (p->pkeys[i] & 0x7fff)
			pkeys[n++] = p->pkeys[i];
	return (int)n;
}

const char *cni_verbs_port_state_str(int state)
{
	static const char *const names[] = {"NOP",   "DOWN",   "INIT",
					    "ARMED", "ACTIVE", "ACTIVE_DEFER"};

	return state >= 0 && (size_t)state < ARRAY_SIZE(names) ? names[state] : "unknown";
}

const char *cni_verbs_link_layer_str(int ll)
{
	return ll == CNI_VERBS_LL_ETH  ? "Ethernet"
	       : ll == CNI_VERBS_LL_IB ? "InfiniBand"
				       : "unspecified";
}

const char *cni_verbs_phys_state_str(unsigned int phys)
{
	static const char *const names[] = {"unknown",
					    "Sleep",
					    "Polling",
					    "Disabled",
					    "PortConfigurationTraining",
					    "LinkUp",
					    "LinkErrorRecovery",
					    "PhyTest"};

	return phys < ARRAY_SIZE(names) ? names[phys] : "unknown";
}

const char *cni_verbs_rate_str(const struct cni_verbs_port *p, char *buf, size_t len)
{
	/* Lanes per active_width bit; tenths of Gb/s per lane per active_speed bit. */
	static const struct {
		unsigned int bit, lanes;
	} widths[] = {
	    {1, 1}, {2, 4}, {4, 8}, {8, 12}, {16, 2},
	};
	static const struct {
		unsigned int bit, tenths;
		const char *name;
	} speeds[] = {
	    {1, 25, "SDR"},   {2, 50, "DDR"},	{4, 100, "QDR"},  {8, 100, "FDR10"},
	    {16, 140, "FDR"}, {32, 250, "EDR"}, {64, 500, "HDR"}, {128, 1000, "NDR"},
	};
	unsigned int lanes = 0, tenths = 0;
	const char *name = NULL;

	for (size_t i = 0; i < ARRAY_SIZE(widths); i++)
		if (p->width == widths[i].bit)
			lanes = widths[i].lanes;
	for (size_t i = 0; i < ARRAY_SIZE(speeds); i++)
		if (p->speed == speeds[i].bit) {
			tenths = speeds[i].tenths;
			name = speeds[i].name;
		}
	if (!lanes || !name)
		snprintf(buf, len, "unknown (width %u, speed %u)", p->width, p->speed);
	else if (lanes * tenths % 10)
		snprintf(buf, len, "%u.%u Gb/sec (%uX %s)", lanes * tenths / 10,
			 lanes * tenths % 10, lanes, name);
	else
		snprintf(buf, len, "%u Gb/sec (%uX %s)", lanes * tenths / 10, lanes, name);
	return buf;
}

const char *cni_verbs_strerror(int ret)
{
	switch (ret) {
	case -ENODEV:
		return "not listed by libibverbs here (not in this network namespace, no uverbs "
		       "character device, or no provider for its driver)";
	case -ENOSYS:
	case -EOPNOTSUPP:
		return "no kernel verbs support (load ib_uverbs)";
	case -EPERM:
		return "the kernel refused to open it (it belongs to another network namespace)";
	case -EACCES:
		return "permission denied opening its uverbs character device";
	case -ETIMEDOUT:
		return "the device did not answer in time";
	default:
		return strerror(-ret);
	}
}

const char *cni_verbs_port_hint(const struct cni_verbs_port *p)
{
	if (p->state == CNI_VERBS_PORT_ACTIVE || p->state == CNI_VERBS_PORT_ACTIVE_DEFER)
		return "";
	if (p->link_layer == CNI_VERBS_LL_ETH)
		return "a RoCE port follows its netdev: that netdev is down or has no carrier "
		       "(bring it up, check the cable and the PF's link; for a VF, its link_state)";
	switch (p->state) {
	case CNI_VERBS_PORT_DOWN:
		return p->phys_state == 3
			   ? "the port is disabled (physical state Disabled)"
			   : "no physical link (cable, switch port, or the VF's link_state)";
	case CNI_VERBS_PORT_INIT:
		return "the link is up but no subnet manager has configured the port (is an SM "
		       "running, and does it know this GUID?)";
	case CNI_VERBS_PORT_ARMED:
		return "the subnet manager is bringing the port up: try again";
	default:
		return "the port is not active";
	}
}

static int check_port(const char *name, const struct cni_verbs_port *p,
		      const struct cni_verbs_expect *want, struct cni_error *err)
{
	char got[32], exp[32], rate[48];

	if (p->state != CNI_VERBS_PORT_ACTIVE)
		return cni_errorf(err, -ENETDOWN, CNI_ERR_DEVICE, "CHECK failed",
				  "RDMA device %s port %u is %s (physical state %s, %s): %s", name,
				  p->num, cni_verbs_port_state_str(p->state),
				  cni_verbs_phys_state_str(p->phys_state),
				  cni_verbs_link_layer_str(p->link_layer), cni_verbs_port_hint(p));
	if (p->link_layer != CNI_VERBS_LL_IB || !want)
		return 0;
	if (want->has_guid && (!p->has_gid0 || p->port_guid != want->port_guid))
		return cni_errorf(err, -EINVAL, CNI_ERR_DEVICE, "CHECK failed",
				  "RDMA device %s port %u: port GUID %s, ADD set %s", name, p->num,
				  cni_guid_str(p->port_guid, got, sizeof(got)),
				  cni_guid_str(want->port_guid, exp, sizeof(exp)));
	if (!want->has_pkey)
		return 0;
	for (unsigned int i = 0; i < p->n_pkeys; i++)
		if ((p->pkeys[i] & 0x7fff) == (want->pkey & 0x7fff))
			return 0;
	return cni_errorf(err, -ENOENT, CNI_ERR_DEVICE, "CHECK failed",
			  "RDMA device %s port %u (%s): pkey %#06x is no longer in its table "
			  "(%u entries, index 0 holds %#06x): the subnet manager removed the "
			  "GUID from the partition",
			  name, p->num, cni_verbs_rate_str(p, rate, sizeof(rate)), want->pkey,
			  p->n_pkeys, p->n_pkeys ? p->pkeys[0] : 0);
}

int cni_verbs_check(int netns_fd, const char *name, const struct cni_verbs_expect *want,
		    struct cni_error *err)
{
	unsigned int flags = CNI_VERBS_GID0 | (want && want->has_pkey ? CNI_VERBS_PKEYS : 0);
	struct cni_verbs_dev dev;
	int ret = cni_verbs_query_in(netns_fd, name, flags, CNI_VERBS_TIMEOUT_MS, &dev);

	if (ret)
		return cni_errorf(err, ret, CNI_ERR_DEVICE, "CHECK failed",
				  "RDMA device %s is not usable through verbs in the pod: %s", name,
				  cni_verbs_strerror(ret));
	if (!dev.n_ports)
		return cni_errorf(err, -ENODEV, CNI_ERR_DEVICE, "CHECK failed",
				  "RDMA device %s reports no port", name);
	for (unsigned int i = 0; i < dev.n_ports; i++) {
		ret = check_port(name, &dev.ports[i], want, err);
		if (ret)
			return ret;
	}
	return 0;
}
