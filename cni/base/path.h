/* SPDX-License-Identifier: Apache-2.0 */
/* Paths as text (normalised, under a root) and the filesystem a path or fd
 * is on: the checks a configured path passes before anything is opened. */
#ifndef CNI_PATH_H
#define CNI_PATH_H

#include <stdbool.h>
#include <stddef.h>

/* path (absolute) into out[len] without empty, "." or ".." components or a
 * trailing slash ("/" stays "/"): nothing is resolved, so ".." is refused
 * rather than guessed. 0, -EINVAL (relative, a dot component) or
 * -ENAMETOOLONG. */
int cni_path_normalise(const char *path, char *out, size_t len);

/* The entry of roots[n] that path (normalised) is, or is below by whole
 * components ("/a/b" is under "/a", "/ab" is not); NULL when none. */
const char *cni_path_under(const char *path, char *const roots[], size_t n);

/* Whether fd is on an ordinary filesystem: a disk or memory one (ext2/3/4,
 * xfs, btrfs, tmpfs, ramfs, overlay, zfs, f2fs, ...), where a mkdir makes a
 * directory and nothing more, and no daemon or server answers for it. An
 * allow-list: the kernel grows new pseudo-filesystems (proc, sysfs, tracefs,
 * cgroup, configfs, bpf ...) and network ones (nfs, fuse ...) over time, and
 * any one of them unknown to a deny-list would be open. 0, -EXDEV when not
 * (*fs names it: "tracefs", or "magic 0x..." in buf[len]), or -errno. */
int cni_fs_ordinary(int fd, const char **fs, char *buf, size_t len);

/* Whether path (normalised) is root or below it, and reached from root
 * without crossing a mount point or following a link (openat2's
 * RESOLVE_NO_XDEV): then every lookup on the way is served by root's own
 * filesystem, and none by one mounted below it (a FUSE or NFS volume that
 * may never answer). A missing component is fine (what is created there is
 * on root's filesystem); any doubt (no openat2, a link, a file) is false. */
bool cni_path_on_root_mount(const char *root, const char *path);

#endif
