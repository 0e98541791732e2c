// SPDX-License-Identifier: Apache-2.0
/* Every CNI error has a message: bounded, never empty, valid UTF-8 when
 * what it was made from was, whatever its size. */
#include <criterion/criterion.h>
#include <errno.h>
#include <string.h>

#include "base/error.h"
#include "helpers.h"

/* Whether s is well-formed UTF-8 (no cut sequence at its end). */
static bool utf8_ok(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;

	while (*p) {
		int n = *p < 0x80 ? 0 : (*p & 0xe0) == 0xc0 ? 1 : (*p & 0xf0) == 0xe0 ? 2 : 3;

		p++;
		for (int i = 0; i < n; i++, p++)
			if ((*p & 0xc0) != 0x80)
				return false;
	}
	return true;
}

static void assert_said(const struct cni_error *e, const char *what)
{
	cr_assert_neq(e->code, 0, "%s: no code", what);
	cr_assert_gt(strlen(e->msg), 0, "%s: empty msg", what);
	cr_assert_lt(strlen(e->msg), sizeof(e->msg), "%s: msg not terminated", what);
	cr_assert(utf8_ok(e->msg), "%s: msg cut inside a character: %s", what, e->msg);
	cr_assert(utf8_ok(e->details), "%s: details cut inside a character", what);
}

/* What a delegate's 64 KiB "ARGS: unknown args [...]" message is made of:
 * ASCII, then the same with two- and three-byte characters at every offset. */
static char *big(const char *unit, size_t bytes)
{
	size_t n = strlen(unit);
	char *s = malloc(bytes + 1);

	cr_assert_not_null(s);
	for (size_t i = 0; i < bytes; i++)
		s[i] = unit[i % n];
	s[bytes - bytes % n] = '\0';
	return s;
}

Test(error, a_long_message_is_cut_not_emptied)
{
	static const char *const units[] = {"a", "\xc3\xa9", "\xe2\x82\xac", "x\xe2\x82\xac"};

	for (size_t u = 0; u < sizeof(units) / sizeof(units[0]); u++) {
		for (size_t len = 500; len < 530; len++) {
			char *msg = big(units[u], len);
			struct cni_error e = {0};

			cni_errorf(&e, -EIO, 999, msg, "%s", msg);
			assert_said(&e, "cni_errorf");
			if (strlen(msg) >= sizeof(e.msg)) {
				cr_assert(strstr(e.msg, "..."), "a cut msg says so: %s", e.msg);
				cr_assert_eq(strncmp(e.msg, msg, strlen(e.msg) - 3), 0);
			} else {
				cr_assert_str_eq(e.msg, msg);
			}
			free(msg);
		}
	}
}

Test(error, sixty_four_kib_in_msg_and_details)
{
	char *msg = big("ARGS: unknown args [\"X=aaaa", 65536);
	struct cni_error e = {0}, dst = {0};

	cni_errorf(&e, -EIO, 999, msg, "%s", msg);
	assert_said(&e, "64 KiB");
	cr_assert_eq(strncmp(e.msg, "ARGS: unknown args", 18), 0, "%s", e.msg);
	cr_assert_eq(strcmp(e.details + strlen(e.details) - 3, "..."), 0);
	cni_error_adopt(&dst, &e, -EIO);
	assert_said(&dst, "adopted");
	cr_assert_str_eq(dst.msg, e.msg);
	free(msg);
}

Test(error, no_message_gets_one)
{
	struct cni_error a = {0}, b = {0}, c = {0}, d = {0}, empty = {.code = 103};

	cni_errorf(&a, -ENODEV, CNI_ERR_DEVICE, NULL, NULL);
	assert_said(&a, "NULL msg");
	cr_assert_str_eq(a.msg, strerror(ENODEV));
	cni_errorf(&b, -EINVAL, CNI_ERR_INVALID_CONFIG, "", "details %d", 1);
	assert_said(&b, "empty msg");
	cr_assert_str_eq(b.details, "details 1");
	cni_errorf(&c, 0, 7, "", NULL);
	assert_said(&c, "no errno");
	/* A source error filled without a msg is still adopted with one. */
	cni_error_adopt(&d, &empty, -EIO);
	assert_said(&d, "adopt");
	cr_assert_eq(d.code, 103);
}

Test(error, a_long_prefix_keeps_a_valid_message)
{
	char *prefix = big("\xe2\x82\xac", 600);
	struct cni_error e = {0};

	cni_errorf(&e, -EIO, 7, "tail", NULL);
	cni_error_prefix(&e, prefix);
	assert_said(&e, "prefixed");
	free(prefix);
}
