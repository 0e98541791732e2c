// SPDX-License-Identifier: Apache-2.0
/* The floor of the VF cycle: exactly the kernel operations an ib-sriov ADD
 * and DEL with an IPv4 IPAM ask for, and nothing else: one process per
 * command (as a plugin is), raw rtnetlink, no configuration to parse, no
 * state, no IPAM process. What ib-sriov costs above this is its own.
 *
 * Environment (CNI_COMMAND, CNI_NETNS as for a plugin):
 *   FLOOR_DEV     the VF's host name          FLOOR_TMP   the temporary name
 *   FLOOR_IFNAME  its name in the pod         FLOOR_MTU   MTU in the pod
 *   FLOOR_MTU0    MTU restored on DEL         FLOOR_ADDR  a.b.c.d/len
 *   FLOOR_GW      default gateway
 * ADD: down, rename, move; in the pod rename, MTU, up, address, announce
 * (arp_notify, ndisc_notify, the link's own MAC), default route.
 * DEL: in the pod down, rename, move back; rename, MTU.
 * CNI_COMMAND=NOP exits at once (what an exec costs).
 *
 * With FLOOR_LEASES (a lease directory, dataDir/network), the kernel
 * minimum of the cycle instead: what a pod needs to reach the network
 * and the lease that keeps its address, nothing a config could leave out.
 * No MTU, no sysctl writes, no announcement; the lease as host-local
 * writes it (its lock file flock'ed, the address file created exclusive
 * with "CNI_CONTAINERID\r\nFLOOR_IFNAME", last_reserved_ip.0 rewritten,
 * no fsync) and removed on DEL under the lock.
 * ADD: down, rename, move; in the pod rename, up, address, default route;
 * the lease. DEL: the lease; in the pod down, rename, move back; rename. */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/if.h>
#include <linux/if_addr.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>

struct req {
	struct nlmsghdr h;
	union {
		struct ifinfomsg ifi;
		struct ifaddrmsg ifa;
		struct rtmsg rtm;
	};
	char attrs[256];
};

static int nl_fd = -1;
static unsigned int seq;

static const char *env(const char *name)
{
	const char *v = getenv(name);

	if (!v) {
		fprintf(stderr, "floor: %s is not set\n", name);
		exit(2);
	}
	return v;
}

static void die(const char *what, int err)
{
	fprintf(stderr, "floor: %s: %s\n", what, strerror(err));
	exit(1);
}

static unsigned int num(const char *s, const char *what)
{
	char *end;
	unsigned long v;

	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno || end == s || *end || v > 65535)
		die(what, EINVAL);
	return (unsigned int)v;
}

static void add_attr(struct req *r, unsigned short type, const void *data, size_t len)
{
	struct rtattr *a = (struct rtattr *)((char *)&r->h + NLMSG_ALIGN(r->h.nlmsg_len));

	a->rta_type = type;
	a->rta_len = (unsigned short)RTA_LENGTH(len);
	memcpy(RTA_DATA(a), data, len);
	r->h.nlmsg_len = NLMSG_ALIGN(r->h.nlmsg_len) + RTA_ALIGN(a->rta_len);
}

static void sock_open(void)
{
	if (nl_fd >= 0)
		close(nl_fd);
	nl_fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE);
	if (nl_fd < 0)
		die("netlink socket", errno);
}

/* Send r and read its answer: the ack, or (for a get) the object into out. */
static void talk(struct req *r, void *out, size_t outlen, const char *what)
{
	char buf[16384];
	ssize_t n;

	r->h.nlmsg_flags |= NLM_F_REQUEST | NLM_F_ACK;
	r->h.nlmsg_seq = ++seq;
	if (send(nl_fd, r, r->h.nlmsg_len, 0) < 0)
		die(what, errno);
	for (;;) {
		n = recv(nl_fd, buf, sizeof(buf), 0);
		if (n < 0)
			die(what, errno);
		for (struct nlmsghdr *h = (struct nlmsghdr *)buf; NLMSG_OK(h, (size_t)n);
		     h = NLMSG_NEXT(h, n)) {
			if (h->nlmsg_type == NLMSG_ERROR) {
				int err = ((struct nlmsgerr *)NLMSG_DATA(h))->error;

				if (err)
					die(what, -err);
				return;
			}
			if (out)
				memcpy(out, h, h->nlmsg_len < outlen ? h->nlmsg_len : outlen);
		}
	}
}

static void link_req(struct req *r, int type, int ifindex)
{
	memset(r, 0, sizeof(*r));
	r->h.nlmsg_len = NLMSG_LENGTH(sizeof(struct ifinfomsg));
	r->h.nlmsg_type = (unsigned short)type;
	r->ifi.ifi_family = AF_UNSPEC;
	r->ifi.ifi_index = ifindex;
}

/* ifindex and MAC of the link named name. */
static int link_get(const char *name, unsigned char mac[6])
{
	char reply[4096] = {0};
	struct nlmsghdr *h = (struct nlmsghdr *)reply;
	struct ifinfomsg *ifi = NLMSG_DATA(h);
	struct rtattr *a = IFLA_RTA(ifi);
	int len;
	struct req r;

	link_req(&r, RTM_GETLINK, 0);
	add_attr(&r, IFLA_IFNAME, name, strlen(name) + 1);
	talk(&r, reply, sizeof(reply), name);
	len = (int)(h->nlmsg_len < sizeof(reply) ? h->nlmsg_len : sizeof(reply)) -
	      (int)NLMSG_LENGTH(sizeof(*ifi));
	for (; RTA_OK(a, len); a = RTA_NEXT(a, len))
		if (mac && a->rta_type == IFLA_ADDRESS && RTA_PAYLOAD(a) == 6)
			memcpy(mac, RTA_DATA(a), 6);
	return ifi->ifi_index;
}

static void link_set(int ifindex, unsigned short type, const void *data, size_t len,
		     const char *what)
{
	struct req r;

	link_req(&r, RTM_NEWLINK, ifindex);
	add_attr(&r, type, data, len);
	talk(&r, NULL, 0, what);
}

static void link_up(int ifindex, int up)
{
	struct req r;

	link_req(&r, RTM_NEWLINK, ifindex);
	r.ifi.ifi_change = IFF_UP;
	r.ifi.ifi_flags = up ? IFF_UP : 0;
	talk(&r, NULL, 0, up ? "up" : "down");
}

static void setns_path(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0 || setns(fd, CLONE_NEWNET) < 0)
		die(path, errno);
	close(fd);
	sock_open();
}

static void sysctl_set(const char *family, const char *ifname, const char *key)
{
	char path[128];
	int fd;

	snprintf(path, sizeof(path), "/proc/sys/net/%s/conf/%s/%s", family, ifname, key);
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0 || write(fd, "1", 1) != 1)
		die(path, errno);
	close(fd);
}

static void addr_add(int ifindex, const char *cidr)
{
	char ip[32];
	const char *slash = strchr(cidr, '/');
	struct in_addr a;
	struct req r;

	snprintf(ip, sizeof(ip), "%.*s", slash ? (int)(slash - cidr) : 0, cidr);
	if (!slash || inet_pton(AF_INET, ip, &a) != 1)
		die("FLOOR_ADDR", EINVAL);
	memset(&r, 0, sizeof(r));
	r.h.nlmsg_len = NLMSG_LENGTH(sizeof(struct ifaddrmsg));
	r.h.nlmsg_type = RTM_NEWADDR;
	r.h.nlmsg_flags = NLM_F_CREATE | NLM_F_EXCL;
	r.ifa.ifa_family = AF_INET;
	r.ifa.ifa_prefixlen = (unsigned char)num(slash + 1, "FLOOR_ADDR");
	r.ifa.ifa_index = (unsigned int)ifindex;
	add_attr(&r, IFA_LOCAL, &a, 4);
	add_attr(&r, IFA_ADDRESS, &a, 4);
	talk(&r, NULL, 0, "address");
}

static void route_add(int ifindex, const char *gw)
{
	struct in_addr a;
	struct req r;
	int oif = ifindex;

	if (inet_pton(AF_INET, gw, &a) != 1)
		die("FLOOR_GW", EINVAL);
	memset(&r, 0, sizeof(r));
	r.h.nlmsg_len = NLMSG_LENGTH(sizeof(struct rtmsg));
	r.h.nlmsg_type = RTM_NEWROUTE;
	r.h.nlmsg_flags = NLM_F_CREATE | NLM_F_EXCL;
	r.rtm.rtm_family = AF_INET;
	r.rtm.rtm_table = RT_TABLE_MAIN;
	r.rtm.rtm_protocol = RTPROT_BOOT;
	r.rtm.rtm_scope = RT_SCOPE_UNIVERSE;
	r.rtm.rtm_type = RTN_UNICAST;
	add_attr(&r, RTA_GATEWAY, &a, 4);
	add_attr(&r, RTA_OIF, &oif, 4);
	talk(&r, NULL, 0, "route");
}

/* FLOOR_LEASES's lock file, created if missing and flock'ed. */
static int lease_lock(const char *dir)
{
	char path[512];
	int fd;

	snprintf(path, sizeof(path), "%s/lock", dir);
	fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
	if (fd < 0 || flock(fd, LOCK_EX) < 0)
		die(path, errno);
	return fd;
}

/* The address of FLOOR_ADDR without its prefix length. */
static void addr_ip(char *ip, size_t len)
{
	const char *cidr = env("FLOOR_ADDR"), *slash = strchr(cidr, '/');

	if (!slash || (size_t)(slash - cidr) >= len)
		die("FLOOR_ADDR", EINVAL);
	snprintf(ip, len, "%.*s", (int)(slash - cidr), cidr);
}

static void file_write(const char *path, int flags, const char *text)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC | flags, 0644);
	ssize_t n = (ssize_t)strlen(text);

	if (fd < 0 || write(fd, text, (size_t)n) != n || close(fd) < 0)
		die(path, errno);
}

static void lease(const char *dir, int add)
{
	char ip[32], path[512], text[512];
	int lock = lease_lock(dir);

	addr_ip(ip, sizeof(ip));
	snprintf(path, sizeof(path), "%s/%s", dir, ip);
	if (add) {
		snprintf(text, sizeof(text), "%s\r\n%s", env("CNI_CONTAINERID"),
			 env("FLOOR_IFNAME"));
		file_write(path, O_EXCL, text);
		snprintf(path, sizeof(path), "%s/last_reserved_ip.0", dir);
		file_write(path, O_TRUNC, ip);
	} else if (unlink(path) < 0) {
		die(path, errno);
	}
	close(lock);
}

static void cmd_add(void)
{
	const char *ifname = env("FLOOR_IFNAME"), *tmp = env("FLOOR_TMP");
	const char *leases = getenv("FLOOR_LEASES");
	int pod = open(env("CNI_NETNS"), O_RDONLY | O_CLOEXEC);
	unsigned char mac[6] = {0};
	int idx;

	if (pod < 0)
		die("CNI_NETNS", errno);
	sock_open();
	idx = link_get(env("FLOOR_DEV"), NULL);
	link_up(idx, 0);
	link_set(idx, IFLA_IFNAME, tmp, strlen(tmp) + 1, "rename");
	link_set(idx, IFLA_NET_NS_FD, &pod, sizeof(pod), "move");
	if (setns(pod, CLONE_NEWNET) < 0)
		die("setns", errno);
	sock_open();
	idx = link_get(tmp, mac);
	link_set(idx, IFLA_IFNAME, ifname, strlen(ifname) + 1, "rename");
	if (!leases) {
		unsigned int mtu = num(env("FLOOR_MTU"), "FLOOR_MTU");

		link_set(idx, IFLA_MTU, &mtu, sizeof(mtu), "mtu");
	}
	link_up(idx, 1);
	addr_add(idx, env("FLOOR_ADDR"));
	if (!leases) {
		sysctl_set("ipv4", ifname, "arp_notify");
		sysctl_set("ipv6", ifname, "ndisc_notify");
		link_set(idx, IFLA_ADDRESS, mac, 6, "announce");
	}
	route_add(idx, env("FLOOR_GW"));
	if (leases)
		lease(leases, 1);
}

static void cmd_del(void)
{
	const char *dev = env("FLOOR_DEV"), *tmp = env("FLOOR_TMP");
	const char *leases = getenv("FLOOR_LEASES");
	int host = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
	int idx;

	if (host < 0)
		die("host netns", errno);
	if (leases)
		lease(leases, 0);
	setns_path(env("CNI_NETNS"));
	idx = link_get(env("FLOOR_IFNAME"), NULL);
	link_up(idx, 0);
	link_set(idx, IFLA_IFNAME, tmp, strlen(tmp) + 1, "rename");
	link_set(idx, IFLA_NET_NS_FD, &host, sizeof(host), "move back");
	if (setns(host, CLONE_NEWNET) < 0)
		die("setns", errno);
	sock_open();
	idx = link_get(tmp, NULL);
	link_set(idx, IFLA_IFNAME, dev, strlen(dev) + 1, "rename back");
	if (!leases) {
		unsigned int mtu = num(env("FLOOR_MTU0"), "FLOOR_MTU0");

		link_set(idx, IFLA_MTU, &mtu, sizeof(mtu), "mtu back");
	}
}

int main(void)
{
	const char *cmd = env("CNI_COMMAND");

	if (!strcmp(cmd, "ADD"))
		cmd_add();
	else if (!strcmp(cmd, "DEL"))
		cmd_del();
	else if (strcmp(cmd, "NOP"))
		die(cmd, EINVAL);
	return 0;
}
