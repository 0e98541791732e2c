/* SPDX-License-Identifier: Apache-2.0 */
/* "waitPortActiveMs" (portwait.c): the VF's RDMA port ACTIVE before ADD
 * goes on, or the ADD rolls back naming the state and the fix. */
#ifndef IBSRIOV_PORTWAIT_H
#define IBSRIOV_PORTWAIT_H

struct add;

/* Code 7 (nothing changed yet) when waitPortActiveMs is set for a VF that
 * has no kernel RDMA device (vfio-pci, none in sysfs). */
int ibsriov_port_wait_fits(struct add *a);

/* After the netdev is up in the pod: poll port 1 of the VF's RDMA device
 * until ACTIVE, at most waitPortActiveMs; code 11 naming the state and the
 * fix on timeout. 0 at once when the key is 0. */
int ibsriov_port_wait(struct add *a);

#endif
