// SPDX-License-Identifier: Apache-2.0
/* Drives cni/kernel/link.c, cni/kernel/netns.c and cni/kernel/pci.c from the netns tier so the
 * scripts can check the kernel's state with `ip -j` afterwards.
 * Usage: cnihelper OP ARGS...; prints a JSON line or the errno name. */
#include <arpa/inet.h>
#include <errno.h>
#include <linux/if_packet.h>
#include <poll.h>
#include <sys/socket.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <linux/if_ether.h>
#include <linux/if_link.h>
#include <linux/rtnetlink.h>
#include <netlink/attr.h>
#include <netlink/msg.h>

#include "base/cleanup.h"
#include "kernel/link.h"
#include "kernel/netns.h"
#include "kernel/netns_scan.h"
#include "kernel/pci.h"
#include "protocol/podres.h"
#include "base/util.h"
#include "kernel/sys.h"

/* One kernel context for the process (each test runs in a fork of its own). */
static struct cni_sys test_sys = CNI_SYS_INIT;
static struct cni_sys *const sys = &test_sys;

static int ifindex_of(const char *name)
{
	struct cni_link l;
	int ret = cni_link_get(sys, name, 0, &l);

	return ret ? ret : l.ifindex;
}

static int fail(int ret)
{
	const char *ack = cni_sys_ext_ack(sys);

	printf("error %s%s%s\n", strerrorname_np(-ret) ? strerrorname_np(-ret) : "?",
	       *ack ? ": " : "", ack);
	return 1;
}

static int show(const char *name)
{
	struct cni_link l;
	int ret = cni_link_get(sys, name, 0, &l);

	if (ret)
		return fail(ret);
	printf("{\"ifindex\":%d,\"name\":\"%s\",\"kind\":\"%s\",\"mtu\":%u,\"up\":%s,\"mac\":\"",
	       l.ifindex, l.name, l.kind, l.mtu, (l.flags & 1) ? "true" : "false");
	for (unsigned int i = 0; i < l.mac_len; i++)
		printf("%s%02x", i ? ":" : "", l.mac[i]);
	printf("\",\"num_vf\":%d}\n", l.num_vf);
	return 0;
}

static int pci(const char *addr)
{
	struct cni_pci_vf vf;
	int ret = cni_pci_vf_get(CNI_PCI_ROOT, addr, &vf);

	if (ret)
		return fail(ret);
	printf("{\"pf\":\"%s\",\"vf\":%d,\"pf_netdev\":\"%s\",\"netdev\":\"%s\",\"driver\":\"%s\","
	       "\"rdma\":\"%s\"}\n",
	       vf.pf_addr, vf.vf_index, vf.pf_netdev, vf.netdev, vf.driver, vf.rdma_dev);
	return 0;
}

static int parse_mac(const char *s, unsigned char *mac)
{
	unsigned int b[6];

	if (sscanf(s, "%x:%x:%x:%x:%x:%x", &b[0], &b[1], &b[2], &b[3], &b[4], &b[5]) != 6)
		return -EINVAL;
	for (int i = 0; i < 6; i++)
		mac[i] = (unsigned char)b[i];
	return 0;
}

/* The VF attributes (type -> payload) of one RTM_NEWLINK message. */
static int vf_attrs(struct nl_msg *msg, struct nlattr *tb[IFLA_VF_MAX + 1], int *ifindex)
{
	struct nlattr *top[IFLA_MAX + 1], *info;
	struct nlmsghdr *h = nlmsg_hdr(msg);
	int rem, n = 0;

	if (h->nlmsg_type != RTM_NEWLINK ||
	    nlmsg_parse(h, sizeof(struct ifinfomsg), top, IFLA_MAX, NULL) < 0 ||
	    !top[IFLA_VFINFO_LIST])
		return -EPROTO;
	*ifindex = ((struct ifinfomsg *)nlmsg_data(h))->ifi_index;
	nla_for_each_nested (info, top[IFLA_VFINFO_LIST], rem) {
		if (nla_parse_nested(tb, IFLA_VF_MAX, info, NULL) < 0)
			return -EPROTO;
		n++;
	}
	return n == 1 ? 0 : -EPROTO;
}

/* vf-compare HEX key=value...: decode iproute2's request (hex bytes as sent)
 * and ours for the same settings; print "same" or each difference. */
static int vf_compare(int argc, char **argv)
{
	struct nlattr *theirs[IFLA_VF_MAX + 1], *ours[IFLA_VF_MAX + 1];
	struct cni_vf vf = {0};
	struct nl_msg *a, *b = NULL;
	const char *hex = argv[2];
	size_t len = strlen(hex) / 2;
	unsigned char *buf = calloc(1, len + 4);
	int idx_a, idx_b, diffs = 0;

	for (size_t i = 0; i < len; i++)
		sscanf(hex + 2 * i, "%2hhx", &buf[i]);
	a = nlmsg_convert((struct nlmsghdr *)buf);
	free(buf);
	if (!a || vf_attrs(a, theirs, &idx_a))
		return -EPROTO;
	for (int i = 3; i < argc; i++) {
		char *eq = strchr(argv[i], '=');
		uint64_t v = 0;

		if (!eq)
			return -EINVAL;
		*eq++ = '\0';
		if (!strcmp(argv[i], "mac")) {
			if (parse_mac(eq, vf.mac))
				return -EINVAL;
			vf.mask |= CNI_VF_MAC;
			continue;
		}
		if (parse_u64(eq, 0, UINT64_MAX, &v))
			return -EINVAL;
		if (!strcmp(argv[i], "vf"))
			vf.vf = (uint32_t)v;
		else if (!strcmp(argv[i], "vlan"))
			vf.vlan = (uint32_t)v, vf.mask |= CNI_VF_VLAN;
		else if (!strcmp(argv[i], "qos"))
			vf.qos = (uint32_t)v;
		else if (!strcmp(argv[i], "proto"))
			vf.vlan_proto = (uint16_t)v;
		else if (!strcmp(argv[i], "spoofchk"))
			vf.spoofchk = (uint32_t)v, vf.mask |= CNI_VF_SPOOFCHK;
		else if (!strcmp(argv[i], "trust"))
			vf.trust = (uint32_t)v, vf.mask |= CNI_VF_TRUST;
		else if (!strcmp(argv[i], "min"))
			vf.min_tx_rate = (uint32_t)v, vf.mask |= CNI_VF_RATE;
		else if (!strcmp(argv[i], "max"))
			vf.max_tx_rate = (uint32_t)v, vf.mask |= CNI_VF_RATE;
		else if (!strcmp(argv[i], "state"))
			vf.link_state = (uint32_t)v, vf.mask |= CNI_VF_LINK_STATE;
		else if (!strcmp(argv[i], "node"))
			vf.node_guid = v, vf.mask |= CNI_VF_NODE_GUID;
		else if (!strcmp(argv[i], "port"))
			vf.port_guid = v, vf.mask |= CNI_VF_PORT_GUID;
		else
			return -EINVAL;
	}
	if (cni_link_vf_msg(idx_a, &vf, &b) || vf_attrs(b, ours, &idx_b))
		return -EPROTO;
	for (int t = 1; t <= IFLA_VF_MAX; t++) {
		if (!theirs[t] && !ours[t])
			continue;
		if (!theirs[t] || !ours[t] || nla_len(theirs[t]) != nla_len(ours[t]) ||
		    memcmp(nla_data(theirs[t]), nla_data(ours[t]), (size_t)nla_len(ours[t]))) {
			printf("attribute %d differs (iproute2 %s, ours %s)\n", t,
			       theirs[t] ? "has it" : "lacks it", ours[t] ? "has it" : "lacks it");
			diffs++;
		}
	}
	if (nlmsg_hdr(a)->nlmsg_flags != nlmsg_hdr(b)->nlmsg_flags) {
		printf("flags differ: iproute2 %#x, ours %#x\n", nlmsg_hdr(a)->nlmsg_flags,
		       nlmsg_hdr(b)->nlmsg_flags);
		diffs++;
	}
	if (!diffs)
		printf("same\n");
	nlmsg_free(a);
	nlmsg_free(b);
	return diffs ? 1 : 0;
}

/* ipoib-compare HEX PARENT-IFINDEX NAME PKEY MODE: iproute2's child
 * creation request against ours. */
static int ipoib_compare(int argc, char **argv)
{
	struct nlattr *ta[IFLA_MAX + 1], *tb[IFLA_MAX + 1];
	struct nlattr *la[IFLA_INFO_MAX + 1], *lb[IFLA_INFO_MAX + 1];
	struct nlattr *da[IFLA_IPOIB_MAX + 1], *db[IFLA_IPOIB_MAX + 1];
	struct nl_msg *a, *b = NULL;
	size_t len = strlen(argv[2]) / 2;
	unsigned char *buf = calloc(1, len + 4);
	uint64_t parent, pkey, mode;
	int diffs = 0;

	if (argc < 7 || parse_u64(argv[3], 10, INT32_MAX, &parent) ||
	    parse_u64(argv[5], 0, 0xffff, &pkey) || parse_u64(argv[6], 0, 1, &mode))
		return -EINVAL;
	for (size_t i = 0; i < len; i++)
		sscanf(argv[2] + 2 * i, "%2hhx", &buf[i]);
	a = nlmsg_convert((struct nlmsghdr *)buf);
	free(buf);
	if (!a || cni_link_ipoib_msg((int)parent, argv[4], (uint16_t)pkey, (uint16_t)mode, &b))
		return -EPROTO;
	if (nlmsg_parse(nlmsg_hdr(a), sizeof(struct ifinfomsg), ta, IFLA_MAX, NULL) ||
	    nlmsg_parse(nlmsg_hdr(b), sizeof(struct ifinfomsg), tb, IFLA_MAX, NULL) ||
	    !ta[IFLA_LINKINFO] || !tb[IFLA_LINKINFO] ||
	    nla_parse_nested(la, IFLA_INFO_MAX, ta[IFLA_LINKINFO], NULL) ||
	    nla_parse_nested(lb, IFLA_INFO_MAX, tb[IFLA_LINKINFO], NULL) || !la[IFLA_INFO_DATA] ||
	    !lb[IFLA_INFO_DATA] || nla_parse_nested(da, IFLA_IPOIB_MAX, la[IFLA_INFO_DATA], NULL) ||
	    nla_parse_nested(db, IFLA_IPOIB_MAX, lb[IFLA_INFO_DATA], NULL))
		return -EPROTO;
	for (int t = 1; t <= IFLA_MAX; t++)
		if (!ta[t] != !tb[t] ||
		    (t != IFLA_LINKINFO && ta[t] &&
		     (nla_len(ta[t]) != nla_len(tb[t]) ||
		      memcmp(nla_data(ta[t]), nla_data(tb[t]), (size_t)nla_len(ta[t]))))) {
			printf("attribute %d differs\n", t);
			diffs++;
		}
	if (strcmp(nla_get_string(la[IFLA_INFO_KIND]), nla_get_string(lb[IFLA_INFO_KIND])))
		printf("kind differs\n"), diffs++;
	for (int t = 1; t <= IFLA_IPOIB_MAX; t++)
		if (!da[t] != !db[t] || (da[t] && nla_get_u16(da[t]) != nla_get_u16(db[t])))
			printf("ipoib attribute %d differs\n", t), diffs++;
	if (nlmsg_hdr(a)->nlmsg_flags != nlmsg_hdr(b)->nlmsg_flags)
		printf("flags differ: iproute2 %#x, ours %#x\n", nlmsg_hdr(a)->nlmsg_flags,
		       nlmsg_hdr(b)->nlmsg_flags),
		    diffs++;
	if (!diffs)
		printf("same\n");
	nlmsg_free(a);
	nlmsg_free(b);
	return diffs ? 1 : 0;
}

/* listen IFNAME MS: print the gratuitous ARPs and neighbour advertisements
 * seen on IFNAME for MS milliseconds ("garp IP MAC", "na IP override=N"). */
static int listen_announce(const char *name, const char *ms)
{
	uint64_t wait, deadline;
	struct sockaddr_ll sll = {.sll_family = AF_PACKET, .sll_protocol = htons(0x0003)};
	int fd, idx = ifindex_of(name);

	if (idx < 0 || parse_u64(ms, 10, 60000, &wait))
		return -EINVAL;
	fd = socket(AF_PACKET, SOCK_RAW, htons(0x0003));
	sll.sll_ifindex = idx;
	if (fd < 0 || bind(fd, (struct sockaddr *)&sll, sizeof(sll)) < 0)
		return -errno;
	printf("listening\n");
	fflush(stdout);
	deadline = now_ms() + wait;
	while (now_ms() < deadline) {
		struct pollfd p = {.fd = fd, .events = POLLIN};
		unsigned char f[2048];
		char ip[64];
		ssize_t n;

		if (poll(&p, 1, (int)(deadline - now_ms())) <= 0)
			continue;
		n = recv(fd, f, sizeof(f), 0);
		if (n >= 42 && f[12] == 0x08 && f[13] == 0x06 && f[21] == 1 &&
		    !memcmp(f + 28, f + 38, 4)) {
			inet_ntop(AF_INET, f + 28, ip, sizeof(ip));
			printf("garp %s %02x:%02x:%02x:%02x:%02x:%02x\n", ip, f[22], f[23], f[24],
			       f[25], f[26], f[27]);
		} else if (n >= 78 && f[12] == 0x86 && f[13] == 0xdd && f[20] == 58 &&
			   f[54] == 136) {
			inet_ntop(AF_INET6, f + 62, ip, sizeof(ip));
			printf("na %s override=%d hops=%d\n", ip, !!(f[58] & 0x20), f[21]);
		}
		fflush(stdout);
	}
	close(fd);
	return 0;
}

/* podres SOCKET NS NAME MS: the devices kubelet at SOCKET gives pod NS/NAME,
 * as {"known":..,"ids":[..]}, or "podres CODE MSG: DETAILS" and exit 1. */
static int podres(int argc, char **argv)
{
	struct cni_podres_devices d;
	struct cni_error err = {0};
	uint64_t ms;
	int ret;

	if (argc < 6 || parse_u64(argv[5], 10, 60000, &ms))
		return -EINVAL;
	ret = cni_podres_pod_devices(argv[2], argv[3], argv[4], (unsigned int)ms, &d, &err);
	if (ret == -ENOENT && !err.code)
		return ret;
	if (ret) {
		printf("podres %d %s: %s\n", err.code, err.msg, err.details);
		return 1;
	}
	printf("{\"known\":%s,\"ids\":[", d.known ? "true" : "false");
	for (size_t i = 0; i < d.n; i++)
		printf("%s\"%s\"", i ? "," : "", d.ids[i]);
	printf("]}\n");
	cni_podres_devices_free(&d);
	return 0;
}

/* rdma-ns's node-wide MAC count (softRdmaByMac's proof), optionally with a
 * pod namespace file no directory lists. */
static int count_mac(int argc, char **argv)
{
	unsigned char mac[6];
	struct cni_error err = {0};
	struct cni_netns_mac_scan s = {.mac = mac, .len = 6, .pod_fd = -1};
	_cleanup_close_ int pod = argc > 3 ? cni_netns_open(sys, argv[3], &err) : -1;
	int ret;

	if (parse_mac(argv[2], mac) || (argc > 3 && pod < 0))
		return -EINVAL;
	s.pod_fd = pod;
	ret = cni_netns_count_mac(sys, &s);
	if (ret)
		printf("failed %s\n", s.failed);
	else
		printf("carriers %u\n", s.carriers);
	return ret;
}

static int run(int argc, char **argv)
{
	const char *op = argv[1];
	int idx, ret;
	uint64_t n;

	if (argc < 3)
		return -EINVAL;
	if (!strcmp(op, "show"))
		return show(argv[2]);
	if (!strcmp(op, "pci"))
		return pci(argv[2]);
	if (!strcmp(op, "podres"))
		return podres(argc, argv);
	if (!strcmp(op, "count-mac"))
		return count_mac(argc, argv);
	if (!strcmp(op, "vf-compare"))
		return vf_compare(argc, argv);
	if (!strcmp(op, "ipoib-compare"))
		return ipoib_compare(argc, argv);
	if (!strcmp(op, "listen") && argc > 3)
		return listen_announce(argv[2], argv[3]);
	if (!strcmp(op, "in-netns") && argc > 3) {
		/* Look a link up from inside another namespace, then come back. */
		struct cni_error err = {0};
		_cleanup_close_ int fd = cni_netns_open(sys, argv[2], &err);
		int saved = -1;

		if (fd < 0)
			return fd;
		ret = cni_netns_enter(sys, fd, &saved);
		if (ret)
			return ret;
		ret = show(argv[3]);
		if (cni_netns_restore(sys, &saved) || cni_netns_is_current(sys, fd) == 1)
			return -EIO;
		return ret ? -ENODEV : 0;
	}
	idx = ifindex_of(argv[2]);
	if (idx < 0)
		return idx;
	if (!strcmp(op, "up") || !strcmp(op, "down"))
		return cni_link_set_up(sys, idx, !strcmp(op, "up"));
	if (argc < 4)
		return -EINVAL;
	if (!strcmp(op, "rename"))
		return cni_link_rename(sys, idx, argv[3]);
	if (!strcmp(op, "mtu"))
		return parse_u64(argv[3], 10, UINT32_MAX, &n)
			   ?: cni_link_set_mtu(sys, idx, (unsigned int)n);
	if (!strcmp(op, "mac")) {
		unsigned char mac[6];

		return parse_mac(argv[3], mac) ?: cni_link_set_mac(sys, idx, mac, 6);
	}
	if (!strcmp(op, "move")) {
		struct cni_error err = {0};
		_cleanup_close_ int fd = cni_netns_open(sys, argv[3], &err);

		return fd < 0 ? fd : cni_link_move(sys, idx, fd);
	}
	if (!strcmp(op, "addr") || !strcmp(op, "unaddr") || !strcmp(op, "hasaddr")) {
		struct cni_prefix p;

		if (!cni_prefix_parse(argv[3], &p))
			return -EINVAL;
		if (!strcmp(op, "hasaddr")) {
			ret = cni_link_has_addr(sys, idx, &p);
			if (ret >= 0)
				printf("%s\n", ret ? "yes" : "no");
			return ret < 0 ? ret : 0;
		}
		return !strcmp(op, "addr") ? cni_link_addr_add(sys, idx, &p)
					   : cni_link_addr_del(sys, idx, &p);
	}
	if (!strcmp(op, "route") || !strcmp(op, "hasroute")) {
		struct cni_route rt = {0};

		if (!cni_prefix_parse(argv[3], &rt.dst) ||
		    (argc > 4 && strcmp(argv[4], "-") && !cni_addr_parse(argv[4], &rt.gw)))
			return -EINVAL;
		if (argc > 5 && !parse_u64(argv[5], 10, 65535, &n))
			rt.mtu = (int)n;
		if (argc > 6 && !parse_u64(argv[6], 10, 1u << 31, &n)) {
			rt.has_table = true;
			rt.table = (int)n;
		}
		if (!strcmp(op, "hasroute")) {
			ret = cni_link_has_route(sys, idx, &rt);
			if (ret >= 0)
				printf("%s\n", ret ? "yes" : "no");
			return ret < 0 ? ret : 0;
		}
		return cni_link_route_add(sys, idx, &rt);
	}
	if (!strcmp(op, "vf-trust")) {
		struct cni_vf vf = {.vf = 0, .mask = CNI_VF_TRUST, .trust = 1};

		return cni_link_vf_set(sys, idx, &vf);
	}
	return -EINVAL;
}

int main(int argc, char **argv)
{
	int ret = argc > 1 ? run(argc, argv) : -EINVAL;

	if (ret < 0)
		return fail(ret);
	return ret;
}
