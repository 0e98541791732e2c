// SPDX-License-Identifier: Apache-2.0
#include <arpa/inet.h>
#include <errno.h>
#include <linux/if_packet.h>
#include <net/ethernet.h>
#include <net/if_arp.h>
#include <netinet/icmp6.h>
#include <netinet/in.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "announce.h"
#include "cleanup.h"

struct garp {
	struct arphdr h;
	unsigned char sha[6], spa[4], tha[6], tpa[4];
} __attribute__((packed));

static int announce_v4(int ifindex, const unsigned char mac[6], const unsigned char ip[4])
{
	_cleanup_close_ int fd = socket(AF_PACKET, SOCK_DGRAM | SOCK_CLOEXEC, htons(ETH_P_ARP));
	struct sockaddr_ll to = { .sll_family = AF_PACKET, .sll_protocol = htons(ETH_P_ARP),
				  .sll_ifindex = ifindex, .sll_halen = 6,
				  .sll_addr = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff } };
	struct garp p = { .h = { .ar_hrd = htons(ARPHRD_ETHER), .ar_pro = htons(ETH_P_IP),
				 .ar_hln = 6, .ar_pln = 4, .ar_op = htons(ARPOP_REQUEST) } };

	if (fd < 0)
		return -errno;
	/* A request whose sender and target are both the new address. */
	memcpy(p.sha, mac, 6);
	memcpy(p.spa, ip, 4);
	memcpy(p.tpa, ip, 4);
	if (sendto(fd, &p, sizeof(p), 0, (struct sockaddr *)&to, sizeof(to)) < 0)
		return -errno;
	return 0;
}

struct una {
	struct nd_neighbor_advert na;
	struct nd_opt_hdr opt;
	unsigned char lladdr[6];
} __attribute__((packed));

static int announce_v6(int ifindex, const unsigned char mac[6], const unsigned char ip[16])
{
	_cleanup_close_ int fd = socket(AF_INET6, SOCK_RAW | SOCK_CLOEXEC, IPPROTO_ICMPV6);
	struct sockaddr_in6 to = { .sin6_family = AF_INET6, .sin6_scope_id = (uint32_t)ifindex };
	struct una p = { 0 };
	int hops = 255;
	unsigned int idx = (unsigned int)ifindex;

	if (fd < 0)
		return -errno;
	inet_pton(AF_INET6, "ff02::1", &to.sin6_addr);
	/* Receivers drop neighbour discovery that crossed a router. */
	if (setsockopt(fd, IPPROTO_IPV6, IPV6_MULTICAST_HOPS, &hops, sizeof(hops)) < 0 ||
	    setsockopt(fd, IPPROTO_IPV6, IPV6_MULTICAST_IF, &idx, sizeof(idx)) < 0)
		return -errno;
	p.na.nd_na_type = ND_NEIGHBOR_ADVERT;
	p.na.nd_na_flags_reserved = ND_NA_FLAG_OVERRIDE;
	memcpy(&p.na.nd_na_target, ip, 16);
	p.opt.nd_opt_type = ND_OPT_TARGET_LINKADDR;
	p.opt.nd_opt_len = 1;	/* in units of 8 bytes */
	memcpy(p.lladdr, mac, 6);
	if (sendto(fd, &p, sizeof(p), 0, (struct sockaddr *)&to, sizeof(to)) < 0)
		return -errno;
	return 0;
}

int cni_announce(int ifindex, const unsigned char mac[6], const struct cni_prefix *addr)
{
	if (addr->family == AF_INET)
		return announce_v4(ifindex, mac, addr->a);
	if (addr->family == AF_INET6)
		return announce_v6(ifindex, mac, addr->a);
	return -EAFNOSUPPORT;
}
