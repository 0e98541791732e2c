/* SPDX-License-Identifier: Apache-2.0 */
/* Addresses and names as values and as text: IP addresses and prefixes (as
 * Go's net package parses and prints them), PCI addresses, hardware
 * addresses (MACs, IPoIB's, GUIDs) and RDMA device names. No I/O. */
#ifndef CNI_ADDR_H
#define CNI_ADDR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define CNI_PCI_ADDR_LEN 13 /* "dddd:bb:dd.f" + NUL */

/* family is 0 when unset, else AF_INET or AF_INET6. */
struct cni_addr {
	int family;
	unsigned char a[16];
};

struct cni_prefix {
	int family;
	unsigned char a[16];
	unsigned int len;
};

struct cni_route {
	struct cni_prefix dst;
	struct cni_addr gw;
	int mtu, advmss, priority;
	bool has_table, has_scope;
	int table, scope;
};

/* Address parsing and printing as Go's net package does. */
bool cni_addr_parse(const char *s, struct cni_addr *a);
bool cni_prefix_parse(const char *s, struct cni_prefix *p);
const char *cni_addr_str(const struct cni_addr *a, char *buf, size_t len);
const char *cni_prefix_str(const struct cni_prefix *p, char *buf, size_t len);

/* Normalise a PCI address ("bb:dd.f" gains domain 0000; hex lower-cased)
 * into out; false when it is not dddd:bb:dd.f. */
bool cni_pci_addr_parse(const char *s, char out[CNI_PCI_ADDR_LEN]);

/* Exactly n bytes "xx:xx:..." (hex, either case; any value, zero included)
 * into out. */
bool cni_hw_parse(const char *s, unsigned char *out, size_t n);

/* A hardware address of any length, 1 to max bytes "xx:xx:..." (an
 * Ethernet MAC, IPoIB's 20 bytes), into out; *len how many. */
bool cni_hw_parse_len(const char *s, unsigned char *out, unsigned int max, unsigned int *len);

/* A unicast Ethernet MAC "xx:xx:xx:xx:xx:xx" (not zero, not multicast). */
bool cni_mac_parse(const char *s, unsigned char mac[6]);

/* Lower-case "xx:xx:..." of any hardware address into buf, as many bytes
 * as fit; returns buf. */
const char *cni_hw_str(const unsigned char *hw, size_t n, char *buf, size_t len);

/* A GUID "xx:xx:xx:xx:xx:xx:xx:xx" (hex, either case) into a host-order u64
 * whose first byte is the most significant, as the kernel's ifla_vf_guid
 * wants and ibstat prints. */
bool cni_guid_parse(const char *s, uint64_t *guid);

/* Lower-case "xx:...:xx" of guid into buf (at least 24 bytes); returns buf. */
const char *cni_guid_str(uint64_t guid, char *buf, size_t len);

/* An RDMA device name with its NUL: the kernel's IB_DEVICE_NAME_MAX (not in
 * the uapi headers). The one bound for RDMA names, sysfs and netlink alike. */
#define CNI_RDMA_NAME_MAX 64

/* Whether name may be given to an RDMA device: 1 to CNI_RDMA_NAME_MAX - 1
 * bytes of letters, digits, '_', '-', '.' and ':', a letter or digit first.
 * A strict subset of what the kernel takes (no '/', no '%' format, no
 * spaces), so that it reads the same in sysfs, verbs and NCCL_IB_HCA. */
bool cni_rdma_name_valid(const char *name);

#endif
