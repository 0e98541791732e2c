// SPDX-License-Identifier: Apache-2.0
#include <arpa/inet.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "range.h"
#include "base/util.h"

static size_t alen(int family)
{
	return family == AF_INET ? 4 : 16;
}

int ipam_addr_cmp(const struct cni_addr *a, const struct cni_addr *b)
{
	if (a->family != b->family)
		return a->family - b->family;
	return memcmp(a->a, b->a, alen(a->family));
}

bool ipam_addr_next(const struct cni_addr *a, struct cni_addr *out)
{
	*out = *a;
	for (size_t i = alen(a->family); i-- > 0;) {
		if (++out->a[i])
			return true;
	}
	*out = *a;
	return false;
}

static void masked(const struct cni_prefix *p, struct cni_addr *out, bool ones)
{
	size_t n = alen(p->family);

	memset(out, 0, sizeof(*out));
	out->family = p->family;
	for (size_t i = 0; i < n; i++) {
		unsigned int bits = p->len > i * 8 ? p->len - (unsigned int)i * 8 : 0;
		unsigned char mask = bits >= 8 ? 0xff : (unsigned char)(0xff << (8 - bits));

		out->a[i] = (unsigned char)((p->a[i] & mask) | (ones ? ~mask & 0xff : 0));
	}
}

void ipam_prefix_first(const struct cni_prefix *p, struct cni_addr *out)
{
	masked(p, out, false);
}

void ipam_prefix_last(const struct cni_prefix *p, struct cni_addr *out)
{
	masked(p, out, true);
}

bool ipam_prefix_contains(const struct cni_prefix *p, const struct cni_addr *addr)
{
	struct cni_prefix q = {.family = addr->family, .len = p->len};
	struct cni_addr a, b;

	if (addr->family != p->family)
		return false;
	memcpy(q.a, addr->a, sizeof(q.a));
	ipam_prefix_first(p, &a);
	ipam_prefix_first(&q, &b);
	return !ipam_addr_cmp(&a, &b);
}

bool ipam_range_reserved(const struct ipam_range *r, const struct cni_addr *addr)
{
	struct cni_addr net, bcast;

	if (addr->family != AF_INET)
		return false;
	ipam_prefix_first(&r->subnet, &net);
	ipam_prefix_last(&r->subnet, &bcast);
	return !ipam_addr_cmp(addr, &net) || !ipam_addr_cmp(addr, &bcast);
}

bool ipam_range_contains(const struct ipam_range *r, const struct cni_addr *addr)
{
	return addr->family == r->subnet.family && ipam_prefix_contains(&r->subnet, addr) &&
	       ipam_addr_cmp(addr, &r->start) >= 0 && ipam_addr_cmp(addr, &r->end) <= 0;
}

int ipam_rangeset_find(const struct ipam_rangeset *s, const struct cni_addr *addr)
{
	for (size_t i = 0; i < s->n; i++)
		if (ipam_range_contains(&s->r[i], addr))
			return (int)i;
	return -1;
}

const char *ipam_range_str(const struct ipam_range *r, char *buf, size_t len)
{
	char a[INET6_ADDRSTRLEN], b[INET6_ADDRSTRLEN];

	snprintf(buf, len, "%s-%s", cni_addr_str(&r->start, a, sizeof(a)),
		 cni_addr_str(&r->end, b, sizeof(b)));
	return buf;
}

const char *ipam_rangeset_str(const struct ipam_rangeset *s, char *buf, size_t len)
{
	size_t used = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < s->n && used < len; i++) {
		char one[2 * INET6_ADDRSTRLEN + 2];

		snprintf(buf + used, len - used, "%s%s", i ? "," : "",
			 ipam_range_str(&s->r[i], one, sizeof(one)));
		used = strlen(buf);
	}
	return buf;
}

/* Explain a refusal in why (truncated if need be) and return -EINVAL. */
__attribute__((format(printf, 3, 4))) static int bad(char *why, size_t len, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, len, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

static int parse_in_subnet(const struct ipam_range *r, const char *s, const char *what,
			   struct cni_addr *out, char *why, size_t len)
{
	char net[INET6_ADDRSTRLEN + 8];

	if (!cni_addr_parse(s, out))
		return bad(why, len, "%s: invalid IP address %s", what, s);
	if (!ipam_prefix_contains(&r->subnet, out)) {
		snprintf(why, len, "%s %s not in network %s", what, s,
			 cni_prefix_str(&r->subnet, net, sizeof(net)));
		return -EINVAL;
	}
	return 0;
}

int ipam_range_parse(struct ipam_range *r, const struct ipam_range_spec *spec, char *why,
		     size_t len)
{
	const char *subnet = spec->subnet, *start = spec->start, *end = spec->end;
	const char *gateway = spec->gateway;
	char net[INET6_ADDRSTRLEN + 8], a[INET6_ADDRSTRLEN], b[INET6_ADDRSTRLEN];
	struct cni_addr first, last;
	unsigned int bits;
	int ret;

	memset(r, 0, sizeof(*r));
	if (!subnet || !*subnet)
		return bad(why, len, "no subnet given for a range");
	if (!cni_prefix_parse(subnet, &r->subnet))
		return bad(why, len, "invalid CIDR address: %s", subnet);
	bits = r->subnet.family == AF_INET ? 32 : 128;
	cni_prefix_str(&r->subnet, net, sizeof(net));
	if (bits - r->subnet.len < 2)
		return bad(why, len, "Network %s too small to allocate from", net);
	ipam_prefix_first(&r->subnet, &first);
	ipam_prefix_last(&r->subnet, &last);
	if (memcmp(first.a, r->subnet.a, sizeof(first.a))) {
		snprintf(why, len,
			 "Network has host bits set. For a subnet mask of length %u the network "
			 "address is %s",
			 r->subnet.len, cni_addr_str(&first, a, sizeof(a)));
		return -EINVAL;
	}
	memcpy(r->subnet.a, first.a, sizeof(r->subnet.a));
	cni_prefix_str(&r->subnet, net, sizeof(net));

	if (gateway && *gateway) {
		ret = parse_in_subnet(r, gateway, "gateway", &r->gateway, why, len);
		if (ret)
			return ret;
	} else {
		ipam_addr_next(&first, &r->gateway);
	}
	if (start && *start) {
		ret = parse_in_subnet(r, start, "RangeStart", &r->start, why, len);
		if (ret)
			return ret;
	} else {
		ipam_addr_next(&first, &r->start);
	}
	if (end && *end) {
		ret = parse_in_subnet(r, end, "RangeEnd", &r->end, why, len);
		if (ret)
			return ret;
	} else {
		r->end = last;
		if (r->subnet.family == AF_INET)
			r->end.a[3]--; /* the broadcast address; never .0 after a /30 at most */
	}
	if (ipam_addr_cmp(&r->start, &r->end) > 0)
		return bad(why, len, "rangeStart %s is after rangeEnd %s",
			   cni_addr_str(&r->start, a, sizeof(a)),
			   cni_addr_str(&r->end, b, sizeof(b)));
	if (!ipam_range_size(r))
		return bad(why, len,
			   "range %s-%s has no address that can be leased (network, broadcast and "
			   "gateway are never leased)",
			   cni_addr_str(&r->start, a, sizeof(a)),
			   cni_addr_str(&r->end, b, sizeof(b)));
	return 0;
}

static bool ranges_overlap(const struct ipam_range *x, const struct ipam_range *y)
{
	if (x->subnet.family != y->subnet.family)
		return false;
	return ipam_addr_cmp(&x->start, &y->end) <= 0 && ipam_addr_cmp(&y->start, &x->end) <= 0;
}

int ipam_rangeset_check(const struct ipam_rangeset *s, char *why, size_t len)
{
	char a[128], b[128];

	if (!s->n)
		return bad(why, len, "empty range set");
	for (size_t i = 0; i < s->n; i++) {
		if (s->r[i].subnet.family != s->r[0].subnet.family)
			return bad(why, len, "mixed address families");
		for (size_t j = 0; j < i; j++) {
			if (ranges_overlap(&s->r[i], &s->r[j]))
				return bad(why, len, "subnets %s and %s overlap",
					   ipam_range_str(&s->r[j], a, sizeof(a)),
					   ipam_range_str(&s->r[i], b, sizeof(b)));
		}
	}
	return 0;
}

bool ipam_rangesets_overlap(const struct ipam_rangeset *a, const struct ipam_rangeset *b)
{
	for (size_t i = 0; i < a->n; i++)
		for (size_t j = 0; j < b->n; j++)
			if (ranges_overlap(&a->r[i], &b->r[j]))
				return true;
	return false;
}

unsigned long long ipam_range_size(const struct ipam_range *r)
{
	size_t n = alen(r->start.family);
	unsigned long long size = 0;
	struct cni_addr diff;
	int borrow = 0;

	/* end - start + 1, in 128-bit arithmetic, saturated to 64 bits. */
	diff.family = r->start.family;
	for (size_t i = n; i-- > 0;) {
		int d = r->end.a[i] - r->start.a[i] - borrow;

		borrow = d < 0;
		diff.a[i] = (unsigned char)(d + (borrow ? 256 : 0));
	}
	for (size_t i = 0; i < n; i++) {
		if (i + 8 < n && diff.a[i])
			return ~0ULL;
		if (i + 8 >= n)
			size = (size << 8) | diff.a[i];
	}
	if (size == ~0ULL)
		return size;
	size++;
	if (r->gateway.family && ipam_range_contains(r, &r->gateway))
		size--;
	for (int k = 0; k < 2 && r->start.family == AF_INET; k++) {
		struct cni_addr edge;

		if (k)
			ipam_prefix_last(&r->subnet, &edge);
		else
			ipam_prefix_first(&r->subnet, &edge);
		if (ipam_range_contains(r, &edge) && ipam_addr_cmp(&edge, &r->gateway))
			size--;
	}
	return size;
}

bool ipam_range_at(const struct ipam_range *r, unsigned long long index, struct cni_addr *out)
{
	size_t n = alen(r->start.family);
	unsigned int carry = 0;

	/* start + index with a carry through every byte: an index that wraps
	 * past the family's last address leaves a carry and is refused. */
	*out = r->start;
	for (size_t i = n; i-- > 0;) {
		unsigned int sum = out->a[i] + (unsigned int)(index & 0xff) + carry;

		out->a[i] = (unsigned char)sum;
		carry = sum >> 8;
		index >>= 8;
	}
	if (carry || index || ipam_addr_cmp(out, &r->end) > 0) {
		*out = r->start;
		return false;
	}
	return true;
}
