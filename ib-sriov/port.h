/* SPDX-License-Identifier: Apache-2.0 */
/* An RDMA port's state told as a fix (port.c), for ADD and the doctor. */
#ifndef IBSRIOV_PORT_H
#define IBSRIOV_PORT_H

#include <stdbool.h>

/* What to do about a port in state (CNI_VERBS_PORT_*) and physical state
 * phys (0 unknown), on InfiniBand (ib) or RoCE: a static text. */
const char *ibsriov_port_fix(int state, unsigned int phys, bool ib);

#endif
