/* SPDX-License-Identifier: Apache-2.0 */
#ifndef CNI_LOG_H
#define CNI_LOG_H

enum cni_log_level {
	CNI_LOG_PANIC,
	CNI_LOG_ERROR,
	CNI_LOG_WARNING,
	CNI_LOG_INFO,
	CNI_LOG_DEBUG,
};

/* Apply the logLevel/logFile config keys as sriov-cni users write them:
 * panic|error|warning|info|debug (anything else: info, with a warning);
 * an empty or absent file logs to stderr. Never stdout. */
void cni_log_setup(const char *level, const char *file);

/* Prefix every line with the plugin, command and attachment. Borrowed. */
void cni_log_context(const char *plugin, const char *command,
		     const char *containerid, const char *ifname);

/* Write one line at level when it is enabled. */
void cni_log(enum cni_log_level level, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* Release the log file, if any. */
void cni_log_close(void);

#define log_err(...) cni_log(CNI_LOG_ERROR, __VA_ARGS__)
#define log_warn(...) cni_log(CNI_LOG_WARNING, __VA_ARGS__)
#define log_info(...) cni_log(CNI_LOG_INFO, __VA_ARGS__)
#define log_debug(...) cni_log(CNI_LOG_DEBUG, __VA_ARGS__)

#endif
