/* SPDX-License-Identifier: Apache-2.0 */
/* Our state on disk, safe against planted files: directories are walked one
 * component at a time from directory fds without following links, files are
 * created, renamed and removed relative to those fds, and every temporary
 * file has one fixed name (".<name>.tmp") that the next write or remove of
 * the same name clears, so a crash never leaves one behind for good. */
#ifndef CNI_STATE_H
#define CNI_STATE_H

#include <dirent.h>
#include <stdbool.h>
#include <stddef.h>
#include <json-c/json.h>

#include "base/error.h"
#include "base/path.h"

/* Flags of cni_state_opendir(at). */
#define CNI_DIR_CREATE	CNI_PATH_CREATE	 /* create missing directories, 0700 whatever the umask */
#define CNI_DIR_PRIVATE CNI_PATH_PRIVATE /* the last directory must be ours: -EPERM otherwise */

/* Longest state file name: room is left for the ".<name>.tmp" temporary. */
#define CNI_STATE_NAME_MAX 250

/* A state file name: the container-ID charset, at most CNI_STATE_NAME_MAX
 * bytes, never "." or "..". Anything that becomes a file name passes this. */
bool cni_state_name_valid(const char *name);

/* Open the absolute directory dir (O_DIRECTORY fd, as cni_path_opendir),
 * never through a symbolic link (-ELOOP; -ENOTDIR for another file type,
 * -EINVAL for "." or ".." components). With CNI_DIR_PRIVATE the last one must
 * be owned by our euid and not writable by group or others (-EPERM). The
 * mode of a directory this call did not create is never changed. */
int cni_state_opendir(const char *dir, unsigned int flags);

/* The same for one component name below dirfd; *created (may be NULL) tells
 * whether this call made it. */
int cni_state_opendirat(int dirfd, const char *name, unsigned int flags, bool *created);

/* A fresh stream over the entries of dirfd, with its own offset (dirfd
 * stays open and usable); NULL with errno set on failure. */
DIR *cni_state_stream(int dirfd);

/* Create the temp file tmp in dirfd for writing, mode 0600 whatever the
 * umask, replacing one a killed writer left; never through a link.
 * Returns the fd or -errno. The caller holds the lock of its writers. */
int cni_state_create_tmp(int dirfd, const char *tmp);

/* Create dir (and parents) as 0700 and check it is private (as
 * cni_state_opendir with CNI_DIR_CREATE | CNI_DIR_PRIVATE). 0 or -errno. */
int cni_state_mkdir(const char *dir);

/* Write data to name in dirfd atomically: ".<name>.tmp" (0600) written,
 * fsync'ed when durable, renamed over name, then dirfd fsync'ed when
 * durable. A crash leaves the old file or the new one (and a temp file that
 * the next write or remove of name removes). */
int cni_state_write_at(int dirfd, const char *name, const void *data, size_t len, bool durable);

/* Remove name (and its temp files) from dirfd and fsync it; absent is
 * success. */
int cni_state_remove_at(int dirfd, const char *name);

/* Durable atomic write of dir/name; dir is opened with CNI_DIR_PRIVATE. */
int cni_state_write_raw(const char *dir, const char *name, const void *data, size_t len);

/* Atomic (readers see the old or the new file) but not durable: for
 * caches that are rebuilt from the truth after a crash. */
int cni_state_write_cache(const char *dir, const char *name, const void *data, size_t len);

/* The same as cni_state_write_raw for a record's text, dir created first
 * when missing (as cni_state_mkdir does). */
int cni_state_write_text(const char *dir, const char *name, const char *text);

/* The same for a JSON record (compact form). */
int cni_state_write(const char *dir, const char *name, struct json_object *rec);

/* Read dir/name as JSON into *rec (caller puts): non-blocking, regular files
 * only (-EINVAL), at most 1 MiB (-EFBIG), never through a link (-ELOOP).
 * -ENOENT only when the file (or dir) is absent, -EBADMSG when it does not
 * parse; anything else is a transient error the caller must not act on. */
int cni_state_read(const char *dir, const char *name, struct json_object **rec);

/* Remove dir/name and its temp files, fsync dir; an absent file is success. */
int cni_state_remove(const char *dir, const char *name);

/* Remove only the temp file ".<name>.tmp" a writer of dir/name killed
 * before its rename left (one unlinkat, no listing): 1 when there was
 * one, 0 when not (or no dir), else -errno. */
int cni_state_remove_tmp(const char *dir, const char *name);

#define CNI_STATE_ID_MAX 80

/* What identifies dir/name as written ("dev:ino:ctime"; a rewrite, a
 * rename over it or a change of its inode gives another), never through a
 * link. 0 or -errno (-ENOENT when absent). */
int cni_state_identity(const char *dir, const char *name, char *buf, size_t len);

/* Remove the temp files older builds named ".<name>.XXXXXX" (mkostemp) that
 * a kill before their rename left in dir: a listing of dir, so GC's work,
 * not every remove's. How many were removed, or -errno; absent dir is 0. */
int cni_state_sweep(const char *dir);

/* Called by cni_state_each for one entry; nonzero stops the listing. */
typedef int (*cni_state_each_fn)(int dirfd, const char *name, void *arg);

/* Call fn(dirfd, name, arg) for each entry of dir (opened as
 * cni_state_opendir(dir, 0): no link followed) whose name is not a dot
 * file, at most max entries (0: no bound). 0 when all were seen or dir is
 * missing, fn's nonzero return, or -errno (the listing failed). */
int cni_state_each(const char *dir, size_t max, cni_state_each_fn fn, void *arg);

#endif
