/* SPDX-License-Identifier: Apache-2.0 */
#ifndef CNI_STATE_H
#define CNI_STATE_H

#include <stdbool.h>
#include <stddef.h>
#include <json-c/json.h>

#include "error.h"

/* A state file name: the container-ID charset, at most 255 bytes, never
 * "." or "..". Anything that becomes a file name passes this first. */
bool cni_state_name_valid(const char *name);

/* Create dir (and parents) as 0700 whatever the umask; an existing dir is
 * tightened to 0700. 0 or -errno. */
int cni_state_mkdir(const char *dir);

/* Write data to dir/name atomically: temp file (0600) in dir, fsync,
 * rename, fsync of dir. A crash leaves the old file or the new one. */
int cni_state_write_raw(const char *dir, const char *name, const void *data,
			size_t len);

/* Atomic (readers see the old or the new file) but not durable: for
 * caches that are rebuilt from the truth after a crash. */
int cni_state_write_cache(const char *dir, const char *name, const void *data,
			  size_t len);

/* The same as cni_state_write_raw for a JSON record (compact form). */
int cni_state_write(const char *dir, const char *name, struct json_object *rec);

/* Read dir/name (O_NOFOLLOW) as JSON into *rec (caller puts); -ENOENT when
 * absent, -EBADMSG when it does not parse. */
int cni_state_read(const char *dir, const char *name, struct json_object **rec);

/* Remove dir/name and fsync dir; an absent file is success. */
int cni_state_remove(const char *dir, const char *name);

#endif
