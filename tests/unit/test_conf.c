// SPDX-License-Identifier: Apache-2.0
/* The stdin rule table: decode errors, names, versions, prevResult, GC lists. */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <errno.h>
#include <fcntl.h>
#include <unistd.h>

#include "protocol/conf.h"
#include "protocol/conf_table.h"
#include "base/json.h"
#include "helpers.h"

struct conf_case {
	char input[200];
	int cmd;
	int code;
	char msg[64];
	char details[160];
};

ParameterizedTestParameters(conf, rules)
{
	static struct conf_case cases[] = {
	    {"not json", CNI_CMD_ADD, 6, "error unmarshall network config", ""},
	    {"[1]", CNI_CMD_ADD, 6, "error unmarshall network config",
	     "the network configuration must be a JSON object"},
	    {"{\"name\": 5}", CNI_CMD_ADD, 6, "error unmarshall network config",
	     "\"name\" must be a string"},
	    {"{\"cniVersion\": \"1.0.0\"}", CNI_CMD_ADD, 7, "missing network name", ""},
	    {"{\"name\": \"\"}", CNI_CMD_DEL, 7, "missing network name", ""},
	    {"{\"name\": \"../evil\"}", CNI_CMD_ADD, 7, "invalid characters found in network name",
	     "../evil"},
	    {"{\"name\": \".hidden\"}", CNI_CMD_ADD, 7, "invalid characters found in network name",
	     ".hidden"},
	    {"{\"name\": \"n\", \"cniVersion\": \"9.9.9\"}", CNI_CMD_ADD, 1,
	     "incompatible CNI versions",
	     "config is \"9.9.9\", plugin supports [\"0.1.0\" \"0.2.0\" \"0.3.0\" \"0.3.1\" "
	     "\"0.4.0\" \"1.0.0\" \"1.1.0\"]"},
	    {"{\"name\": \"n\", \"cniVersion\": 1}", CNI_CMD_ADD, 6,
	     "error unmarshall network config", "\"cniVersion\" must be a string"},
	    {"{\"name\": \"n\", \"cniVersion\": \"1.0.0\", \"prevResult\": "
	     "{\"ips\": [{\"address\": \"10.0.0.300/24\"}]}}",
	     CNI_CMD_ADD, 6, "failed to decode result", "ips[].address: 10.0.0.300/24"},
	    {"{\"name\": \"n\", \"cniVersion\": \"1.1.0\", \"cni.dev/valid-attachments\": 5}",
	     CNI_CMD_GC, 6, "error unmarshall network config", ""},
	    {"{\"name\": \"n\", \"cniVersion\": \"1.1.0\", \"ipam\": []}", CNI_CMD_ADD, 6,
	     "error unmarshall network config", "\"ipam\" must be an object"},
	    /* An escaped NUL would be truncated by every C reader: refused
	     * once, here, naming the key. */
	    {"{\"name\": \"n\", \"cniVersion\": \"1.0.0\\u0000\"}", CNI_CMD_ADD, 7,
	     "invalid configuration", "\"cniVersion\" contains a NUL character (\\u0000)"},
	    {"{\"name\": \"n\\u0000x\", \"cniVersion\": \"1.0.0\"}", CNI_CMD_ADD, 7,
	     "invalid configuration", "\"name\" contains a NUL character (\\u0000)"},
	    {"{\"name\": \"n\", \"cniVersion\": \"1.0.0\", \"spoofchk\": \"on\\u0000\"}",
	     CNI_CMD_ADD, 7, "invalid configuration",
	     "\"spoofchk\" contains a NUL character (\\u0000)"},
	    {"{\"name\": \"n\", \"cniVersion\": \"1.0.0\", \"ipam\": {\"type\": "
	     "\"host-local\\u0000\"}}",
	     CNI_CMD_ADD, 7, "invalid configuration",
	     "\"ipam.type\" contains a NUL character (\\u0000)"},
	    {"{\"name\": \"n\", \"cniVersion\": \"1.0.0\", \"ipam\": {\"ranges\": "
	     "[[{\"subnet\": \"10.0.0.0/8\\u0000\"}]]}}",
	     CNI_CMD_ADD, 7, "invalid configuration",
	     "\"ipam.ranges[0][0].subnet\" contains a NUL character (\\u0000)"},
	    {"{\"name\": \"n\", \"cniVersion\": \"1.0.0\", \"na\\u0000me\": \"x\"}", CNI_CMD_ADD, 7,
	     "invalid configuration", "a key contains a NUL character (\\u0000)"},
	    /* Invalid UTF-8 would be echoed into the error JSON. */
	    {"{\"name\": \"n\", \"cniVersion\": \"1.0.0\", \"mac\": \"\xff\xfe\"}", CNI_CMD_ADD, 6,
	     "error unmarshall network config", "invalid UTF-8 at byte 45"},
	    {"{\"name\": \"n\", \"cniVersion\": \"1.0.0\", \"prevResult\": {\"routes\": "
	     "[{\"dst\": \"0.0.0.0/0\", \"table\": -1}]}}",
	     CNI_CMD_ADD, 7, "invalid configuration",
	     "\"routes[0].table\" is -1; it must be from 0 to 2147483647"},
	};

	return cr_make_param_array(struct conf_case, cases, sizeof(cases) / sizeof(cases[0]));
}

ParameterizedTest(struct conf_case *c, conf, rules)
{
	struct cni_error err = {0};
	struct cni_conf *conf;
	char *raw = strdup(c->input);

	cr_assert_lt(cni_conf_parse(raw, strlen(raw), c->cmd, &conf, &err), 0, "%s", c->input);
	cr_assert_null(conf);
	assert_cni_error(&err, c->code, c->msg);
	if (*c->details)
		cr_assert_str_eq(err.details, c->details);
}

static struct cni_conf *parse_ok(const char *s, enum cni_command cmd)
{
	struct cni_error err = {0};
	struct cni_conf *conf;
	char *raw = strdup(s);

	cr_assert_eq(cni_conf_parse(raw, strlen(raw), cmd, &conf, &err), 0, "%s: %s", err.msg,
		     err.details);
	return conf;
}

Test(conf, missing_version_means_010_and_keys_match_like_go)
{
	struct cni_conf *c =
	    parse_ok("{\"Name\": \"net1\", \"TYPE\": \"ib-sriov\", "
		     "\"capabilities\": {\"ips\": true}, "
		     "\"RuntimeConfig\": {\"HostPort\": 1}, "
		     "\"ipam\": {\"Type\": \"host-local\"}, \"logLevel\": \"debug\"}",
		     CNI_CMD_ADD);

	cr_assert_eq(c->version, CNI_V010);
	cr_assert_str_eq(c->name, "net1");
	cr_assert_str_eq(c->type, "ib-sriov");
	cr_assert_str_eq(c->ipam_type, "host-local");
	cr_assert_str_eq(c->log_level.value, "debug");
	cr_assert_not_null(c->runtime_config);
	cni_conf_free(c);
}

Test(conf, prev_result_parsed_in_its_own_version)
{
	struct cni_conf *c = parse_ok(
	    "{\"name\": \"n\", \"cniVersion\": \"1.0.0\", \"args\": {\"cni\": {\"ips\": []}}, "
	    "\"prevResult\": {\"cniVersion\": \"0.2.0\", \"ip4\": {\"ip\": \"10.1.0.5/16\", "
	    "\"gateway\": \"10.1.0.1\", \"routes\": [{\"dst\": \"0.0.0.0/0\"}]}}}",
	    CNI_CMD_ADD);

	cr_assert_not_null(c->prev_result);
	cr_assert_eq(c->prev_result->n_ips, 1);
	cr_assert_eq(c->prev_result->n_routes, 1);
	cr_assert_eq(c->prev_result->ips[0].address.len, 16);
	cr_assert_not_null(c->args_cni);
	cni_conf_free(c);
}

Test(conf, escaped_backslash_is_not_a_nul)
{
	struct cni_conf *c = parse_ok("{\"name\": \"n\", \"cniVersion\": \"1.0.0\", "
				      "\"a\\\\u0000\": \"\\\\u0000\"}",
				      CNI_CMD_ADD);

	cr_assert_str_eq(json_object_get_string(cni_json_get(c->root, "a\\u0000")), "\\u0000");
	cni_conf_free(c);
}

/* logLevel and logFile never fail a request: a value that is not a string
 * or holds a NUL is kept out (bad says why); a NUL elsewhere, or in a key
 * such as "logFile\u0000", is still code 7. */
Test(conf, log_keys_never_fail)
{
	static const char nul_elsewhere[] =
	    "{\"name\": \"n\", \"cniVersion\": \"1.0.0\", \"logFile\": \"n.log\", "
	    "\"ipam\": {\"logFile\": \"a\\u0000\"}}";
	static const char nul_key[] = "{\"name\": \"n\", \"cniVersion\": \"1.0.0\", "
				      "\"logFile\\u0000x\": \"n.log\"}";
	struct cni_conf *c =
	    parse_ok("{\"name\": \"n\", \"cniVersion\": \"1.0.0\", \"logLevel\": 5, "
		     "\"logFile\": \"n.log\\u0000/../../etc/passwd\"}",
		     CNI_CMD_ADD);
	struct cni_error err = {0};
	struct cni_conf *bad = NULL;

	cr_assert_null(c->log_level.value);
	cr_assert_str_eq(c->log_level.bad, "it is not a string");
	cr_assert_null(c->log_file.value);
	cr_assert_str_eq(c->log_file.bad, "it contains a NUL character");
	cni_conf_free(c);
	cr_assert_eq(
	    cni_conf_parse(strdup(nul_elsewhere), strlen(nul_elsewhere), CNI_CMD_ADD, &bad, &err),
	    -EINVAL);
	assert_cni_error(&err, 7, "invalid configuration");
	cr_assert_str_eq(err.details, "\"ipam.logFile\" contains a NUL character (\\u0000)");
	memset(&err, 0, sizeof(err));
	cr_assert_eq(cni_conf_parse(strdup(nul_key), strlen(nul_key), CNI_CMD_DEL, &bad, &err),
		     -EINVAL);
	assert_cni_error(&err, 7, "invalid configuration");
	cr_assert_str_eq(err.details, "a key contains a NUL character (\\u0000)");
}

Test(conf, gc_attachments_both_keys)
{
	struct cni_conf *c =
	    parse_ok("{\"name\": \"n\", \"cniVersion\": \"1.1.0\", \"cni.dev/valid-attachments\": "
		     "[{\"containerID\": \"a\", \"ifname\": \"eth0\"}]}",
		     CNI_CMD_GC);

	cr_assert(c->has_attachments);
	cr_assert(cni_conf_attachment_valid(c, "a", "eth0"));
	cr_assert_not(cni_conf_attachment_valid(c, "a", "eth1"));
	cni_conf_free(c);
	c = parse_ok("{\"name\": \"n\", \"cniVersion\": \"1.1.0\", \"cni.dev/attachments\": []}",
		     CNI_CMD_GC);
	cr_assert(c->has_attachments);
	cr_assert_eq(c->n_attachments, 0);
	cni_conf_free(c);
	c = parse_ok("{\"name\": \"n\", \"cniVersion\": \"1.1.0\"}", CNI_CMD_GC);
	cr_assert_not(c->has_attachments);
	cni_conf_free(c);
}

static int file_with(size_t size)
{
	char path[] = "/tmp/ibcni-conf.XXXXXX";
	int fd = mkstemp(path);
	char *buf = malloc(size);

	cr_assert(fd >= 0 && buf);
	unlink(path);
	memset(buf, ' ', size);
	buf[0] = '{';
	buf[size - 1] = '}';
	cr_assert_eq(write(fd, buf, size), (ssize_t)size);
	lseek(fd, 0, SEEK_SET);
	free(buf);
	return fd;
}

Test(conf, one_mebibyte_accepted_more_refused)
{
	struct cni_error err = {0};
	char *buf;
	size_t len;
	int fd = file_with(CNI_CONF_MAX);

	cr_assert_eq(cni_conf_read(fd, &buf, &len, &err), 0);
	cr_assert_eq(len, CNI_CONF_MAX);
	free(buf);
	close(fd);
	fd = file_with(CNI_CONF_MAX + 1);
	cr_assert_eq(cni_conf_read(fd, &buf, &len, &err), -EFBIG);
	assert_cni_error(&err, 7, "network configuration too large");
	cr_assert_null(buf);
	close(fd);
}

Test(conf, read_error_is_code_5)
{
	struct cni_error err = {0};
	char *buf;
	size_t len;
	int fd = open("/", O_RDONLY | O_DIRECTORY);

	cr_assert_lt(cni_conf_read(fd, &buf, &len, &err), 0);
	assert_cni_error(&err, 5, "error reading from stdin");
	close(fd);
}

/* rdmaName's key kind, both plugins': a name by the rule, "auto" for
 * CNI_IFNAME, and one message naming the key (and "auto" when it was). */
Test(conf, rdma_name_key_kind)
{
	static const struct cni_conf_key keys[] = {CNI_CONF_RDMA_NAME("rdmaName", 0)};
	struct cni_error err = {0};
	char name[CNI_RDMA_NAME_MAX] = "x";
	struct json_object *o = json_tokener_parse("{}");
	struct cni_conf_load l = {.obj = o, .dst = name, .err = &err, .ifname = "net1"};

	cr_assert_eq(cni_conf_load(&l, keys, 1), 0);
	cr_assert_str_eq(name, "", "absent: none");
	json_object_put(o);
	l.obj = o = json_tokener_parse("{\"rdmaName\":\"auto\"}");
	cr_assert_eq(cni_conf_load(&l, keys, 1), 0);
	cr_assert_str_eq(name, "net1");
	json_object_put(o);
	l.obj = o = json_tokener_parse("{\"rdmaName\":\"rail0.mlx5\"}");
	cr_assert_eq(cni_conf_load(&l, keys, 1), 0);
	cr_assert_str_eq(name, "rail0.mlx5");
	json_object_put(o);
	l.obj = o = json_tokener_parse("{\"rdmaName\":\"a/b\"}");
	cr_assert_eq(cni_conf_load(&l, keys, 1), -EINVAL);
	assert_cni_error(&err, 7, "invalid configuration");
	cr_assert_str_eq(
	    err.details,
	    "\"rdmaName\" is \"a/b\"; an RDMA device name is 1 to 63 letters, digits, "
	    "'_', '-', '.' or ':' starting with a letter or digit, or \"auto\" for the "
	    "pod interface's name");
	json_object_put(o);
	err = (struct cni_error){0};
	l.ifname = "-x";
	l.obj = o = json_tokener_parse("{\"rdmaName\":\"auto\"}");
	cr_assert_eq(cni_conf_load(&l, keys, 1), -EINVAL);
	cr_assert(strstr(err.details, "\"rdmaName\" is \"-x\" (auto);"), "%s", err.details);
	json_object_put(o);
	l.obj = o = json_tokener_parse("{\"rdmaName\":7}");
	cr_assert_eq(cni_conf_load(&l, keys, 1), -EINVAL, "a wrong type");
	json_object_put(o);
}
