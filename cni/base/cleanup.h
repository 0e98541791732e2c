/* SPDX-License-Identifier: Apache-2.0 */
/* Scope-bound cleanup for locals, in the style of libnl's _nl_auto_*. */
#ifndef CNI_CLEANUP_H
#define CNI_CLEANUP_H

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <errno.h>
#include <json-c/json.h>

#define _cleanup_(f) __attribute__((cleanup(f)))
#define _unused_     __attribute__((unused))

static inline void freep(void *p)
{
	free(*(void **)p);
}

static inline void closep(int *fd)
{
	if (*fd >= 0) {
		int saved = errno;

		close(*fd);
		errno = saved;
	}
}

static inline void fclosep(FILE **f)
{
	if (*f)
		fclose(*f);
}

static inline void closedirp(DIR **d)
{
	if (*d)
		closedir(*d);
}

static inline void json_putp(struct json_object **o)
{
	if (*o)
		json_object_put(*o);
}

#define _cleanup_free_	 _cleanup_(freep)
#define _cleanup_close_	 _cleanup_(closep)
#define _cleanup_fclose_ _cleanup_(fclosep)
#define _cleanup_json_	 _cleanup_(json_putp)
#define _cleanup_dir_	 _cleanup_(closedirp)

/* Hand ownership out of a _cleanup_ local. */
#define steal_ptr(p)                                                                               \
	({                                                                                         \
		__typeof__(p) _stolen = (p);                                                       \
		(p) = NULL;                                                                        \
		_stolen;                                                                           \
	})

#define steal_fd(fd)                                                                               \
	({                                                                                         \
		int _stolen = (fd);                                                                \
		(fd) = -1;                                                                         \
		_stolen;                                                                           \
	})

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

#endif
