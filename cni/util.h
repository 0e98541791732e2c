/* SPDX-License-Identifier: Apache-2.0 */
#ifndef CNI_UTIL_H
#define CNI_UTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* snprintf that treats truncation as an error: 0 or -ENAMETOOLONG. */
int check_snprintf(char *buf, size_t len, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Copy src into dst[len]; -ENAMETOOLONG (dst emptied) when it does not fit. */
int copy_str(char *dst, size_t len, const char *src);

/* Parse an unsigned decimal (or 0x hex when base is 0) no larger than max.
 * 0 or -EINVAL (not a number, trailing junk) / -ERANGE. */
int parse_u64(const char *s, int base, uint64_t max, uint64_t *out);

/* Whole-file helpers; the file is opened O_NOFOLLOW|O_CLOEXEC.
 * read_file: *out is NUL-terminated, caller frees; -EFBIG past max bytes. */
int read_file(const char *path, size_t max, char **out, size_t *len);
int write_all(int fd, const void *buf, size_t len);

/* Monotonic milliseconds, for bounded waits. */
uint64_t now_ms(void);

/* Sleep ms milliseconds (restarts on EINTR). */
void sleep_ms(unsigned int ms);

#endif
