// SPDX-License-Identifier: Apache-2.0
/* The node configuration: defaults, every key, and every way the file can be wrong. */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/cleanup.h"
#include "protocol/nodeconf.h"
#include "helpers.h"

static char dir[64];
static char path[128];

static void setup(void)
{
	make_tmpdir(dir, sizeof(dir));
	snprintf(path, sizeof(path), "%s/ibcni.conf", dir);
}

static void teardown(void)
{
	rm_tree(dir);
}

TestSuite(nodeconf, .init = setup, .fini = teardown);

static void put(const char *text)
{
	tree_put(dir, "ibcni.conf", text);
	cr_assert_eq(chmod(path, 0644), 0);
}

static void assert_defaults(const struct cni_nodeconf *nc)
{
	cr_assert_eq(nc->n_allowed_data_dirs, 1);
	cr_assert_str_eq(nc->allowed_data_dirs[0], "/var/lib/cni/networks");
	cr_assert_null(nc->allowed_data_dirs[1]);
	cr_assert_eq(nc->device_check, CNI_DEVICE_CHECK_KUBELET);
	cr_assert_eq(nc->max_wait_ms, 30000);
	cr_assert_eq(nc->n_dra_drivers, 1);
	cr_assert_str_eq(nc->dra_drivers[0], "sriovnetwork.k8snetworkplumbingwg.io");
}

/* The load fails with code c and details holding path then want. */
static void assert_refused(int c, const char *want)
{
	struct cni_nodeconf nc;
	struct cni_error err = {0};
	char prefix[160];

	cr_assert_lt(cni_nodeconf_load(&nc, path, &err), 0, "accepted: want %s", want);
	cr_assert_eq(err.code, c, "code %d: %s: %s", err.code, err.msg, err.details);
	snprintf(prefix, sizeof(prefix), "%s: ", path);
	cr_assert_eq(strncmp(err.details, prefix, strlen(prefix)), 0, "%s", err.details);
	cr_assert(strstr(err.details, want), "details \"%s\", want \"%s\"", err.details, want);
	cr_assert_eq(nc.n_allowed_data_dirs, 0, "a failed load leaves nothing to free");
}

Test(nodeconf, absent_file_gives_the_defaults)
{
	struct cni_nodeconf nc;
	struct cni_error err = {0};

	cr_assert_eq(cni_nodeconf_load(&nc, path, &err), 0, "%s", err.details);
	cr_assert_eq(err.code, 0);
	assert_defaults(&nc);
	cni_nodeconf_free(&nc);
	cr_assert_eq(nc.n_allowed_data_dirs, 0);
	assert_defaults(cni_nodeconf_defaults());
}

Test(nodeconf, empty_object_gives_the_defaults)
{
	struct cni_nodeconf nc;
	struct cni_error err = {0};

	put("{}\n");
	cr_assert_eq(cni_nodeconf_load(&nc, path, &err), 0, "%s", err.details);
	assert_defaults(&nc);
	cni_nodeconf_free(&nc);
}

Test(nodeconf, every_key)
{
	struct cni_nodeconf nc;
	struct cni_error err = {0};

	put("{\"allowedDataDirs\": [\"/var/lib/cni/networks\", \"//srv//ipam/\", \"/data\"],\n"
	    " \"deviceCheck\": \"off\", \"maxWaitMs\": 600000}\n");
	cr_assert_eq(cni_nodeconf_load(&nc, path, &err), 0, "%s", err.details);
	cr_assert_eq(nc.n_allowed_data_dirs, 3);
	cr_assert_str_eq(nc.allowed_data_dirs[0], "/var/lib/cni/networks");
	cr_assert_str_eq(nc.allowed_data_dirs[1], "/srv/ipam", "normalised");
	cr_assert_str_eq(nc.allowed_data_dirs[2], "/data");
	cr_assert_eq(nc.device_check, CNI_DEVICE_CHECK_OFF);
	cr_assert_eq(nc.max_wait_ms, 600000);
	cni_nodeconf_free(&nc);
}

Test(nodeconf, dra_drivers_replace_the_default)
{
	struct cni_nodeconf nc;
	struct cni_error err = {0};

	put("{\"draDrivers\": [\"net.example.com\", \"sriovnetwork.k8snetworkplumbingwg.io\"]}\n");
	cr_assert_eq(cni_nodeconf_load(&nc, path, &err), 0, "%s", err.details);
	cr_assert_eq(nc.n_dra_drivers, 2);
	cr_assert_str_eq(nc.dra_drivers[0], "net.example.com");
	cr_assert_str_eq(nc.dra_drivers[1], "sriovnetwork.k8snetworkplumbingwg.io");
	cni_nodeconf_free(&nc);
	put("{\"draDrivers\": []}\n");
	cr_assert_eq(cni_nodeconf_load(&nc, path, &err), 0, "%s", err.details);
	cr_assert_eq(nc.n_dra_drivers, 0, "[] takes no claim device");
	cni_nodeconf_free(&nc);
}

Test(nodeconf, list_replaces_the_default_and_zero_wait)
{
	struct cni_nodeconf nc;
	struct cni_error err = {0};

	put("{\"allowedDataDirs\": [\"/srv/ipam\"], \"deviceCheck\": \"kubelet\", "
	    "\"maxWaitMs\": 0}");
	cr_assert_eq(cni_nodeconf_load(&nc, path, &err), 0, "%s", err.details);
	cr_assert_eq(nc.n_allowed_data_dirs, 1);
	cr_assert_str_eq(nc.allowed_data_dirs[0], "/srv/ipam");
	cr_assert_eq(nc.device_check, CNI_DEVICE_CHECK_KUBELET);
	cr_assert_eq(nc.max_wait_ms, 0);
	cni_nodeconf_free(&nc);
}

Test(nodeconf, sixteen_dirs_fit)
{
	char text[1024] = "{\"allowedDataDirs\": [";
	struct cni_nodeconf nc;
	struct cni_error err = {0};

	for (int i = 0; i < CNI_NODECONF_MAX_DIRS; i++)
		snprintf(text + strlen(text), sizeof(text) - strlen(text), "%s\"/d%d\"",
			 i ? "," : "", i);
	strcat(text, "]}");
	put(text);
	cr_assert_eq(cni_nodeconf_load(&nc, path, &err), 0, "%s", err.details);
	cr_assert_eq(nc.n_allowed_data_dirs, CNI_NODECONF_MAX_DIRS);
	cr_assert_str_eq(nc.allowed_data_dirs[15], "/d15");
	cni_nodeconf_free(&nc);

	strcpy(text + strlen(text) - 2, ",\"/d16\"]}");
	put(text);
	assert_refused(7, "\"allowedDataDirs\" must be a list of 1 to 16 absolute directories");
}

struct bad_case {
	char text[128];
	char want[192];
};

ParameterizedTestParameters(nodeconf, bad_contents)
{
	static struct bad_case cases[] = {
	    {"not json", "not JSON"},
	    {"", "not JSON: unexpected end of JSON input"},
	    {"[]", "must be a JSON object"},
	    {"{} {}", "not JSON"},
	    {"{\"maxWaitMS\": 5}",
	     "unknown key \"maxWaitMS\"; the keys are allowedDataDirs, "
	     "deviceCheck, draDrivers, maxWaitMs, ranges, reclaimLeases and softRdmaByMac"},
	    {"{\"draDrivers\": \"x.io\"}", "\"draDrivers\" must be a list of at most 8"},
	    {"{\"draDrivers\": [5]}", "\"draDrivers\"[0] is 5; it must be a DRA driver's name"},
	    {"{\"draDrivers\": [\"a.io\", \"Upper.io\"]}", "\"draDrivers\"[1] is \"Upper.io\""},
	    {"{\"draDrivers\": [\".io\"]}", "\"draDrivers\"[0] is \".io\""},
	    {"{\"draDrivers\": [\"a..io\"]}", "\"draDrivers\"[0] is \"a..io\""},
	    {"{\"draDrivers\": [\"\"]}", "\"draDrivers\"[0] is \"\""},
	    {"{\"draDrivers\": [\"a/b\"]}", "\"draDrivers\"[0] is \"a\\/b\""},
	    {"{\"draDrivers\": [\"1\",\"2\",\"3\",\"4\",\"5\",\"6\",\"7\",\"8\",\"9\"]}",
	     "\"draDrivers\" must be a list of at most 8"},
	    {"{\"reclaimLeases\": \"yes\"}", "\"reclaimLeases\" is \"yes\"; it must be true"},
	    {"{\"reclaimLeases\": 1}", "\"reclaimLeases\" is 1; it must be true"},
	    {"{\"softRdmaByMac\": \"true\"}", "\"softRdmaByMac\" is \"true\"; it must be true"},
	    {"{\"softRdmaByMac\": 1}", "\"softRdmaByMac\" is 1; it must be true"},
	    {"{\"softRdmaByMac\": null}", "\"softRdmaByMac\" is null"},
	    {"{\"dataDir\": \"/x\"}", "unknown key \"dataDir\""},
	    {"{\"deviceCheck\": \"on\"}",
	     "\"deviceCheck\" is \"on\"; it must be \"kubelet\" or \"off\""},
	    {"{\"deviceCheck\": \"Kubelet\"}", "\"deviceCheck\" is \"Kubelet\""},
	    {"{\"deviceCheck\": false}", "\"deviceCheck\" is false"},
	    {"{\"deviceCheck\": null}", "\"deviceCheck\" is null"},
	    {"{\"maxWaitMs\": -1}", "\"maxWaitMs\" is -1; it must be an integer from 0 to 600000"},
	    {"{\"maxWaitMs\": 600001}", "\"maxWaitMs\" is 600001"},
	    {"{\"maxWaitMs\": 99999999999999999999}", "\"maxWaitMs\" is"},
	    {"{\"maxWaitMs\": 1.5}", "\"maxWaitMs\" is 1.5"},
	    {"{\"maxWaitMs\": \"100\"}", "\"maxWaitMs\" is \"100\""},
	    {"{\"allowedDataDirs\": \"/srv\"}", "\"allowedDataDirs\" must be a list of 1 to 16"},
	    {"{\"allowedDataDirs\": []}", "\"allowedDataDirs\" must be a list of 1 to 16"},
	    {"{\"allowedDataDirs\": [5]}", "\"allowedDataDirs\"[0] must be a string"},
	    {"{\"allowedDataDirs\": [\"/a\", \"srv\"]}",
	     "\"allowedDataDirs\"[1] is \"srv\"; it must be an absolute directory other than / "
	     "without \".\" or \"..\" components"},
	    {"{\"allowedDataDirs\": [\"/\"]}", "\"allowedDataDirs\"[0] is \"/\""},
	    {"{\"allowedDataDirs\": [\"///\"]}", "\"allowedDataDirs\"[0] is \"///\""},
	    {"{\"allowedDataDirs\": [\"\"]}", "\"allowedDataDirs\"[0] is \"\""},
	    {"{\"allowedDataDirs\": [\"/var/lib/../../etc\"]}", "\"allowedDataDirs\"[0] is"},
	    {"{\"allowedDataDirs\": [\"/var/./lib\"]}", "\"allowedDataDirs\"[0] is"},
	    {"{\"allowedDataDirs\": [\"/var/lib/..\"]}", "\"allowedDataDirs\"[0] is"},
	    {"{\"allowedDataDirs\": [\"/a\\u0000b\"]}",
	     "\"allowedDataDirs[0]\" contains a NUL character"},
	    {"{\"allowedDataDirs\": [\"/a\"], \"x\": 1}", "unknown key \"x\""},
	};

	return cr_make_param_array(struct bad_case, cases, ARRAY_SIZE(cases));
}

ParameterizedTest(struct bad_case *tc, nodeconf, bad_contents)
{
	put(tc->text);
	assert_refused(7, tc->want);
}

Test(nodeconf, invalid_utf8)
{
	put("{\"allowedDataDirs\": [\"/\xff\"]}");
	assert_refused(7, "invalid UTF-8 at byte 23");
}

Test(nodeconf, a_symlink_is_refused)
{
	tree_put(dir, "real.conf", "{}");
	tree_link(dir, "real.conf", "ibcni.conf");
	assert_refused(7, "is a symbolic link");
}

Test(nodeconf, group_or_other_writable_is_refused)
{
	put("{}");
	cr_assert_eq(chmod(path, 0664), 0);
	assert_refused(7, "must be owned by uid");
	cr_assert_eq(chmod(path, 0646), 0);
	assert_refused(7, "mode 0646); chown root and chmod 0644 it");
	cr_assert_eq(chmod(path, 0600), 0);
	{
		struct cni_nodeconf nc;
		struct cni_error err = {0};

		cr_assert_eq(cni_nodeconf_load(&nc, path, &err), 0, "%s", err.details);
		cni_nodeconf_free(&nc);
	}
}

Test(nodeconf, another_owner_is_refused)
{
	if (geteuid() != 0)
		cr_skip_test("only root can give a file away");
	put("{}");
	cr_assert_eq(chown(path, 1, 0), 0);
	assert_refused(7, "must be owned by uid 0 and not group- or other-writable (owner 1, "
			  "mode 0644)");
}

Test(nodeconf, oversize_is_refused)
{
	static char big[CNI_NODECONF_MAX_SIZE + 2];

	memset(big, ' ', sizeof(big) - 1);
	big[0] = '{';
	big[sizeof(big) - 2] = '}';
	put(big);
	assert_refused(7, "is larger than 65536 bytes");
	/* Exactly the limit is read. */
	big[sizeof(big) - 3] = '}';
	big[sizeof(big) - 2] = '\0';
	put(big);
	{
		struct cni_nodeconf nc;
		struct cni_error err = {0};

		cr_assert_eq(cni_nodeconf_load(&nc, path, &err), 0, "%s", err.details);
		cni_nodeconf_free(&nc);
	}
}

Test(nodeconf, a_directory_or_fifo_is_refused_without_hanging)
{
	cr_assert_eq(mkdir(path, 0755), 0);
	assert_refused(7, "is not a regular file");
	cr_assert_eq(rmdir(path), 0);
	cr_assert_eq(mkfifo(path, 0644), 0);
	assert_refused(7, "is not a regular file");
}

Test(nodeconf, unreadable_parent_is_an_io_error)
{
	struct cni_nodeconf nc;
	struct cni_error err = {0};
	char file[160];

	/* A file where the directory should be: not "absent", not defaults. */
	snprintf(file, sizeof(file), "%s/ibcni.conf/x", dir);
	put("{}");
	cr_assert_lt(cni_nodeconf_load(&nc, file, &err), 0);
	cr_assert_eq(err.code, 5, "%s", err.details);
	cr_assert_str_eq(err.msg, "cannot read the node configuration");
	cr_assert(strstr(err.details, "Not a directory"), "%s", err.details);
}

/* A drop-in at ibcni.conf.d/name, as the installer writes one. */
static void put_dropin(const char *name, const char *text, mode_t dmode)
{
	char d[160], rel[400];

	snprintf(d, sizeof(d), "%s/ibcni.conf.d", dir);
	mkdir(d, 0755);
	cr_assert_eq(chmod(d, dmode), 0);
	snprintf(rel, sizeof(rel), "ibcni.conf.d/%s", name);
	tree_put(dir, rel, text);
	snprintf(rel, sizeof(rel), "%s/%s", d, name);
	cr_assert_eq(chmod(rel, 0644), 0);
}

Test(nodeconf, dropins_add_keys_in_name_order_and_ignore_other_files)
{
	struct cni_nodeconf nc;
	struct cni_error err = {0};

	put("{\"maxWaitMs\": 100}");
	put_dropin("20-check.conf", "{\"deviceCheck\": \"off\"}", 0755);
	put_dropin("10-ranges.conf", "{\"ranges\": {\"ib0\": [[{\"subnet\": \"10.56.1.0/24\"}]]}}",
		   0755);
	/* Not drop-ins: another suffix, a hidden temp file of an atomic write. */
	put_dropin("README", "not json", 0755);
	put_dropin(".30-x.conf.ibcni-new", "not json", 0755);
	cr_assert_eq(cni_nodeconf_load(&nc, path, &err), 0, "%s", err.details);
	cr_assert_eq(nc.max_wait_ms, 100);
	cr_assert_eq(nc.device_check, CNI_DEVICE_CHECK_OFF);
	cr_assert_not_null(cni_nodeconf_ranges(&nc, "ib0"));
	cni_nodeconf_free(&nc);
}

Test(nodeconf, dropins_without_the_main_file)
{
	struct cni_nodeconf nc;
	struct cni_error err = {0};

	put_dropin("ranges.conf", "{\"deviceCheck\": \"off\"}", 0755);
	cr_assert_eq(cni_nodeconf_load(&nc, path, &err), 0, "%s", err.details);
	cr_assert_eq(nc.device_check, CNI_DEVICE_CHECK_OFF);
	cr_assert_eq(nc.max_wait_ms, 30000);
	cni_nodeconf_free(&nc);
}

Test(nodeconf, a_key_in_two_files_names_both)
{
	struct cni_nodeconf nc;
	struct cni_error err = {0};
	char want[400];

	put("{\"deviceCheck\": \"kubelet\"}");
	put_dropin("a.conf", "{\"deviceCheck\": \"off\"}", 0755);
	cr_assert_lt(cni_nodeconf_load(&nc, path, &err), 0);
	cr_assert_eq(err.code, 7);
	snprintf(want, sizeof(want), "%s/ibcni.conf.d/a.conf: \"deviceCheck\" is set in %s already",
		 dir, path);
	cr_assert(strstr(err.details, want), "%s", err.details);
}

/* Two drop-ins with names near NAME_MAX (their paths longer than the
 * message buffer): the key is still set once, never silently twice. */
Test(nodeconf, a_key_in_two_long_named_dropins)
{
	struct cni_nodeconf nc;
	struct cni_error err = {0};
	char a[256], b[256];

	memset(a, 'a', 240);
	memcpy(a + 240, ".conf", 6);
	memcpy(b, a, sizeof(a));
	b[0] = 'b';
	put_dropin(a, "{\"deviceCheck\": \"kubelet\"}", 0755);
	put_dropin(b, "{\"deviceCheck\": \"off\"}", 0755);
	cr_assert_lt(cni_nodeconf_load(&nc, path, &err), 0, "the second file overrode the first");
	cr_assert_eq(err.code, 7);
	cr_assert(strstr(err.details, "\"deviceCheck\" is set in "), "%s", err.details);
}

Test(nodeconf, a_bad_dropin_is_named)
{
	struct cni_nodeconf nc;
	struct cni_error err = {0};

	put_dropin("b.conf", "{\"maxWaitMs\": -1}", 0755);
	cr_assert_lt(cni_nodeconf_load(&nc, path, &err), 0);
	cr_assert_eq(err.code, 7);
	cr_assert(strstr(err.details, "ibcni.conf.d/b.conf: \"maxWaitMs\""), "%s", err.details);
}

Test(nodeconf, a_writable_dropin_dir_is_refused)
{
	struct cni_nodeconf nc;
	struct cni_error err = {0};

	put_dropin("c.conf", "{}", 0777);
	cr_assert_lt(cni_nodeconf_load(&nc, path, &err), 0);
	cr_assert_eq(err.code, 7);
	cr_assert(strstr(err.details, "ibcni.conf.d: must be a directory owned by uid"), "%s",
		  err.details);
}

Test(nodeconf, a_linked_dropin_is_refused)
{
	struct cni_nodeconf nc;
	struct cni_error err = {0};
	char target[160], link[200];

	put_dropin("d.conf", "{}", 0755);
	snprintf(target, sizeof(target), "%s/ibcni.conf.d/d.conf", dir);
	snprintf(link, sizeof(link), "%s/ibcni.conf.d/e.conf", dir);
	cr_assert_eq(symlink(target, link), 0);
	cr_assert_lt(cni_nodeconf_load(&nc, path, &err), 0);
	cr_assert(strstr(err.details, "e.conf: is a symbolic link"), "%s", err.details);
}

Test(nodeconf, reclaim_leases_is_off_unless_set)
{
	struct cni_nodeconf nc;
	struct cni_error err = {0};

	cr_assert_eq(cni_nodeconf_load(&nc, path, &err), 0, "%s", err.details);
	cr_assert_eq(nc.reclaim_leases, false, "absent file");
	cni_nodeconf_free(&nc);
	cr_assert_eq(cni_nodeconf_defaults()->reclaim_leases, false);
	put("{\"reclaimLeases\": false}\n");
	cr_assert_eq(cni_nodeconf_load(&nc, path, &err), 0, "%s", err.details);
	cr_assert_eq(nc.reclaim_leases, false);
	cni_nodeconf_free(&nc);
	put("{\"reclaimLeases\": true}\n");
	cr_assert_eq(cni_nodeconf_load(&nc, path, &err), 0, "%s", err.details);
	cr_assert_eq(nc.reclaim_leases, true);
	cni_nodeconf_free(&nc);
	/* In a drop-in of its own, where a downgrade never reads it. */
	put("{}\n");
	put_dropin("agent.conf", "{\"reclaimLeases\": true}\n", 0755);
	cr_assert_eq(cni_nodeconf_load(&nc, path, &err), 0, "%s", err.details);
	cr_assert_eq(nc.reclaim_leases, true);
	cni_nodeconf_free(&nc);
}

/* rdma-ns's host branch (security review 5, U1): off unless the admin says so. */
Test(nodeconf, soft_rdma_by_mac_is_off_unless_set)
{
	struct cni_nodeconf nc;
	struct cni_error err = {0};
	char want[200];

	cr_assert_eq(cni_nodeconf_load(&nc, path, &err), 0, "%s", err.details);
	cr_assert_eq(nc.soft_rdma_by_mac, false, "absent file");
	cni_nodeconf_free(&nc);
	cr_assert_eq(cni_nodeconf_defaults()->soft_rdma_by_mac, false);
	put("{\"softRdmaByMac\": true}\n");
	cr_assert_eq(cni_nodeconf_load(&nc, path, &err), 0, "%s", err.details);
	cr_assert_eq(nc.soft_rdma_by_mac, true);
	cni_nodeconf_free(&nc);
	put("{\"softRdmaByMac\": false}\n");
	cr_assert_eq(cni_nodeconf_load(&nc, path, &err), 0, "%s", err.details);
	cr_assert_eq(nc.soft_rdma_by_mac, false);
	cni_nodeconf_free(&nc);
	put("{}\n");
	put_dropin("rdma.conf", "{\"softRdmaByMac\": true}\n", 0755);
	cr_assert_eq(cni_nodeconf_load(&nc, path, &err), 0, "%s", err.details);
	cr_assert_eq(nc.soft_rdma_by_mac, true, "from a drop-in");
	cni_nodeconf_free(&nc);
	/* A wrong type in a drop-in names that file and the key. */
	put_dropin("rdma.conf", "{\"softRdmaByMac\": \"yes\"}\n", 0755);
	cr_assert_lt(cni_nodeconf_load(&nc, path, &err), 0);
	cr_assert_eq(err.code, 7);
	snprintf(want, sizeof(want), "%s.d/rdma.conf: \"softRdmaByMac\" is \"yes\"", path);
	cr_assert(strstr(err.details, want), "%s", err.details);
}

/* "ranges" names the file that set it (the namespace refusal says where the
 * list is); a drop-in's path is kept whole. */
Test(nodeconf, ranges_file_is_the_file_that_set_it)
{
	struct cni_nodeconf nc;
	struct cni_error err = {0};
	char want[200];

	put("{\"maxWaitMs\": 100}");
	cr_assert_eq(cni_nodeconf_load(&nc, path, &err), 0, "%s", err.details);
	cr_assert_str_eq(nc.ranges_file, "");
	cni_nodeconf_free(&nc);
	put_dropin("ranges.conf",
		   "{\"ranges\": {\"ib0\": {\"namespaces\": [\"team-a\"], \"ranges\": "
		   "[[{\"subnet\": \"10.56.1.0/24\"}]]}}}",
		   0755);
	cr_assert_eq(cni_nodeconf_load(&nc, path, &err), 0, "%s", err.details);
	snprintf(want, sizeof(want), "%s/ibcni.conf.d/ranges.conf", dir);
	cr_assert_str_eq(nc.ranges_file, want);
	cr_assert_not_null(cni_nodeconf_ranges(&nc, "ib0"));
	cni_nodeconf_free(&nc);
}

Test(nodeconf, namespace_names_are_dns_labels)
{
	const char *good[] = {"a", "team-a", "0", "kube-system",
			      "abcdefghijklmnopqrstuvwxyzabcdefghijklmnopqrstuvwxyzabcdefghijk"};
	const char *bad[] = {
	    NULL,	"",
	    "-a",	"a-",
	    "Team",	"a.b",
	    "a_b",	"a b",
	    "a/b",	"a\n",
	    "..",	"ns;",
	    "\xc3\xa9", "abcdefghijklmnopqrstuvwxyzabcdefghijklmnopqrstuvwxyzabcdefghijkl"};

	for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++)
		cr_assert(cni_nodeconf_namespace_ok(good[i]), "%s refused", good[i]);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		cr_assert_not(cni_nodeconf_namespace_ok(bad[i]), "%s accepted",
			      bad[i] ? bad[i] : "NULL");
}
