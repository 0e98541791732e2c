/* SPDX-License-Identifier: Apache-2.0 */
/* Paths a NAD names (ipam.dataDir, ipam.resolvConf): confined to directories
 * the node allows, and to filesystems where creating a directory or reading
 * a file has no effect beyond the file itself. */
#ifndef CNI_CONFINE_H
#define CNI_CONFINE_H

#include <stdbool.h>
#include <stddef.h>

#include "base/path.h"

/* Open dir (normalised; root itself or below it, root normalised) as
 * cni_state_opendir(dir, flags) does: no link followed anywhere. With
 * CNI_DIR_CREATE only root and what is below it are created, each in a
 * directory on an ordinary filesystem, and root's parent must exist
 * (-ENOENT otherwise). The directory opened is on an ordinary filesystem
 * (-EXDEV, *fs as cni_fs_ordinary says, before anything is created in a
 * directory that is not). Returns the fd or -errno. */
int cni_state_opendir_under(const char *root, const char *dir, unsigned int flags, const char **fs,
			    char *buf, size_t len);

#endif
