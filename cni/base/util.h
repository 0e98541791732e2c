/* SPDX-License-Identifier: Apache-2.0 */
#ifndef CNI_UTIL_H
#define CNI_UTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* snprintf that treats truncation as an error: 0 or -ENAMETOOLONG. */
int check_snprintf(char *buf, size_t len, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Copy src into dst[len]; -ENAMETOOLONG (dst emptied) when it does not fit. */
int copy_str(char *dst, size_t len, const char *src);

/* *dst = a copy of src, or NULL when src is NULL. 0 or -ENOMEM. */
int dup_str(char **dst, const char *src);

/* The length (1-4) of the well-formed UTF-8 sequence at s[0..n), its code
 * point in *cp; 0 for a stray, overlong, surrogate or truncated sequence. */
size_t utf8_seq(const unsigned char *s, size_t n, uint32_t *cp);

/* True when s[0..n) is well-formed UTF-8; else *bad is the first bad offset. */
bool utf8_valid(const char *s, size_t n, size_t *bad);

/* The decimal text of v into buf (CNI_NUM_MAX bytes); returns buf. What
 * snprintf("%" PRId64) writes, for the paths that format a number per field. */
#define CNI_NUM_MAX 21
char *cni_i64_str(int64_t v, char buf[CNI_NUM_MAX]);
char *cni_u64_str(uint64_t v, char buf[CNI_NUM_MAX]);

/* The value of hex digit c (either case), or -1. */
int cni_hex_digit(char c);

/* n bytes as lowercase hex pairs, sep between them when not 0, into
 * buf[len] (NUL-terminated; -ENAMETOOLONG when it does not fit). */
int cni_hex_str(const unsigned char *p, size_t n, char sep, char *buf, size_t len);

/* Exactly n bytes "xx:xx:..." (hex pairs, either case, ':' between) into
 * out: false for any other text. */
bool cni_hex_parse(const char *s, unsigned char *out, size_t n);

/* Parse an unsigned decimal (or 0x hex when base is 0) no larger than max.
 * 0 or -EINVAL (not a number, trailing junk) / -ERANGE. */
int parse_u64(const char *s, int base, uint64_t max, uint64_t *out);

/* Whole-file reads of files a config or a pod may have planted: opened
 * O_NOFOLLOW|O_NONBLOCK|O_CLOEXEC, only a regular file is read (-EINVAL for
 * a FIFO, device or directory), never more than max bytes (-EFBIG).
 * *out is NUL-terminated, caller frees. */
int read_file(const char *path, size_t max, char **out, size_t *len);
int read_fileat(int dirfd, const char *name, size_t max, char **out, size_t *len);

/* The same from an open fd (regular file checked by fstat). */
int read_fd(int fd, size_t max, char **out, size_t *len);

/* Read fd to its end into a buffer of start bytes that grows as needed,
 * never past max (-EFBIG); EINTR retried, other errors -errno. *out is
 * NUL-terminated, caller frees. Whatever fd is: the caller checks it. */
int read_all(int fd, size_t start, size_t max, char **out, size_t *len);

/* geteuid(), asked once: a plugin never changes its identity. */
uid_t cni_euid(void);

/* The process umask, read once (a plugin never changes it). */
mode_t cni_umask(void);

/* fsync a directory so a rename or unlink in it is durable. 0 or -errno. */
int fsync_dir(const char *dir);
int write_all(int fd, const void *buf, size_t len);

/* Monotonic milliseconds, for bounded waits. */
uint64_t now_ms(void);

/* Sleep ms milliseconds (restarts on EINTR). */
void sleep_ms(unsigned int ms);

/* A container ID as CNI allows it: an alphanumeric, then alphanumerics,
 * "_", "." or "-". */
bool cni_valid_id(const char *s);

#endif
