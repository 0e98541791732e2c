/* SPDX-License-Identifier: Apache-2.0 */
/* Addresses as values and as text: IP addresses and prefixes (as Go's net
 * package parses and prints them) and PCI addresses. No I/O. */
#ifndef CNI_ADDR_H
#define CNI_ADDR_H

#include <stdbool.h>
#include <stddef.h>

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

#endif
