/* SPDX-License-Identifier: Apache-2.0 */
/* Shared by the libFuzzer harnesses: each one feeds bytes to a public
 * parsing entry point of the project and checks what must always hold. */
#ifndef IBCNI_FUZZ_H
#define IBCNI_FUZZ_H

#include <stddef.h>
#include <stdint.h>

#include "protocol/cni.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Split data at NUL bytes into at most max NUL-terminated strings (missing
 * ones are ""). Returns the copy holding them; the caller frees it. */
char *fuzz_split(const uint8_t *data, size_t size, const char **parts, size_t max);

/* A private scratch directory for this process (created once, 0700). */
const char *fuzz_tmpdir(void);

/* Replace dir/name with exactly len bytes of data; aborts on failure, which
 * is the harness's fault, never the code under test's. */
void fuzz_write(const char *dir, const char *name, const void *data, size_t len);

/* Parse a request config for cmd into ctx (logging off, CNI_ARGS parsed
 * from args); 0 or the parser's negative errno with ctx->err filled. */
int fuzz_ctx(struct cni_ctx *ctx, const char *conf, size_t len, enum cni_command cmd,
	     const char *args);

/* Free what fuzz_ctx() filled. */
void fuzz_ctx_free(struct cni_ctx *ctx);

/* An error, when set, must be a known code with a message. */
void fuzz_check_error(const struct cni_error *err, int ret);

#endif
