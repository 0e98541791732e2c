// SPDX-License-Identifier: Apache-2.0
/* Logging for plugins whose config is written by namespace users: the log
 * file is confined to one root-owned directory and opened without following
 * links, and every logged string is escaped, so a config can neither choose
 * the file nor forge a line. */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "base/cleanup.h"
#include "base/log.h"
#include "base/path.h"
#include "base/util.h"

#ifndef CNI_LOG_DIR
#define CNI_LOG_DIR "/var/log/ibcni"
#endif

/* One line is one write(): at most this many bytes, newline included. */
#define LINE_MAX_BYTES 4096

const char *cni_log_dir = CNI_LOG_DIR;

static const char *const level_names[] = {
    [CNI_LOG_PANIC] = "panic", [CNI_LOG_ERROR] = "error", [CNI_LOG_WARNING] = "warning",
    [CNI_LOG_INFO] = "info",   [CNI_LOG_DEBUG] = "debug",
};

static struct {
	enum cni_log_level level;
	int fd; /* the log file, or -1 for stderr */
	const char *plugin, *command, *containerid, *ifname;
} log_state = {.level = CNI_LOG_INFO, .fd = -1};

void cni_log_close(void)
{
	if (log_state.fd >= 0)
		close(log_state.fd);
	log_state.fd = -1;
}

/* A log file of ours: a regular file with one link (a hard link to another
 * file is not a log), owned by us (root) and writable by nobody else. */
static int check_ours(int fd)
{
	struct stat st;

	if (fstat(fd, &st) < 0)
		return -errno;
	if (!S_ISREG(st.st_mode) || st.st_nlink != 1)
		return -EINVAL;
	if (!cni_path_private(&st))
		return -EPERM;
	return 0;
}

/* cni_log_dir, reached without following a link (cni_path_opendir); its
 * last component is created when missing and must be ours. */
static int open_log_dir(void)
{
	return cni_path_opendir(cni_log_dir, CNI_PATH_CREATE_LAST | CNI_PATH_PRIVATE);
}

/* A log file name: letters, digits, ".", "_" and "-", no leading dot (no
 * hidden files, no "." or ".."), with room for the rotation's ".1". */
static bool name_ok(const char *name)
{
	size_t n = strlen(name);

	return n && n <= CNI_LOG_NAME_MAX && name[0] != '.' &&
	       strspn(name, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._-") ==
		   n;
}

/* The file name logFile gives: itself, or the part after cni_log_dir/
 * when absolute; NULL when it names a place outside or a subdirectory. */
static const char *file_name(const char *file)
{
	size_t dirlen = strlen(cni_log_dir);

	if (file[0] == '/') {
		if (strncmp(file, cni_log_dir, dirlen) || file[dirlen] != '/')
			return NULL;
		file += dirlen + 1;
	}
	return strchr(file, '/') ? NULL : file;
}

bool cni_log_file_ours(const char *file, const char *network)
{
	const char *name;
	size_t n = network ? strlen(network) : 0;

	if (!file || !*file)
		return true;
	name = file_name(file);
	/* The network's own: another NAD cannot write lines into it. */
	return name && name_ok(name) && n && !strncmp(name, network, n) &&
	       (!name[n] || name[n] == '.' || name[n] == '-');
}

/* name in dirfd, opened for appending: ours, a regular file with one link,
 * never through a link, never blocking on a FIFO. *st is its state. */
static int open_in(int dirfd, const char *name, struct stat *st)
{
	int fd = openat(
	    dirfd, name,
	    O_WRONLY | O_APPEND | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC, 0600);
	int ret;

	if (fd < 0)
		return -errno;
	ret = check_ours(fd);
	if (!ret && fstat(fd, st) < 0)
		ret = -errno;
	if (ret) {
		close(fd);
		return ret;
	}
	return fd;
}

/* fd (name in dirfd) has grown past CNI_LOG_MAX_SIZE: it becomes
 * "<name>.1" (the previous one dropped) and a fresh name is opened. Under
 * an flock of the old file, and only while the name is still that file:
 * of two runs that both saw it full, one renames, the other opens anew. */
static int rotate(int dirfd, const char *name, int fd)
{
	char old[NAME_MAX + 1];
	struct stat st, now;
	int ret = 0;

	if (check_snprintf(old, sizeof(old), "%s.1", name) || fstat(fd, &st) < 0) {
		close(fd);
		return -ENAMETOOLONG;
	}
	if (flock(fd, LOCK_EX | LOCK_NB) == 0) {
		if (!fstatat(dirfd, name, &now, AT_SYMLINK_NOFOLLOW) && now.st_ino == st.st_ino &&
		    now.st_dev == st.st_dev && renameat(dirfd, name, dirfd, old) < 0)
			ret = -errno;
		flock(fd, LOCK_UN);
	}
	close(fd);
	return ret ? ret : open_in(dirfd, name, &st);
}

/* Open file (a name in cni_log_dir, or that path) for appending. Returns
 * the fd or -errno; -EXDEV when it names a place outside. */
static int open_log_file(const char *file)
{
	_cleanup_close_ int dirfd = -1;
	const char *name = file_name(file);
	struct stat st;
	int fd;
	size_t dirlen = strlen(cni_log_dir);

	if (file[0] == '/' && (strncmp(file, cni_log_dir, dirlen) || file[dirlen] != '/'))
		return -EXDEV;
	if (!name || !name_ok(name))
		return -EINVAL;
	dirfd = open_log_dir();
	if (dirfd < 0)
		return dirfd;
	fd = open_in(dirfd, name, &st);
	if (fd >= 0 && st.st_size >= CNI_LOG_MAX_SIZE)
		fd = rotate(dirfd, name, fd);
	return fd;
}

static const char *refusal(int ret)
{
	switch (-ret) {
	case EXDEV:
		return "it is not under the log directory";
	case ELOOP:
	case ENOTDIR:
		return "a symbolic link or a non-directory is on the way";
	case EINVAL:
		return "not a plain name, or not a regular file with one link";
	case EPERM:
		return "not owned by root, or writable by group or others";
	default:
		return strerror(-ret);
	}
}

/* A logFile named in a warning: its first SHOWN bytes (no valid one is
 * longer), then "..." when cut, so the rest of the line always fits. */
#define SHOWN 256
static const char *cut(const char *file)
{
	return strlen(file) > SHOWN ? "..." : "";
}

void cni_log_set_level(enum cni_log_level level)
{
	log_state.level = level;
}

void cni_log_setup(const char *level, const char *file)
{
	bool known = !level || !*level;
	int fd;

	log_state.level = CNI_LOG_INFO;
	for (size_t i = 0; level && i < ARRAY_SIZE(level_names); i++) {
		if (!strcasecmp(level, level_names[i])) {
			log_state.level = (enum cni_log_level)i;
			known = true;
		}
	}
	cni_log_close();
	if (file && *file) {
		fd = open_log_file(file);
		if (fd >= 0)
			log_state.fd = fd;
		else
			log_warn("logFile \"%.*s%s\" ignored (%s); logging to stderr: a logFile "
				 "must be a file in %s/, not a link",
				 SHOWN, file, cut(file), refusal(fd), cni_log_dir);
	}
	if (!known)
		log_warn("logLevel \"%s\" is not panic, error, warning, info or debug; using info",
			 level);
}

void cni_log_apply(const char *network, const char *level, const char *file)
{
	bool ours = cni_log_file_ours(file, network);

	cni_log_setup(level, ours ? file : NULL);
	if (!ours)
		log_warn("logFile \"%.*s%s\" ignored (not this network's file in %s/); logging "
			 "to stderr: a logFile must be \"%s\", or \"%s\" then \".\" or \"-\" and "
			 "more letters, digits, \".\", \"_\" or \"-\" (e.g. \"%s/%s.log\")",
			 SHOWN, file, cut(file), cni_log_dir, network ? network : "",
			 network ? network : "", cni_log_dir, network ? network : "");
}

void cni_log_context(const char *plugin, const char *command, const char *containerid,
		     const char *ifname)
{
	log_state.plugin = plugin;
	log_state.command = command;
	log_state.containerid = containerid;
	log_state.ifname = ifname;
}

struct cni_log_ctx cni_log_swap_context(struct cni_log_ctx next)
{
	struct cni_log_ctx prev = {log_state.plugin, log_state.command, log_state.containerid,
				   log_state.ifname};

	cni_log_context(next.plugin, next.command, next.containerid, next.ifname);
	return prev;
}

struct line {
	char buf[LINE_MAX_BYTES];
	size_t len;
	bool full;
};

/* Append n bytes when they fit, keeping room for "...\n". */
static void append(struct line *l, const char *s, size_t n)
{
	if (l->full || l->len + n > sizeof(l->buf) - 4) {
		l->full = true;
		return;
	}
	memcpy(l->buf + l->len, s, n);
	l->len += n;
}

static const char *short_escape(uint32_t c)
{
	switch (c) {
	case '\n':
		return "\\n";
	case '\r':
		return "\\r";
	case '\t':
		return "\\t";
	case '\\':
		return "\\\\";
	default:
		return NULL;
	}
}

size_t cni_log_escape(char *out, size_t len, const char *s, bool *cut)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t n = strlen(s), used = 0, k;

	*cut = false;
	for (size_t i = 0; i < n; i += k) {
		uint32_t c = UINT32_MAX; /* stays so for invalid UTF-8 */
		const char *piece = s + i;
		char esc[16];
		size_t m;

		k = utf8_seq(p + i, n - i, &c);
		m = k;
		if (!k || c < 0x20 || c == 0x7f || c == '\\' || (c >= 0x80 && c <= 0x9f)) {
			if (!k)
				k = 1;
			if (short_escape(c))
				snprintf(esc, sizeof(esc), "%s", short_escape(c));
			else if (k == 2)
				snprintf(esc, sizeof(esc), "\\x%02x\\x%02x", p[i], p[i + 1]);
			else
				snprintf(esc, sizeof(esc), "\\x%02x", p[i]);
			piece = esc;
			m = strlen(esc);
		}
		/* Never half an escape or half a character. */
		if (used + m + 1 > len) {
			*cut = true;
			break;
		}
		memcpy(out + used, piece, m);
		used += m;
	}
	if (len)
		out[used] = '\0';
	return used;
}

static void append_escaped(struct line *l, const char *s)
{
	size_t room = sizeof(l->buf) - 4 - l->len;
	bool cut;

	if (l->full)
		return;
	l->len += cni_log_escape(l->buf + l->len, room + 1, s, &cut);
	l->full = cut;
}

/* "YYYY-MM-DDTHH:MM:SSZ" for t; "" if its year does not fit a struct tm.
 * Not strftime's %Y, which does not pad a year below 1000 to four digits. */
static void utc_stamp(char *buf, size_t len, time_t t)
{
	struct tm tm;

	buf[0] = '\0';
	if (!gmtime_r(&t, &tm))
		return;
	if (snprintf(buf, len, "%04d-%02d-%02dT%02d:%02d:%02dZ", tm.tm_year + 1900, tm.tm_mon + 1,
		     tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec) >= (int)len)
		buf[0] = '\0';
}

/* The line itself, apart from cni_log(): its 8 KiB frame is probed page by
 * page on entry (stack clash protection), which a filtered-out debug line
 * should not pay for. */
static __attribute__((noinline)) void emit(enum cni_log_level level, const char *fmt, va_list ap)
{
	struct line l = {.len = 0};
	char msg[LINE_MAX_BYTES], stamp[32] = "";
	struct timespec ts;
	int saved = errno;
	ssize_t n;

	clock_gettime(CLOCK_REALTIME, &ts);
	utc_stamp(stamp, sizeof(stamp), ts.tv_sec);
	append(&l, stamp, strlen(stamp));
	append(&l, " [", 2);
	append(&l, level_names[level], strlen(level_names[level]));
	append(&l, "] ", 2);
	append_escaped(&l, log_state.plugin ? log_state.plugin : "ibcni");
	if (log_state.command && *log_state.command) {
		append(&l, " ", 1);
		append_escaped(&l, log_state.command);
	}
	if (log_state.containerid && *log_state.containerid) {
		append(&l, " ", 1);
		append_escaped(&l, log_state.containerid);
	}
	if (log_state.ifname && *log_state.ifname) {
		append(&l, "/", 1);
		append_escaped(&l, log_state.ifname);
	}
	append(&l, ": ", 2);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	append_escaped(&l, msg);
	if (l.full) {
		memcpy(l.buf + l.len, "...", 3);
		l.len += 3;
	}
	l.buf[l.len++] = '\n';
	/* One write per line, no stdio buffer: nothing a config writes decides
	 * where a write starts or ends. A short or failed write is dropped. */
	n = write(log_state.fd >= 0 ? log_state.fd : STDERR_FILENO, l.buf, l.len);
	(void)n;
	errno = saved;
}

void cni_log(enum cni_log_level level, const char *fmt, ...)
{
	va_list ap;

	if (level > log_state.level)
		return;
	va_start(ap, fmt);
	emit(level, fmt, ap);
	va_end(ap);
}
