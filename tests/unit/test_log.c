// SPDX-License-Identifier: Apache-2.0
/* Logging: where a logFile may be (below the log directory, never through a
 * link, ours), escaping, levels, rotation. */
#include <criterion/criterion.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/cleanup.h"
#include "base/log.h"
#include "base/util.h"
#include "helpers.h"

static char logdir[64];
static int stderr_saved = -1;
static char stderr_path[96];

/* Confine logFile to a fresh directory, and catch stderr in a file. */
static void log_init(void)
{
	int fd;

	make_tmpdir(logdir, sizeof(logdir));
	cni_log_dir = logdir;
	snprintf(stderr_path, sizeof(stderr_path), "%s.stderr", logdir);
	fd = open(stderr_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	cr_assert_geq(fd, 0);
	fflush(stderr);
	stderr_saved = dup(STDERR_FILENO);
	dup2(fd, STDERR_FILENO);
	close(fd);
	cni_log_context("unit", "ADD", "ctr", "eth0");
}

static void log_fini(void)
{
	cni_log_close();
	if (stderr_saved >= 0) {
		dup2(stderr_saved, STDERR_FILENO);
		close(stderr_saved);
	}
	unlink(stderr_path);
	rm_tree(logdir);
}

/* The text of path under the log directory ("" when absent). */
static char *slurp(const char *path)
{
	char *text = NULL;

	if (read_file(path, 1 << 20, &text, NULL))
		text = strdup("");
	return text;
}

static char *in_logdir(char *buf, size_t len, const char *rel)
{
	snprintf(buf, len, "%s/%s", logdir, rel);
	return buf;
}

/* How many times needle occurs in text. */
static size_t count(const char *text, const char *needle)
{
	size_t n = 0;

	for (const char *p = text; (p = strstr(p, needle)); p += strlen(needle))
		n++;
	return n;
}

TestSuite(log, .init = log_init, .fini = log_fini, .timeout = 10);

Test(log, file_and_levels)
{
	_cleanup_free_ char *text = NULL;
	char path[128];

	cni_log_setup("warning", "unit.log");
	log_info("hidden");
	log_warn("shown %d", 1);
	/* The same file by its absolute name. */
	cni_log_setup("DEBUG", in_logdir(path, sizeof(path), "unit.log"));
	log_debug("debug line");
	cni_log_close();
	text = slurp(path);
	cr_assert_null(strstr(text, "hidden"));
	cr_assert(strstr(text, "[warning] unit ADD ctr/eth0: shown 1\n"), "%s", text);
	cr_assert(strstr(text, "[debug] unit ADD ctr/eth0: debug line\n"), "%s", text);
	free(text);
	text = slurp(stderr_path);
	cr_assert_eq(text[0], '\0', "stderr stays quiet with a logFile");
}

Test(log, bad_level_warns_and_uses_info)
{
	_cleanup_free_ char *text = NULL;
	char path[128];

	cni_log_context("unit", "DEL", "", "");
	cni_log_setup("loud", "unit.log");
	log_info("info shown");
	log_debug("debug hidden");
	cni_log_close();
	text = slurp(in_logdir(path, sizeof(path), "unit.log"));
	cr_assert(strstr(text, "logLevel \"loud\" is not panic, error, warning, info or debug"),
		  "%s", text);
	cr_assert(strstr(text, "info shown"));
	cr_assert_null(strstr(text, "debug hidden"));
}

/* logFile ignored: the message on stderr, the line there too, and the
 * would-be target untouched. */
static void assert_refused(const char *file, const char *target, const char *why)
{
	_cleanup_free_ char *before = slurp(target);
	_cleanup_free_ char *after = NULL;
	_cleanup_free_ char *err = NULL;
	char want[512];

	cni_log_setup("info", file);
	log_info("after %s", file);
	cni_log_close();
	after = slurp(target);
	cr_assert_str_eq(after, before, "%s was written through logFile %s", target, file);
	err = slurp(stderr_path);
	snprintf(want, sizeof(want), "logFile \"%s\" ignored (%s); logging to stderr", file, why);
	cr_assert(strstr(err, want), "want \"%s\" in stderr: %s", want, err);
	cr_assert(strstr(err, "after "), "%s", err);
	cr_assert_eq(ftruncate(STDERR_FILENO, 0), 0);
	lseek(STDERR_FILENO, 0, SEEK_SET);
}

Test(log, outside_the_directory_refused)
{
	char outside[96], rel[128];

	snprintf(outside, sizeof(outside), "%s.keys", logdir);
	tree_put("/", outside + 1, "ssh-ed25519 AAAA owner\n");
	assert_refused(outside, outside, "it is not under the log directory");
	snprintf(rel, sizeof(rel), "../%s.keys", strrchr(logdir, '/') + 1);
	assert_refused(rel, outside, "not a plain name, or not a regular file with one link");
	snprintf(rel, sizeof(rel), "%s/../%s.keys", logdir, strrchr(logdir, '/') + 1);
	assert_refused(rel, outside, "not a plain name, or not a regular file with one link");
	snprintf(rel, sizeof(rel), "%sx/a.log", logdir);
	assert_refused(rel, outside, "it is not under the log directory");
	unlink(outside);
}

Test(log, links_refused)
{
	char outside[96], path[128];

	snprintf(outside, sizeof(outside), "%s.keys", logdir);
	tree_put("/", outside + 1, "ssh-ed25519 AAAA owner\n");
	/* A symbolic link as the file, and as a directory on the way. */
	tree_link(logdir, outside, "authorized_keys");
	assert_refused("authorized_keys", outside,
		       "a symbolic link or a non-directory is on the way");
	/* Subdirectories are not log names at all, links or not. */
	tree_link(logdir, "/tmp", "sub");
	snprintf(path, sizeof(path), "sub/%s.keys", strrchr(logdir, '/') + 1);
	assert_refused(path, outside, "not a plain name, or not a regular file with one link");
	/* A hard link: a second name of someone else's file. */
	cr_assert_eq(link(outside, in_logdir(path, sizeof(path), "hard.log")), 0);
	assert_refused("hard.log", outside,
		       "not a plain name, or not a regular file with one link");
	unlink(outside);
}

Test(log, planted_files_refused_without_hanging)
{
	char path[128];

	cr_assert_eq(mkfifo(in_logdir(path, sizeof(path), "fifo.log"), 0600), 0);
	assert_refused("fifo.log", path, "No such device or address");
	tree_mkdir(logdir, "dir.log");
	assert_refused("dir.log", in_logdir(path, sizeof(path), "dir.log"), "Is a directory");
	tree_put(logdir, "shared.log", "");
	cr_assert_eq(chmod(in_logdir(path, sizeof(path), "shared.log"), 0666), 0);
	assert_refused("shared.log", path, "not owned by root, or writable by group or others");
	tree_mkdir(logdir, "open");
	cr_assert_eq(chmod(in_logdir(path, sizeof(path), "open"), 0777), 0);
	assert_refused("open/x.log", in_logdir(path, sizeof(path), "open/x.log"),
		       "not a plain name, or not a regular file with one link");
	/* R7: a name with escapes is no log name: no such file is made. */
	{
		_cleanup_dir_ DIR *d = NULL;
		struct dirent *e;

		cni_log_setup("info", "\x1b[2J\x1b[31mPWNED\n");
		log_info("line");
		cni_log_close();
		d = opendir(logdir);
		cr_assert_not_null(d);
		while ((e = readdir(d)))
			cr_assert_null(strstr(e->d_name, "PWNED"), "%s made", e->d_name);
		cr_assert_eq(ftruncate(STDERR_FILENO, 0), 0);
		lseek(STDERR_FILENO, 0, SEEK_SET);
	}
	assert_refused(".hidden", in_logdir(path, sizeof(path), ".hidden"),
		       "not a plain name, or not a regular file with one link");
	cr_assert_neq(access(in_logdir(path, sizeof(path), ".hidden"), F_OK), 0);
}

/* T8: a network's config may name its own log only. */
Test(log, only_the_networks_own_file)
{
	static const char *const ok[] = {"",	      "tenantB", "tenantB.log", "tenantB-debug.log",
					 "tenantB.1", NULL};
	static const char *const refused[] = {
	    "tenantBx.log",  "tenant.log",   "other.log",
	    "tenantB/x",     ".tenantB",     "tenantB.l\x1bg",
	    "tenantB.log\n", "tenantB.l og", "/var/log/ibcni/other.log",
	    "tenantB_log"};
	char abs[128];

	for (size_t i = 0; ok[i]; i++)
		cr_assert(cni_log_file_ours(ok[i], "tenantB"), "%s", ok[i]);
	cr_assert(cni_log_file_ours(NULL, "tenantB"));
	cr_assert(cni_log_file_ours(in_logdir(abs, sizeof(abs), "tenantB.log"), "tenantB"));
	for (size_t i = 0; i < ARRAY_SIZE(refused); i++)
		cr_assert_not(cni_log_file_ours(refused[i], "tenantB"), "%s", refused[i]);
}

/* Another network's file, or one outside the directory, as the SR-IOV
 * Network Operator renders them: ignored with one warning on stderr naming
 * logFile, the path and stderr; the lines go there; no file is made. */
Test(log, apply_ignores_what_is_not_ours)
{
	static const char *const files[] = {"other.log", "/var/log/sriov-cni.log", "tenantBx.log"};
	_cleanup_free_ char *err = NULL;
	char want[256], path[128];

	tree_put(logdir, "other.log", "");
	for (size_t i = 0; i < ARRAY_SIZE(files); i++) {
		cni_log_apply("tenantB", "info", files[i]);
		log_info("line %zu", i);
		cni_log_close();
		free(err);
		err = slurp(stderr_path);
		snprintf(
		    want, sizeof(want),
		    "logFile \"%s\" ignored (not this network's file in %s/); logging to stderr",
		    files[i], logdir);
		cr_assert(strstr(err, want), "want \"%s\" in stderr: %s", want, err);
		cr_assert_eq(count(err, "[warning]"), 1, "one warning: %s", err);
		snprintf(want, sizeof(want), "] unit ADD ctr/eth0: line %zu\n", i);
		cr_assert(strstr(err, want), "the line on stderr: %s", err);
		cr_assert_eq(ftruncate(STDERR_FILENO, 0), 0);
		lseek(STDERR_FILENO, 0, SEEK_SET);
	}
	/* A huge one: cut in the warning, which still says where lines go. */
	{
		_cleanup_free_ char *huge = malloc(100001);

		cr_assert_not_null(huge);
		memset(huge, 'a', 100000);
		huge[100000] = '\0';
		cni_log_apply("tenantB", "info", huge);
		free(err);
		err = slurp(stderr_path);
		cr_assert(strstr(err, "aaa...\" ignored (not this network's file in "), "%s", err);
		cr_assert(strstr(err, "); logging to stderr: "), "%s", err);
		cr_assert_lt(strlen(err), 1024, "%zu bytes", strlen(err));
		cr_assert_eq(ftruncate(STDERR_FILENO, 0), 0);
		lseek(STDERR_FILENO, 0, SEEK_SET);
	}
	free(err);
	err = slurp(in_logdir(path, sizeof(path), "other.log"));
	cr_assert_str_eq(err, "", "another network's file written");
	cr_assert_neq(access(in_logdir(path, sizeof(path), "tenantBx.log"), F_OK), 0);
	/* Its own file is used, stderr stays quiet. */
	cni_log_apply("tenantB", "info", "tenantB.log");
	log_info("own");
	cni_log_close();
	free(err);
	err = slurp(stderr_path);
	cr_assert_str_eq(err, "");
	free(err);
	err = slurp(in_logdir(path, sizeof(path), "tenantB.log"));
	cr_assert(strstr(err, "own\n"), "%s", err);
}

/* A full log becomes <name>.1 (the one before dropped); the new file starts empty. */
Test(log, rotated_once_past_the_cap)
{
	_cleanup_free_ char *text = NULL;
	_cleanup_free_ char *old = NULL;
	char path[128], one[128];
	int fd;

	in_logdir(path, sizeof(path), "n.log");
	in_logdir(one, sizeof(one), "n.log.1");
	tree_put(logdir, "n.log.1", "the oldest\n");
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	cr_assert_geq(fd, 0);
	cr_assert_eq(ftruncate(fd, CNI_LOG_MAX_SIZE - 1), 0);
	close(fd);
	/* Below the cap: appended to. */
	cni_log_setup("info", "n.log");
	log_info("first");
	cni_log_close();
	cr_assert_eq(access(one, F_OK), 0);
	text = slurp(one);
	cr_assert_str_eq(text, "the oldest\n");
	free(text);
	/* At or past it: rotated. */
	cni_log_setup("info", "n.log");
	log_info("second");
	cni_log_close();
	text = slurp(path);
	cr_assert(strstr(text, "second") && !strstr(text, "first"), "%s", text);
	/* The rotated file is the full one: its head is not the oldest, its tail "first". */
	old = calloc(1, 256);
	fd = open(one, O_RDONLY);
	cr_assert_geq(fd, 0);
	cr_assert_eq(pread(fd, old, 10, 0), 10);
	cr_assert_neq(memcmp(old, "the oldest", 10), 0);
	cr_assert_gt(pread(fd, old, 255, CNI_LOG_MAX_SIZE - 1), 0);
	close(fd);
	cr_assert(strstr(old, "first"), "%s", old);
}

Test(log, empty_file_is_stderr)
{
	_cleanup_free_ char *err = NULL;

	cni_log_setup("info", "");
	log_info("to stderr");
	err = slurp(stderr_path);
	cr_assert(strstr(err, "[info] unit ADD ctr/eth0: to stderr\n"), "%s", err);
	cr_assert_null(strstr(err, "refused"), "%s", err);
}

Test(log, every_string_escaped_one_line)
{
	_cleanup_free_ char *text = NULL;
	char path[128];

	/* The context is escaped too (containerid and ifname are validated
	 * before they get here, but the log does not rely on it). */
	cni_log_context("unit", "DEL", "c\n1", "e\x1b");
	cni_log_setup("info", "unit.log");
	log_warn("key %s",
		 "x\nssh-ed25519 AAAA attacker\r\x1b[2J\x07\x7f\\ \xff\xc2\x9b ok \xc3\xa9");
	cni_log_close();
	text = slurp(in_logdir(path, sizeof(path), "unit.log"));
	cr_assert(strstr(text, "[warning] unit DEL c\\n1/e\\x1b: key x\\nssh-ed25519 AAAA "
			       "attacker\\r\\x1b[2J\\x07\\x7f\\\\ \\xff\\xc2\\x9b ok \xc3\xa9\n"),
		  "%s", text);
	cr_assert_eq(strcspn(text, "\n"), strlen(text) - 1, "more than one line: %s", text);
}

Test(log, long_line_bounded)
{
	_cleanup_free_ char *text = NULL;
	char big[10000], path[128];

	memset(big, 'a', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	cni_log_setup("info", "unit.log");
	log_info("%s", big);
	log_info("next");
	cni_log_close();
	text = slurp(in_logdir(path, sizeof(path), "unit.log"));
	size_t first = strcspn(text, "\n");

	cr_assert_eq(first + 1, 4096, "%s", text);
	cr_assert(!memcmp(text + first - 3, "...", 3));
	cr_assert(strstr(text, ": next\n"));
}

Test(log, escape_contract)
{
	char out[8];
	bool cut;

	cr_assert_eq(cni_log_escape(out, sizeof(out), "a\tb\\", &cut), 6);
	cr_assert_str_eq(out, "a\\tb\\\\");
	cr_assert_not(cut);
	/* Never half an escape: \x02 does not fit after \x01. */
	cr_assert_eq(cni_log_escape(out, sizeof(out), "\x01\x02", &cut), 4);
	cr_assert_str_eq(out, "\\x01");
	cr_assert(cut);
	/* Never half a character. */
	cr_assert_eq(cni_log_escape(out, 6, "abc\xc3\xa9", &cut), 5);
	cr_assert_str_eq(out, "abc\xc3\xa9");
	cr_assert_eq(cni_log_escape(out, 5, "abc\xc3\xa9", &cut), 3);
	cr_assert(cut);
}

/* The log directory itself is reached as the state directories are
 * (cni_path_opendir): no link on the way, ours, only its last component made. */
Test(log, directory_reached_without_links_and_ours)
{
	char real[96], linked[96], dir[128];

	snprintf(real, sizeof(real), "%s/real", logdir);
	tree_mkdir(logdir, "real/d");
	tree_link(logdir, real, "link");
	snprintf(linked, sizeof(linked), "%s/link/d", logdir);
	cni_log_dir = linked;
	assert_refused("a.log", "/dev/null", "a symbolic link or a non-directory is on the way");
	snprintf(dir, sizeof(dir), "%s/d/a.log", real);
	cr_assert_neq(access(dir, F_OK), 0, "written through the link");
	/* Created when missing, but only its last component. */
	snprintf(dir, sizeof(dir), "%s/new", logdir);
	cni_log_dir = dir;
	cni_log_setup("info", "a.log");
	log_info("in a new directory");
	cni_log_close();
	snprintf(dir, sizeof(dir), "%s/new/a.log", logdir);
	cr_assert_eq(access(dir, F_OK), 0);
	snprintf(dir, sizeof(dir), "%s/none/new", logdir);
	cni_log_dir = dir;
	assert_refused("a.log", "/dev/null", "No such file or directory");
	/* Someone else's directory, or one others may write. */
	snprintf(dir, sizeof(dir), "%s/real/d", logdir);
	cni_log_dir = dir;
	cr_assert_eq(chmod(dir, 0777), 0);
	assert_refused("a.log", "/dev/null", "not owned by root, or writable by group or others");
	cr_assert_eq(chmod(dir, 0700), 0);
	if (geteuid() == 0) {
		cr_assert_eq(chown(dir, 65534, 65534), 0);
		assert_refused("a.log", "/dev/null",
			       "not owned by root, or writable by group or others");
	}
	cni_log_dir = logdir;
}
