// SPDX-License-Identifier: Apache-2.0
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fuzz.h"
#include "base/util.h"

char *fuzz_split(const uint8_t *data, size_t size, const char **parts, size_t max)
{
	char *copy = malloc(size + 1), *p, *end;

	if (!copy)
		abort();
	memcpy(copy, data, size);
	copy[size] = '\0';
	p = copy;
	end = copy + size;
	for (size_t i = 0; i < max; i++) {
		parts[i] = p <= end ? p : "";
		if (p <= end)
			p += strlen(p) + 1;
	}
	return copy;
}

const char *fuzz_tmpdir(void)
{
	static char dir[4096];

	/* tests/fuzz/run.sh points TMPDIR at a tmpfs it removes afterwards. */
	if (!*dir) {
		const char *base = getenv("TMPDIR");

		if (check_snprintf(dir, sizeof(dir), "%s/ibcni-fuzz.XXXXXX",
				   base && *base ? base : "/tmp") ||
		    !mkdtemp(dir))
			abort();
	}
	return dir;
}

void fuzz_write(const char *dir, const char *name, const void *data, size_t len)
{
	char path[4096], tmp[4096];
	int fd;

	if (check_snprintf(path, sizeof(path), "%s/%s", dir, name) ||
	    check_snprintf(tmp, sizeof(tmp), "%s/.fuzz-tmp", dir))
		abort();
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0 || write_all(fd, data, len) || close(fd) || rename(tmp, path))
		abort();
}

int fuzz_ctx(struct cni_ctx *ctx, const char *conf, size_t len, enum cni_command cmd,
	     const char *args)
{
	char *raw = malloc(len + 1);
	int ret;

	memset(ctx, 0, sizeof(*ctx));
	if (!raw)
		abort();
	memcpy(raw, conf, len);
	raw[len] = '\0';
	ctx->env.command = cmd;
	ctx->env.command_str = cni_command_str(cmd);
	ctx->env.containerid = "fuzz";
	ctx->env.ifname = "net1";
	ctx->env.netns = "/var/run/netns/fuzz";
	ctx->env.args = args;
	ctx->env.path = "/nonexistent";
	ret = cni_conf_parse(raw, len, cmd, &ctx->own_conf, &ctx->err);
	ctx->conf = ctx->own_conf;
	ctx->node = cni_nodeconf_defaults();
	if (!ret)
		ret = cni_args_parse(args, &ctx->args, &ctx->err);
	/* Quiet: a config's logLevel/logFile must not make the fuzzer write. */
	cni_log_setup("panic", NULL);
	return ret;
}

void fuzz_ctx_free(struct cni_ctx *ctx)
{
	cni_result_free(ctx->result);
	cni_args_free(&ctx->args);
	cni_conf_free(ctx->own_conf);
	memset(ctx, 0, sizeof(*ctx));
}

void fuzz_check_error(const struct cni_error *err, int ret)
{
	if (ret >= 0 && !err->code)
		return;
	/* A filled error goes with a failure, and carries a code and text. */
	if (err->code && (ret >= 0 || !*err->msg))
		abort();
	if (strnlen(err->msg, sizeof(err->msg)) == sizeof(err->msg) ||
	    strnlen(err->details, sizeof(err->details)) == sizeof(err->details))
		abort();
}
