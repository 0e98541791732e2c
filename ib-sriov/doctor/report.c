// SPDX-License-Identifier: Apache-2.0
/* The doctor's report: JSON helpers and findings, used by every section
 * (below them, so the sections and the command never call each other). */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "base/cleanup.h"
#include "base/json.h"
#include "doctor.h"
#include "guid.h"

void doctor_put(struct json_object *o, const char *key, struct json_object *v)
{
	json_object_object_add(o, key, v);
}

struct json_object *doctor_str(const char *s)
{
	return s ? json_object_new_string(s) : NULL;
}

struct json_object *doctor_guid_json(uint64_t g)
{
	char buf[32];

	return doctor_str(cni_guid_str(g, buf, sizeof(buf)));
}

void doctor_finding(struct doctor *d, const char *severity, const char *subject, const char *fix,
		    const char *fmt, ...)
{
	struct json_object *f = json_object_new_object();
	char what[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	doctor_put(f, "severity", doctor_str(severity));
	if (d->check)
		doctor_put(f, "check", doctor_str(d->check));
	doctor_put(f, "subject", doctor_str(subject));
	doctor_put(f, "what", doctor_str(what));
	doctor_put(f, "fix", doctor_str(fix));
	json_object_array_add(d->findings, f);
	d->errors += !strcmp(severity, "error");
	d->warnings += !strcmp(severity, "warning");
}

int doctor_emit(struct doctor *d, bool json, void (*text)(struct doctor *d))
{
	struct json_object *sum = json_object_new_object();

	doctor_put(d->root, "findings", d->findings); /* root owns it now */
	doctor_put(sum, "errors", json_object_new_int((int)d->errors));
	doctor_put(sum, "warnings", json_object_new_int((int)d->warnings));
	doctor_put(d->root, "summary", sum);
	if (json) {
		_cleanup_free_ char *out = cni_json_dump(d->root, true);

		printf("%s\n", out ? out : "null");
	} else {
		text(d);
	}
	return d->errors ? 1 : 0;
}
