/* SPDX-License-Identifier: Apache-2.0 */
/* The InfiniBand rules for the values ib-sriov configures (pure;
 * unit-tested); GUIDs and MACs as text are base/addr.h's. */
#ifndef IBSRIOV_GUID_H
#define IBSRIOV_GUID_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/addr.h"

/* All zeros or all ones: what an unassigned VF reports. */
bool ibsriov_guid_unset(uint64_t guid);

/* Byte 0 of an EUI-64 GUID: the universal/local bit (set: locally
 * administered) and the individual/group bit, as in a MAC address. */
#define IBSRIOV_GUID_LOCAL    (UINT64_C(0x02) << 56)
#define IBSRIOV_GUID_GROUP    (UINT64_C(0x01) << 56)
#define IBSRIOV_GUID_VF_SHIFT 40 /* the VF index goes into bits 40..55 */

/* A GUID a vendor assigned from its OUI block: universal, individual, not
 * unset. Only these are unique in the fabric by construction. */
bool ibsriov_guid_vendor(uint64_t guid);

/* guidFallback's GUID of VF vf (0..65535) of the PF whose port GUID is pf
 * (a vendor GUID): pf with the local bit set and vf XORed into bits 40..55.
 * Injective in (pf, vf) as docs/guid.md proves; 0 when pf is no vendor GUID
 * or vf is out of range. */
uint64_t ibsriov_guid_derive(uint64_t pf, unsigned int vf);

/* The port GUID of a 20-byte IPoIB hardware address (bytes 12..19). */
uint64_t ibsriov_guid_from_hwaddr(const unsigned char *hw, size_t len);

/* A partition key "0x8001" or "32769": 15-bit key plus the membership bit;
 * a key of 0 (0x0000, 0x8000) is refused. */
bool ibsriov_pkey_parse(const char *s, uint16_t *pkey);

#endif
