/* SPDX-License-Identifier: Apache-2.0 */
/* Force-included into ib-sriov's sources for test_ibsriov_add: every path
 * they use lives under a per-process temporary directory (and into rdma-ns's
 * for test_rdmans_release). */
#ifndef TESTS_FAKE_PATHS_H
#define TESTS_FAKE_PATHS_H

const char *fake_path(const char *what);

#define CNI_PCI_ROOT	    fake_path("sys/bus/pci")
#define IBSRIOV_STATE_DIR   fake_path("state")
#define IBSRIOV_GO_DIR	    fake_path("gostate")
#define IBSRIOV_LOCK_DIR    fake_path("lock")
#define IBSRIOV_DEVINFO_DIR fake_path("devinfo")
#define RDMANS_STATE_DIR    fake_path("rdma-ns")

#endif
