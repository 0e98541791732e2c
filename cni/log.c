// SPDX-License-Identifier: Apache-2.0
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#include "cleanup.h"
#include "log.h"

static const char *const level_names[] = {
	[CNI_LOG_PANIC] = "panic", [CNI_LOG_ERROR] = "error",
	[CNI_LOG_WARNING] = "warning", [CNI_LOG_INFO] = "info",
	[CNI_LOG_DEBUG] = "debug",
};

static struct {
	enum cni_log_level level;
	FILE *file;
	const char *plugin, *command, *containerid, *ifname;
} log_state = { .level = CNI_LOG_INFO };

void cni_log_close(void)
{
	if (log_state.file)
		fclose(log_state.file);
	log_state.file = NULL;
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
		fd = open(file, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC | O_NOFOLLOW,
			  0600);
		if (fd >= 0)
			log_state.file = fdopen(fd, "a");
		if (!log_state.file) {
			if (fd >= 0)
				close(fd);
			log_warn("cannot open logFile %s (%s); logging to stderr",
				 file, strerror(errno));
		}
	}
	if (!known)
		log_warn("logLevel \"%s\" is not panic, error, warning, info or debug; using info",
			 level);
}

void cni_log_context(const char *plugin, const char *command,
		     const char *containerid, const char *ifname)
{
	log_state.plugin = plugin;
	log_state.command = command;
	log_state.containerid = containerid;
	log_state.ifname = ifname;
}

void cni_log(enum cni_log_level level, const char *fmt, ...)
{
	FILE *out = log_state.file ? log_state.file : stderr;
	char stamp[32] = "";
	struct timespec ts;
	struct tm tm;
	va_list ap;
	int saved = errno;

	if (level > log_state.level)
		return;
	clock_gettime(CLOCK_REALTIME, &ts);
	if (gmtime_r(&ts.tv_sec, &tm))
		strftime(stamp, sizeof(stamp), "%Y-%m-%dT%H:%M:%SZ", &tm);
	fprintf(out, "%s [%s] %s", stamp, level_names[level],
		log_state.plugin ? log_state.plugin : "ibcni");
	if (log_state.command && *log_state.command)
		fprintf(out, " %s", log_state.command);
	if (log_state.containerid && *log_state.containerid)
		fprintf(out, " %s", log_state.containerid);
	if (log_state.ifname && *log_state.ifname)
		fprintf(out, "/%s", log_state.ifname);
	fputs(": ", out);
	va_start(ap, fmt);
	vfprintf(out, fmt, ap);
	va_end(ap);
	fputc('\n', out);
	fflush(out);
	errno = saved;
}
