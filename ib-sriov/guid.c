// SPDX-License-Identifier: Apache-2.0
#include "guid.h"
#include "base/util.h"

bool ibsriov_guid_unset(uint64_t guid)
{
	return guid == 0 || guid == UINT64_MAX;
}

bool ibsriov_guid_vendor(uint64_t guid)
{
	return !ibsriov_guid_unset(guid) && !(guid & (IBSRIOV_GUID_LOCAL | IBSRIOV_GUID_GROUP));
}

/* Why this cannot collide (docs/guid.md has the whole argument):
 * - never a vendor GUID, so never a PF's, port's, node's or switch's: the
 *   result has the local bit set, every OUI-assigned GUID has it clear;
 * - never all zeros (the local bit) nor all ones (the group bit stays clear);
 * - for one PF, distinct VF indices give distinct GUIDs (XOR with v << 40
 *   is a bijection, v < 2^16);
 * - two PFs collide only if pf ^ pf' == (v ^ v') << 40: their GUIDs would
 *   differ in OUI bytes 1-2 alone. PFs of one OUI differ in the vendor's
 *   40 low bits, so never; nor PFs of OUIs that differ in byte 0 or in a
 *   bit no VF index reaches.
 * The VF index goes into the OUI, not the low bits: vendors number ports
 * and HCAs consecutively there, so pf + v would be a neighbour PF's + v'. */
uint64_t ibsriov_guid_derive(uint64_t pf, unsigned int vf)
{
	if (!ibsriov_guid_vendor(pf) || vf > 0xffff)
		return 0;
	return pf ^ IBSRIOV_GUID_LOCAL ^ ((uint64_t)vf << IBSRIOV_GUID_VF_SHIFT);
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

bool ibsriov_pkey_parse(const char *s, uint16_t *pkey)
{
	uint64_t v;

	if (parse_u64(s, 0, 0xffff, &v) || !(v & 0x7fff))
		return false;
	*pkey = (uint16_t)v;
	return true;
}
