// SPDX-License-Identifier: Apache-2.0
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "base/cleanup.h"
#include "base/util.h"

int check_snprintf(char *buf, size_t len, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, len, fmt, ap);
	va_end(ap);
	if (n < 0)
		return -EINVAL;
	if ((size_t)n >= len)
		return -ENAMETOOLONG;
	return 0;
}

int copy_str(char *dst, size_t len, const char *src)
{
	size_t n = strlen(src);

	if (n >= len) {
		if (len)
			dst[0] = '\0';
		return -ENAMETOOLONG;
	}
	memcpy(dst, src, n + 1);
	return 0;
}

int dup_str(char **dst, const char *src)
{
	*dst = NULL;
	if (!src)
		return 0;
	*dst = strdup(src);
	return *dst ? 0 : -ENOMEM;
}

size_t utf8_seq(const unsigned char *s, size_t n, uint32_t *cp)
{
	/* Smallest code point per length: anything below is overlong. */
	static const uint32_t min[5] = {0, 0, 0x80, 0x800, 0x10000};
	size_t len;
	uint32_t c;

	if (!n)
		return 0;
	if (s[0] < 0x80) {
		*cp = s[0];
		return 1;
	}
	if ((s[0] & 0xe0) == 0xc0) {
		len = 2;
		c = s[0] & 0x1f;
	} else if ((s[0] & 0xf0) == 0xe0) {
		len = 3;
		c = s[0] & 0x0f;
	} else if ((s[0] & 0xf8) == 0xf0) {
		len = 4;
		c = s[0] & 0x07;
	} else {
		return 0;
	}
	if (len > n)
		return 0;
	for (size_t i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		c = (c << 6) | (s[i] & 0x3f);
	}
	if (c < min[len] || c > 0x10ffff || (c >= 0xd800 && c <= 0xdfff))
		return 0;
	*cp = c;
	return len;
}

bool utf8_valid(const char *s, size_t n, size_t *bad)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t i = 0;
	uint32_t cp;

	while (i < n) {
		size_t k = utf8_seq(p + i, n - i, &cp);

		if (!k) {
			if (bad)
				*bad = i;
			return false;
		}
		i += k;
	}
	return true;
}

int parse_u64(const char *s, int base, uint64_t max, uint64_t *out)
{
	unsigned long long v;
	char *end;

	if (!s || !*s || *s == '-' || *s == '+' || *s == ' ')
		return -EINVAL;
	errno = 0;
	v = strtoull(s, &end, base);
	if (errno == ERANGE)
		return -ERANGE;
	if (errno || end == s || *end)
		return -EINVAL;
	if (v > max)
		return -ERANGE;
	*out = v;
	return 0;
}

int read_all(int fd, size_t start, size_t max, char **out, size_t *len)
{
	_cleanup_free_ char *buf = NULL;
	size_t used = 0, size = start < max ? start : max + 1;

	*out = NULL;
	if (max > SIZE_MAX / 4 || !size)
		return -EINVAL;
	buf = malloc(size + 1);
	if (!buf)
		return -ENOMEM;
	for (;;) {
		ssize_t n;

		if (used == size) {
			size_t more = size > (max + 1) / 2 ? max + 1 : size * 2;
			char *p = realloc(buf, more + 1);

			if (!p)
				return -ENOMEM;
			buf = p;
			size = more;
		}
		n = read(fd, buf + used, size - used);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (n == 0)
			break;
		used += (size_t)n;
		if (used > max)
			return -EFBIG;
	}
	buf[used] = '\0';
	if (len)
		*len = used;
	*out = steal_ptr(buf);
	return 0;
}

int read_fd(int fd, size_t max, char **out, size_t *len)
{
	struct stat st;

	*out = NULL;
	if (fstat(fd, &st) < 0)
		return -errno;
	if (!S_ISREG(st.st_mode))
		return -EINVAL;
	/* The size the file claims plus the byte that shows EOF: one read
	 * for most files. Only a hint: sysfs says 4096 for every attribute. */
	return read_all(
	    fd, st.st_size > 0 && (uint64_t)st.st_size < max ? (size_t)st.st_size + 1 : 4096, max,
	    out, len);
}

int read_fileat(int dirfd, const char *name, size_t max, char **out, size_t *len)
{
	/* Non-blocking: a FIFO planted under the name must not hang us. */
	_cleanup_close_ int fd =
	    openat(dirfd, name, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);

	*out = NULL;
	if (fd < 0)
		return -errno;
	return read_fd(fd, max, out, len);
}

int read_file(const char *path, size_t max, char **out, size_t *len)
{
	return read_fileat(AT_FDCWD, path, max, out, len);
}

uid_t cni_euid(void)
{
	static uid_t euid = (uid_t)-1;

	if (euid == (uid_t)-1)
		euid = geteuid();
	return euid;
}

mode_t cni_umask(void)
{
	static mode_t mask = (mode_t)-1;

	if (mask == (mode_t)-1) {
		mask = umask(0);
		umask(mask);
	}
	return mask;
}

int fsync_dir(const char *dir)
{
	_cleanup_close_ int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	if (fd < 0 || fsync(fd) < 0)
		return -errno;
	return 0;
}

int write_all(int fd, const void *buf, size_t len)
{
	const char *p = buf;

	while (len) {
		ssize_t n = write(fd, p, len);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

void sleep_ms(unsigned int ms)
{
	struct timespec ts = {.tv_sec = ms / 1000, .tv_nsec = (long)(ms % 1000) * 1000000};

	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

/* v's digits at buf, NUL-terminated: at most 21 bytes. */
static char *utoa(uint64_t v, char *buf)
{
	char tmp[CNI_NUM_MAX];
	size_t n = 0, i = 0;

	do
		tmp[n++] = (char)('0' + v % 10);
	while ((v /= 10));
	while (n)
		buf[i++] = tmp[--n];
	buf[i] = '\0';
	return buf;
}

char *cni_u64_str(uint64_t v, char buf[CNI_NUM_MAX])
{
	return utoa(v, buf);
}

char *cni_i64_str(int64_t v, char buf[CNI_NUM_MAX])
{
	if (v >= 0)
		return utoa((uint64_t)v, buf);
	buf[0] = '-';
	/* -(v + 1) + 1: INT64_MIN has no positive twin. */
	utoa((uint64_t) - (v + 1) + 1, buf + 1);
	return buf;
}

int cni_hex_digit(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

int cni_hex_str(const unsigned char *p, size_t n, char sep, char *buf, size_t len)
{
	static const char digits[] = "0123456789abcdef";
	size_t need = n ? n * 2 + (sep ? n - 1 : 0) + 1 : 1, at = 0;

	if (!len)
		return -ENAMETOOLONG;
	if (need > len) {
		buf[0] = '\0';
		return -ENAMETOOLONG;
	}
	for (size_t i = 0; i < n; i++) {
		if (i && sep)
			buf[at++] = sep;
		buf[at++] = digits[p[i] >> 4];
		buf[at++] = digits[p[i] & 15];
	}
	buf[at] = '\0';
	return 0;
}

bool cni_valid_id(const char *s)
{
	static const char extra[] = "_.-";

	if (!s || !*s)
		return false;
	for (const char *p = s; *p; p++) {
		bool alnum = (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
			     (*p >= '0' && *p <= '9');

		if (alnum)
			continue;
		if (p == s || !strchr(extra, *p))
			return false;
	}
	return true;
}

bool cni_hex_parse(const char *s, unsigned char *out, size_t n)
{
	if (!s || !n || strlen(s) != n * 3 - 1)
		return false;
	for (size_t i = 0; i < n; i++) {
		int hi = cni_hex_digit(s[i * 3]), lo = cni_hex_digit(s[i * 3 + 1]);

		if (hi < 0 || lo < 0 || (i + 1 < n && s[i * 3 + 2] != ':'))
			return false;
		out[i] = (unsigned char)(hi << 4 | lo);
	}
	return true;
}
