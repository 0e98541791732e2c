/* SPDX-License-Identifier: Apache-2.0 */
/* Paths as text (normalised, under a root) and the filesystem a path or fd
 * is on: the checks a configured path passes before anything is opened. */
#ifndef CNI_PATH_H
#define CNI_PATH_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/stat.h>

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

/* Flags of cni_path_opendir(at). */
#define CNI_PATH_CREATE	     0x1 /* create missing directories, 0700 whatever the umask */
#define CNI_PATH_PRIVATE     0x2 /* the last directory must be ours: -EPERM otherwise */
#define CNI_PATH_CREATE_LAST 0x4 /* create only the last directory when missing */

/* Whether st is ours (our euid) and not writable by group or others: then
 * nobody else can plant or swap an entry in it. */
bool cni_path_private(const struct stat *st);

/* Open the absolute directory dir (O_DIRECTORY fd) without following a link
 * anywhere on it: one openat2 (RESOLVE_NO_SYMLINKS) when the kernel has it,
 * else one component at a time with O_NOFOLLOW. -ELOOP for a link, -ENOTDIR
 * for another file type, -EINVAL for "." or ".." components; with
 * CNI_PATH_PRIVATE the last one must pass cni_path_private (-EPERM). The
 * mode of a directory this call did not create is never changed. */
int cni_path_opendir(const char *dir, unsigned int flags);

/* The same for one component name below dirfd (CNI_PATH_CREATE creates it);
 * *created (may be NULL) tells whether this call made it. */
int cni_path_opendirat(int dirfd, const char *name, unsigned int flags, bool *created);

#endif
