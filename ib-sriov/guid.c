// SPDX-License-Identifier: Apache-2.0
#include <stdio.h>
#include <string.h>

#include "guid.h"
#include "base/util.h"

bool ibsriov_hw_parse(const char *s, unsigned char *out, size_t n)
{
	return cni_hex_parse(s, out, n);
}

bool ibsriov_guid_parse(const char *s, uint64_t *guid)
{
	unsigned char b[8];

	if (!ibsriov_hw_parse(s, b, 8))
		return false;
	*guid = 0;
	for (int i = 0; i < 8; i++)
		*guid = *guid << 8 | b[i];
	return true;
}

bool ibsriov_guid_unset(uint64_t guid)
{
	return guid == 0 || guid == UINT64_MAX;
}

const char *ibsriov_guid_str(uint64_t guid, char *buf, size_t len)
{
	unsigned char b[8];

	for (int i = 7; i >= 0; i--, guid >>= 8)
		b[i] = (unsigned char)(guid & 0xff);
	return ibsriov_hw_str(b, 8, buf, len);
}

uint64_t ibsriov_guid_from_hwaddr(const unsigned char *hw, size_t len)
{
	uint64_t g = 0;

	if (len != 20)
		return 0;
	for (int i = 12; i < 20; i++)
		g = g << 8 | hw[i];
	return g;
}

bool ibsriov_mac_parse(const char *s, unsigned char mac[6])
{
	static const unsigned char zero[6];

	return ibsriov_hw_parse(s, mac, 6) && memcmp(mac, zero, 6) && !(mac[0] & 1);
}

const char *ibsriov_hw_str(const unsigned char *hw, size_t n, char *buf, size_t len)
{
	/* "xx:" a byte, the last one's colon the NUL: as many as fit. */
	cni_hex_str(hw, n < len / 3 ? n : len / 3, ':', buf, len);
	return buf;
}

bool ibsriov_pkey_parse(const char *s, uint16_t *pkey)
{
	uint64_t v;

	if (parse_u64(s, 0, 0xffff, &v) || !(v & 0x7fff))
		return false;
	*pkey = (uint16_t)v;
	return true;
}
