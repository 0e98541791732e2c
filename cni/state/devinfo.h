/* SPDX-License-Identifier: Apache-2.0 */
/* CNI Plugin Device Information Files (Network Plumbing WG Device
 * Information Specification 1.1.0, k8snetworkplumbingwg/device-info-spec
 * SPEC.md section 4.2): one JSON file per network attachment directly in
 * /var/run/k8s.cni.cncf.io/devinfo/cni/, which the NPWG implementation
 * (Multus) copies into the pod's network-status "device-info". Names and
 * directories only here; what the file says is the plugin's. */
#ifndef CNI_STATE_DEVINFO_H
#define CNI_STATE_DEVINFO_H

#include <stddef.h>

/* The directory as we open it: /var/run is a link to /run on every
 * distribution we support, and no link is ever followed. */
#define CNI_DEVINFO_DIR "/run/k8s.cni.cncf.io/devinfo/cni"
/* The spec's spelling, which runtimeConfig.CNIDeviceInfoFile carries. */
#define CNI_DEVINFO_SPEC_DIR "/var/run/k8s.cni.cncf.io/devinfo/cni"
/* The version of the specification the files follow ("version"). */
#define CNI_DEVINFO_VERSION "1.1.0"

/* The file name for an attachment. path (runtimeConfig.CNIDeviceInfoFile,
 * may be NULL) must name a file directly in the spec's directory (either
 * spelling) whose name ends in "-<id>_<ifname>" (this attachment's: Multus
 * always passes that); else the name is the one Multus generates for the
 * attachment, "<network>-<containerID>_<ifname>" (its delegateRuntimeConfig
 * with network-attachment-definition-client's GetCNIDeviceInfoPath). The
 * name (and network) must pass cni_state_name_valid: -EINVAL (a network
 * name outside the CNI spec's charset, a path elsewhere or with a link
 * component such as "..") or -ENAMETOOLONG; out holds the name on 0. */
int cni_devinfo_name(const char *path, const char *network, const char *id, const char *ifname,
		     char *out, size_t len);

/* Write text as dir/name atomically (".<name>.tmp", 0600, renamed over
 * name: a planted link at name is replaced, never followed), dir and its
 * missing parents created 0700, no link followed on the way. 0 or -errno. */
int cni_devinfo_write(const char *dir, const char *name, const char *text);

/* Remove dir/name and its temp file; absent (file or dir) is success, and
 * so is a directory that is a link or not a directory (nothing was written
 * through it) and a directory at the name (never ours). */
int cni_devinfo_remove(const char *dir, const char *name);

#endif
