// SPDX-License-Identifier: Apache-2.0
/* Drives cni/link.c, cni/netns.c and cni/pci.c from the netns tier so the
 * scripts can check the kernel's state with `ip -j` afterwards.
 * Usage: cnihelper OP ARGS...; prints a JSON line or the errno name. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cleanup.h"
#include "link.h"
#include "netns.h"
#include "pci.h"
#include "util.h"

static int ifindex_of(const char *name)
{
	struct cni_link l;
	int ret = cni_link_get(name, 0, &l);

	return ret ? ret : l.ifindex;
}

static int fail(int ret)
{
	const char *ack = cni_link_ext_ack();

	printf("error %s%s%s\n", strerrorname_np(-ret) ? strerrorname_np(-ret) : "?",
	       *ack ? ": " : "", ack);
	return 1;
}

static int show(const char *name)
{
	struct cni_link l;
	int ret = cni_link_get(name, 0, &l);

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
	       "\"rdma\":\"%s\"}\n", vf.pf_addr, vf.vf_index, vf.pf_netdev, vf.netdev, vf.driver,
	       vf.rdma_dev);
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
	if (!strcmp(op, "in-netns") && argc > 3) {
		/* Look a link up from inside another namespace, then come back. */
		struct cni_error err = { 0 };
		_cleanup_close_ int fd = cni_netns_open(argv[2], &err);
		int saved = -1;

		if (fd < 0)
			return fd;
		ret = cni_netns_enter(fd, &saved);
		if (ret)
			return ret;
		ret = show(argv[3]);
		if (cni_netns_restore(&saved) || cni_netns_is_current(fd) == 1)
			return -EIO;
		return ret ? -ENODEV : 0;
	}
	idx = ifindex_of(argv[2]);
	if (idx < 0)
		return idx;
	if (!strcmp(op, "up") || !strcmp(op, "down"))
		return cni_link_set_up(idx, !strcmp(op, "up"));
	if (argc < 4)
		return -EINVAL;
	if (!strcmp(op, "rename"))
		return cni_link_rename(idx, argv[3]);
	if (!strcmp(op, "mtu"))
		return parse_u64(argv[3], 10, UINT32_MAX, &n) ?: cni_link_set_mtu(idx, (unsigned int)n);
	if (!strcmp(op, "mac")) {
		unsigned char mac[6];

		return parse_mac(argv[3], mac) ?: cni_link_set_mac(idx, mac, 6);
	}
	if (!strcmp(op, "move")) {
		struct cni_error err = { 0 };
		_cleanup_close_ int fd = cni_netns_open(argv[3], &err);

		return fd < 0 ? fd : cni_link_move(idx, fd);
	}
	if (!strcmp(op, "addr") || !strcmp(op, "unaddr") || !strcmp(op, "hasaddr")) {
		struct cni_prefix p;

		if (!cni_prefix_parse(argv[3], &p))
			return -EINVAL;
		if (!strcmp(op, "hasaddr")) {
			ret = cni_link_has_addr(idx, &p);
			if (ret >= 0)
				printf("%s\n", ret ? "yes" : "no");
			return ret < 0 ? ret : 0;
		}
		return !strcmp(op, "addr") ? cni_link_addr_add(idx, &p) : cni_link_addr_del(idx, &p);
	}
	if (!strcmp(op, "route") || !strcmp(op, "hasroute")) {
		struct cni_route rt = { 0 };

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
			ret = cni_link_has_route(idx, &rt);
			if (ret >= 0)
				printf("%s\n", ret ? "yes" : "no");
			return ret < 0 ? ret : 0;
		}
		return cni_link_route_add(idx, &rt);
	}
	if (!strcmp(op, "vf-trust")) {
		struct cni_vf vf = { .vf = 0, .mask = CNI_VF_TRUST, .trust = 1 };

		return cni_link_vf_set(idx, &vf);
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
