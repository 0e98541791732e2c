/* SPDX-License-Identifier: Apache-2.0 */
#ifndef CNI_LOG_H
#define CNI_LOG_H

#include <stdbool.h>
#include <stddef.h>

enum cni_log_level {
	CNI_LOG_PANIC,
	CNI_LOG_ERROR,
	CNI_LOG_WARNING,
	CNI_LOG_INFO,
	CNI_LOG_DEBUG,
};

/* The only directory a logFile may name: CNI_LOG_DIR at build time,
 * /var/log/ibcni by default. Absolute. Unit tests point it at a temporary
 * directory; nothing a production binary reads can change it. */
extern const char *cni_log_dir;

/* A log file grows to this size, then becomes "<name>.1" (one rotation). */
#define CNI_LOG_MAX_SIZE (8 << 20)
/* The longest logFile name, with room for ".1". */
#define CNI_LOG_NAME_MAX 200

/* Apply the logLevel/logFile config keys as sriov-cni users write them:
 * panic|error|warning|info|debug (anything else: info, with a warning).
 * logFile is a file name in cni_log_dir (or that absolute path): letters,
 * digits, ".", "_" and "-", no leading dot, no subdirectory; opened without
 * following links; it must be a regular file with one link, owned by us
 * and not group/other-writable; past CNI_LOG_MAX_SIZE it is rotated.
 * Anything else, an empty or absent file, logs to stderr (a refusal says so
 * there). Never stdout. */
void cni_log_setup(const char *level, const char *file);

/* Whether logFile (NULL or "": none) may be used by network: its name (as
 * cni_log_setup reads it) is the network's name, or that name followed by
 * "." or "-" and more of the name's characters, so one network's config
 * cannot write lines into another's log. */
bool cni_log_file_ours(const char *file, const char *network);

/* A request's logLevel and logFile (each NULL when absent), as
 * cni_log_setup, for network: a logFile that is not the network's own is
 * ignored with one warning naming it (then logging to stderr). Never fails:
 * the Go plugins take any logFile, so no config fails over where it logs. */
void cni_log_apply(const char *network, const char *level, const char *file);

/* The level from now on; where lines go is unchanged. */
void cni_log_set_level(enum cni_log_level level);

/* Copy s into out[len] (NUL-terminated) with control characters (C0, DEL,
 * C1), backslash and invalid UTF-8 escaped as \n, \r, \t, \\ or \xNN.
 * Stops before an escape or character that does not fit (*cut = true).
 * Returns the length written. */
size_t cni_log_escape(char *out, size_t len, const char *s, bool *cut);

/* Prefix every line with the plugin, command and attachment. Borrowed. */
void cni_log_context(const char *plugin, const char *command, const char *containerid,
		     const char *ifname);

/* A line prefix, as cni_log_context sets it. */
struct cni_log_ctx {
	const char *plugin, *command, *containerid, *ifname;
};

/* Set the prefix for a nested run (a builtin delegate); returns the one it
 * replaces, to be swapped back after. */
struct cni_log_ctx cni_log_swap_context(struct cni_log_ctx next);

/* Write one line at level when it is enabled: every string in it escaped,
 * at most 4096 bytes (longer ones end in "..."), one write() per line. */
void cni_log(enum cni_log_level level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Release the log file, if any. */
void cni_log_close(void);

#define log_err(...)   cni_log(CNI_LOG_ERROR, __VA_ARGS__)
#define log_warn(...)  cni_log(CNI_LOG_WARNING, __VA_ARGS__)
#define log_info(...)  cni_log(CNI_LOG_INFO, __VA_ARGS__)
#define log_debug(...) cni_log(CNI_LOG_DEBUG, __VA_ARGS__)

#endif
