// SPDX-License-Identifier: Apache-2.0
#include <arpa/inet.h>
#include <ctype.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/addr.h"
#include "base/util.h"

/* IPv4-mapped IPv6 addresses are IPv4, as Go's To4() says. */
static void normalise(int *family, unsigned char *a)
{
	static const unsigned char mapped[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};

	if (*family == AF_INET6 && !memcmp(a, mapped, 12)) {
		memmove(a, a + 12, 4);
		memset(a + 4, 0, 12);
		*family = AF_INET;
	}
}

bool cni_addr_parse(const char *s, struct cni_addr *a)
{
	memset(a, 0, sizeof(*a));
	if (inet_pton(AF_INET, s, a->a) == 1)
		a->family = AF_INET;
	else if (inet_pton(AF_INET6, s, a->a) == 1)
		a->family = AF_INET6;
	else
		return false;
	normalise(&a->family, a->a);
	return true;
}

bool cni_prefix_parse(const char *s, struct cni_prefix *p)
{
	const char *slash = strchr(s, '/');
	struct cni_addr a;
	char ip[INET6_ADDRSTRLEN];
	uint64_t len;
	bool mapped;

	memset(p, 0, sizeof(*p));
	if (!slash || (size_t)(slash - s) >= sizeof(ip))
		return false;
	memcpy(ip, s, (size_t)(slash - s));
	ip[slash - s] = '\0';
	mapped = strchr(ip, ':') != NULL;
	if (!cni_addr_parse(ip, &a))
		return false;
	/* Digits only: Go's ParseCIDR rejects signs and leading junk. */
	if (!slash[1] || strspn(slash + 1, "0123456789") != strlen(slash + 1))
		return false;
	if (parse_u64(slash + 1, 10, mapped ? 128 : 32, &len))
		return false;
	if (mapped && a.family == AF_INET) {
		if (len < 96)
			return false;
		len -= 96;
	}
	p->family = a.family;
	memcpy(p->a, a.a, sizeof(p->a));
	p->len = (unsigned int)len;
	return true;
}

const char *cni_addr_str(const struct cni_addr *a, char *buf, size_t len)
{
	if (!a->family || !inet_ntop(a->family, a->a, buf, (socklen_t)len))
		return copy_str(buf, len, "<nil>") ? "" : buf;
	return buf;
}

const char *cni_prefix_str(const struct cni_prefix *p, char *buf, size_t len)
{
	char ip[INET6_ADDRSTRLEN];
	struct cni_addr a = {.family = p->family};

	memcpy(a.a, p->a, sizeof(a.a));
	cni_addr_str(&a, ip, sizeof(ip));
	if (check_snprintf(buf, len, "%s/%u", ip, p->len))
		return "";
	return buf;
}

static bool hex_run(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		char c = s[i];

		if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F')))
			return false;
	}
	return true;
}

bool cni_pci_addr_parse(const char *s, char out[CNI_PCI_ADDR_LEN])
{
	char buf[CNI_PCI_ADDR_LEN];
	size_t len = s ? strlen(s) : 0;

	if (len == 7 && check_snprintf(buf, sizeof(buf), "0000:%s", s) == 0)
		s = buf;
	else if (len != 12)
		return false;
	if (!hex_run(s, 4) || s[4] != ':' || !hex_run(s + 5, 2) || s[7] != ':' ||
	    !hex_run(s + 8, 2) || s[10] != '.' || s[11] < '0' || s[11] > '7')
		return false;
	for (int i = 0; i < 12; i++)
		out[i] = (char)((s[i] >= 'A' && s[i] <= 'F') ? s[i] - 'A' + 'a' : s[i]);
	out[12] = '\0';
	/* Device numbers stop at 0x1f. */
	return strtoul(out + 8, NULL, 16) <= 0x1f;
}

bool cni_hw_parse(const char *s, unsigned char *out, size_t n)
{
	return cni_hex_parse(s, out, n);
}

bool cni_hw_parse_len(const char *s, unsigned char *out, unsigned int max, unsigned int *len)
{
	size_t chars = strlen(s), n = (chars + 1) / 3;

	*len = 0;
	/* "xx" and ":xx" per byte after it: 3n - 1 characters. */
	if (!n || n > max || chars != 3 * n - 1 || !cni_hex_parse(s, out, n))
		return false;
	*len = (unsigned int)n;
	return true;
}

bool cni_mac_parse(const char *s, unsigned char mac[6])
{
	static const unsigned char zero[6];

	return cni_hw_parse(s, mac, 6) && memcmp(mac, zero, 6) && !(mac[0] & 1);
}

const char *cni_hw_str(const unsigned char *hw, size_t n, char *buf, size_t len)
{
	/* "xx:" a byte, the last one's colon the NUL: as many as fit. */
	cni_hex_str(hw, n < len / 3 ? n : len / 3, ':', buf, len);
	return buf;
}

bool cni_guid_parse(const char *s, uint64_t *guid)
{
	unsigned char b[8];

	if (!cni_hw_parse(s, b, 8))
		return false;
	*guid = 0;
	for (int i = 0; i < 8; i++)
		*guid = *guid << 8 | b[i];
	return true;
}

const char *cni_guid_str(uint64_t guid, char *buf, size_t len)
{
	unsigned char b[8];

	for (int i = 7; i >= 0; i--, guid >>= 8)
		b[i] = (unsigned char)(guid & 0xff);
	return cni_hw_str(b, 8, buf, len);
}

bool cni_rdma_name_valid(const char *name)
{
	size_t len = strlen(name);

	if (!len || len >= CNI_RDMA_NAME_MAX || !isalnum((unsigned char)name[0]))
		return false;
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)name[i];

		if (!isascii(c) || !(isalnum(c) || strchr("_-.:", c)))
			return false;
	}
	return true;
}
