// SPDX-License-Identifier: Apache-2.0
/* Atomic JSON records, modes whatever the umask, directories never chmod'ed
 * or walked through links, planted files, temp files of killed writers,
 * names; locks. */
#include <criterion/criterion.h>
#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/cleanup.h"
#include "helpers.h"
#include "base/json.h"
#include "state/lock.h"
#include "state/state.h"
#include "base/util.h"

static char tmp[64];

static void setup(void)
{
	make_tmpdir(tmp, sizeof(tmp));
}

static void teardown(void)
{
	rm_tree(tmp);
}

TestSuite(state, .init = setup, .fini = teardown);

static mode_t mode_of(const char *path)
{
	struct stat st;

	cr_assert_eq(lstat(path, &st), 0, "%s", path);
	return st.st_mode & 07777;
}

Test(state, modes_ignore_umask)
{
	static const mode_t masks[] = {0, 022, 077};
	char dir[128], file[160];

	for (size_t i = 0; i < 3; i++) {
		_cleanup_json_ struct json_object *rec = json_object_new_object();

		umask(masks[i]);
		snprintf(dir, sizeof(dir), "%s/m%zu/a/b", tmp, i);
		cr_assert_eq(cni_state_mkdir(dir), 0);
		cr_assert_eq(mode_of(dir), 0700, "umask %o", masks[i]);
		cr_assert_eq(cni_state_write(dir, "rec", rec), 0);
		snprintf(file, sizeof(file), "%s/rec", dir);
		cr_assert_eq(mode_of(file), 0600, "umask %o", masks[i]);
		/* A record's write makes its directory as cni_state_mkdir would. */
		snprintf(dir, sizeof(dir), "%s/w%zu/a/b", tmp, i);
		cr_assert_eq(cni_state_write(dir, "rec", rec), 0);
		cr_assert_eq(mode_of(dir), 0700, "umask %o", masks[i]);
		snprintf(file, sizeof(file), "%s/rec", dir);
		cr_assert_eq(mode_of(file), 0600, "umask %o", masks[i]);
	}
}

Test(state, existing_directories_keep_their_mode)
{
	char dir[128];

	/* A directory we did not create is never chmod'ed ("dataDir":"/",
	 * "name":"etc" once made /etc 0700). */
	snprintf(dir, sizeof(dir), "%s/shared", tmp);
	cr_assert_eq(mkdir(dir, 0755), 0);
	chmod(dir, 0755);
	cr_assert_eq(cni_state_mkdir(dir), 0);
	cr_assert_eq(mode_of(dir), 0755, "an existing private directory is left as it is");
	/* Writable by others: refused, and still not touched. */
	snprintf(dir, sizeof(dir), "%s/wide", tmp);
	cr_assert_eq(mkdir(dir, 0777), 0);
	chmod(dir, 0777);
	cr_assert_eq(cni_state_mkdir(dir), -EPERM);
	cr_assert_eq(mode_of(dir), 0777);
	chmod(dir, 0770);
	cr_assert_eq(cni_state_mkdir(dir), -EPERM, "group-writable");
	cr_assert_eq(cni_state_write_raw(dir, "rec", "{}", 2), -EPERM);
	/* Owned by someone else (needs root to arrange). */
	if (geteuid() == 0) {
		snprintf(dir, sizeof(dir), "%s/theirs", tmp);
		cr_assert_eq(mkdir(dir, 0700), 0);
		cr_assert_eq(chown(dir, 65534, 65534), 0);
		cr_assert_eq(cni_state_mkdir(dir), -EPERM);
		cr_assert_eq(cni_state_remove(dir, "rec"), -EPERM);
	}
	/* Intermediate directories are walked, not checked: /tmp is 1777. */
	snprintf(dir, sizeof(dir), "%s/wide/sub", tmp);
	cr_assert_eq(cni_state_mkdir(dir), 0);
	cr_assert_eq(mode_of(dir), 0700);
	cr_assert_eq(cni_state_mkdir("relative/dir"), -EINVAL);
	snprintf(dir, sizeof(dir), "%s/../%s", tmp, tmp + 5);
	cr_assert_eq(cni_state_mkdir(dir), -EINVAL, "no .. components");
}

Test(state, links_in_the_path_are_never_followed)
{
	_cleanup_json_ struct json_object *got = NULL;
	char link[128], dir[160], victim[160];
	struct stat st;

	/* A tenant-writable directory with a planted link: nothing is created,
	 * written or removed where it points. */
	tree_mkdir(tmp, "real");
	tree_put(tmp, "real/rec", "{\"keep\":1}");
	tree_link(tmp, "real", "link");
	snprintf(link, sizeof(link), "%s/link", tmp);
	snprintf(dir, sizeof(dir), "%s/link/sub", tmp);
	cr_assert_eq(cni_state_mkdir(dir), -ELOOP);
	snprintf(victim, sizeof(victim), "%s/real/sub", tmp);
	cr_assert_eq(stat(victim, &st), -1, "created through the link");
	cr_assert_eq(cni_state_mkdir(link), -ELOOP);
	cr_assert_eq(cni_state_write_raw(link, "rec", "{}", 2), -ELOOP);
	cr_assert_eq(cni_state_read(link, "rec", &got), -ELOOP);
	cr_assert_eq(cni_state_remove(link, "rec"), -ELOOP);
	snprintf(victim, sizeof(victim), "%s/real/rec", tmp);
	cr_assert_eq(stat(victim, &st), 0, "removed through the link");
	/* A file where a directory should be. */
	tree_put(tmp, "file", "x");
	snprintf(dir, sizeof(dir), "%s/file/sub", tmp);
	cr_assert_eq(cni_state_mkdir(dir), -ENOTDIR);
}

Test(state, walks_share_prefixes_and_survive_removal)
{
	_cleanup_json_ struct json_object *got = NULL;
	char a[128], b[128], c[128], file[160], link[128];
	struct stat st;
	int fds;

	/* Sibling directories under one prefix, the second walk starting where
	 * the first left off: the records land where the paths say. */
	snprintf(a, sizeof(a), "%s/p/q/a", tmp);
	snprintf(b, sizeof(b), "%s//p/q/b/", tmp);
	snprintf(c, sizeof(c), "%s/p/qq", tmp);
	cr_assert_eq(cni_state_mkdir(a), 0);
	cr_assert_eq(cni_state_mkdir(b), 0);
	cr_assert_eq(cni_state_mkdir(c), 0, "\"p/q\" is no prefix of \"p/qq\"");
	cr_assert_eq(cni_state_write_raw(a, "rec", "{\"a\":1}", 7), 0);
	cr_assert_eq(cni_state_write_raw(b, "rec", "{\"b\":1}", 7), 0);
	snprintf(file, sizeof(file), "%s/p/q/b/rec", tmp);
	cr_assert_eq(stat(file, &st), 0);
	snprintf(file, sizeof(file), "%s/p/qq", tmp);
	cr_assert_eq(mode_of(file), 0700);
	/* A directory opened to others is refused on every use. */
	cr_assert_eq(chmod(c, 0777), 0);
	cr_assert_eq(cni_state_mkdir(c), -EPERM);
	cr_assert_eq(cni_state_write_raw(c, "rec", "{}", 2), -EPERM);
	cr_assert_eq(chmod(c, 0700), 0);
	cr_assert_eq(cni_state_mkdir(c), 0);
	cr_assert_eq(chmod(c, 0777), 0);
	cr_assert_eq(cni_state_write_raw(c, "rec", "{}", 2), -EPERM, "checked on every use");
	/* Every walk closes what it opened: no descriptor grows per call. */
	fds = open_fds();
	for (int i = 0; i < 50; i++) {
		cr_assert_eq(cni_state_read(a, "rec", &got), 0);
		json_object_put(got);
		got = NULL;
	}
	cr_assert_eq(open_fds(), fds);
	/* Spellings of one directory (repeated and trailing slashes) reach
	 * it, and keep no descriptor either. */
	for (int i = 0; i < 20; i++) {
		snprintf(file, sizeof(file), "%s%.*s/p//q/%s", tmp, i % 3, "///",
			 i % 2 ? "a/" : "a");
		cr_assert_eq(cni_state_read(file, "rec", &got), 0, "%s", file);
		json_object_put(got);
		got = NULL;
	}
	cr_assert_eq(open_fds(), fds);
	/* The directories removed under us: the next walk creates them again. */
	rm_tree(a);
	snprintf(file, sizeof(file), "%s/p", tmp);
	rm_tree(file);
	cr_assert_eq(cni_state_mkdir(a), 0, "a removed directory is made again");
	cr_assert_eq(cni_state_read(a, "rec", &got), -ENOENT);
	cr_assert_eq(cni_state_write_raw(a, "rec", "{\"c\":1}", 7), 0);
	snprintf(file, sizeof(file), "%s/p/q/a/rec", tmp);
	cr_assert_eq(stat(file, &st), 0, "written into the removed directory");
	/* Longer than PATH_MAX. */
	{
		char longer[PATH_MAX + 64];

		memset(longer, 'x', sizeof(longer) - 1);
		longer[sizeof(longer) - 1] = '\0';
		memcpy(longer, a, strlen(a));
		longer[strlen(a)] = '/';
		cr_assert_eq(cni_state_mkdir(longer), -ENAMETOOLONG);
	}
	/* Replaced by a link after it was used: the link is never followed
	 * (nothing is kept between calls: the next walk finds the link). */
	tree_mkdir(tmp, "elsewhere");
	snprintf(file, sizeof(file), "%s/p/q/a", tmp);
	snprintf(link, sizeof(link), "%s/moved", tmp);
	cr_assert_eq(rename(file, link), 0);
	tree_link(tmp, "elsewhere", "p/q/a");
	cr_assert_eq(cni_state_write_raw(a, "rec2", "{}", 2), -ELOOP);
	snprintf(file, sizeof(file), "%s/elsewhere/rec2", tmp);
	cr_assert_eq(stat(file, &st), -1, "written through the link");
	snprintf(file, sizeof(file), "%s/moved/rec2", tmp);
	cr_assert_eq(stat(file, &st), -1, "written into the moved directory");
}

Test(state, planted_files_are_refused_without_hanging, .timeout = 10)
{
	_cleanup_json_ struct json_object *got = NULL;
	struct cni_error err = {0};
	char path[128];
	int fd;

	snprintf(path, sizeof(path), "%s/fifo", tmp);
	cr_assert_eq(mkfifo(path, 0600), 0);
	cr_assert_eq(cni_state_read(tmp, "fifo", &got), -EINVAL);
	tree_mkdir(tmp, "dir");
	cr_assert_eq(cni_state_read(tmp, "dir", &got), -EINVAL);
	tree_link(tmp, "/dev/zero", "zero");
	cr_assert_eq(cni_state_read(tmp, "zero", &got), -ELOOP);
	snprintf(path, sizeof(path), "%s/huge", tmp);
	fd = open(path, O_WRONLY | O_CREAT, 0600);
	cr_assert_eq(ftruncate(fd, 2 << 20), 0);
	close(fd);
	cr_assert_eq(cni_state_read(tmp, "huge", &got), -EFBIG);
	cr_assert_eq(cni_state_read(tmp, "absent", &got), -ENOENT);
	/* A lock file that is a FIFO, a directory or a link: an error, no hang. */
	snprintf(path, sizeof(path), "%s/fifo", tmp);
	cr_assert_lt(cni_lock_acquire(path, 100, &err), 0);
	assert_cni_error(&err, 5, "cannot open lock file");
	memset(&err, 0, sizeof(err));
	snprintf(path, sizeof(path), "%s/dir", tmp);
	cr_assert_lt(cni_lock_acquire(path, 100, &err), 0);
	memset(&err, 0, sizeof(err));
	snprintf(path, sizeof(path), "%s/zero", tmp);
	cr_assert_eq(cni_lock_acquire(path, 100, &err), -ELOOP);
}

Test(state, temp_files_of_a_killed_writer_are_removed)
{
	_cleanup_free_ char *raw = NULL;
	char path[128];
	struct stat st;

	/* A kill between creating the temp file and renaming it. */
	tree_put(tmp, ".rec.tmp", "{\"half\":");
	tree_put(tmp, ".rec.Ab12Cd", "{}"); /* older builds' mkostemp name */
	tree_put(tmp, ".other.tmp", "{}");
	cr_assert_eq(cni_state_write_raw(tmp, "rec", "{\"a\":1}", 7), 0);
	snprintf(path, sizeof(path), "%s/.rec.tmp", tmp);
	cr_assert_eq(stat(path, &st), -1, "the next write removes it");
	tree_put(tmp, ".rec.tmp", "{}");
	cr_assert_eq(cni_state_remove(tmp, "rec"), 0);
	cr_assert_eq(stat(path, &st), -1, "remove removes it");
	snprintf(path, sizeof(path), "%s/.rec.Ab12Cd", tmp);
	cr_assert_eq(stat(path, &st), 0, "remove lists nothing: older temp files are GC's");
	snprintf(path, sizeof(path), "%s/.other.tmp", tmp);
	cr_assert_eq(read_file(path, 64, &raw, NULL), 0, "another name's temp file is kept");
}

Test(state, the_sweep_removes_older_builds_temp_files_only)
{
	char path[128];
	struct stat st;
	const char *gone[] = {".rec.Ab12Cd", ".net-ctr-eth0.x9Y8z7", ".a.b.000000"};
	const char *kept[] = {"rec",	  ".other.tmp",	 ".rec.Ab12C", ".rec.Ab12Cd7",
			      "..abcdef", ".rec.Ab-2Cd", "rec.Ab12Cd"};

	for (size_t i = 0; i < ARRAY_SIZE(gone); i++)
		tree_put(tmp, gone[i], "{}");
	for (size_t i = 0; i < ARRAY_SIZE(kept); i++)
		tree_put(tmp, kept[i], "{}");
	snprintf(path, sizeof(path), "%s/.dir.abcdef", tmp);
	cr_assert_eq(mkdir(path, 0700), 0);
	cr_assert_eq(cni_state_sweep(tmp), (int)ARRAY_SIZE(gone));
	for (size_t i = 0; i < ARRAY_SIZE(gone); i++) {
		snprintf(path, sizeof(path), "%s/%s", tmp, gone[i]);
		cr_assert_eq(stat(path, &st), -1, "%s swept", gone[i]);
	}
	for (size_t i = 0; i < ARRAY_SIZE(kept); i++) {
		snprintf(path, sizeof(path), "%s/%s", tmp, kept[i]);
		cr_assert_eq(stat(path, &st), 0, "%s kept", kept[i]);
	}
	snprintf(path, sizeof(path), "%s/.dir.abcdef", tmp);
	cr_assert_eq(stat(path, &st), 0, "a directory is kept");
	cr_assert_eq(cni_state_sweep(tmp), 0);
	snprintf(path, sizeof(path), "%s/absent", tmp);
	cr_assert_eq(cni_state_sweep(path), 0);
}

Test(state, a_hard_link_is_not_written_through)
{
	_cleanup_free_ char *raw = NULL;
	char a[128], b[128];

	cr_assert_eq(cni_state_write_cache(tmp, "rec", "old", 3), 0);
	snprintf(a, sizeof(a), "%s/rec", tmp);
	snprintf(b, sizeof(b), "%s/elsewhere", tmp);
	cr_assert_eq(link(a, b), 0);
	cr_assert_eq(cni_state_write_cache(tmp, "rec", "new", 3), 0);
	cr_assert_eq(read_file(b, 64, &raw, NULL), 0);
	cr_assert_str_eq(raw, "old");
}

Test(state, write_read_replace_remove)
{
	_cleanup_json_ struct json_object *a = json_object_new_object();
	_cleanup_json_ struct json_object *got = NULL;
	_cleanup_free_ char *raw = NULL;
	char path[128];
	struct dirent *e;
	DIR *d;

	json_object_object_add(a, "pf", json_object_new_string("ib0"));
	cr_assert_eq(cni_state_write(tmp, "net-ctr-eth0", a), 0);
	json_object_object_add(a, "vf", json_object_new_int(3));
	cr_assert_eq(cni_state_write(tmp, "net-ctr-eth0", a), 0);
	snprintf(path, sizeof(path), "%s/net-ctr-eth0", tmp);
	cr_assert_eq(read_file(path, 4096, &raw, NULL), 0);
	cr_assert_str_eq(raw, "{\"pf\":\"ib0\",\"vf\":3}");
	cr_assert_eq(cni_state_read(tmp, "net-ctr-eth0", &got), 0);
	cr_assert_eq(json_object_get_int(cni_json_get(got, "vf")), 3);
	/* No temporary files are left behind. */
	d = opendir(tmp);
	while ((e = readdir(d)))
		cr_assert(e->d_name[0] != '.' || !strcmp(e->d_name, ".") ||
			      !strcmp(e->d_name, ".."),
			  "leftover %s", e->d_name);
	closedir(d);
	cr_assert_eq(cni_state_remove(tmp, "net-ctr-eth0"), 0);
	cr_assert_eq(cni_state_remove(tmp, "net-ctr-eth0"), 0, "absent is success");
	json_object_put(steal_ptr(got));
	cr_assert_eq(cni_state_read(tmp, "net-ctr-eth0", &got), -ENOENT);
}

Test(state, symlinks_and_garbage_refused)
{
	struct json_object *got;
	char path[128];

	snprintf(path, sizeof(path), "%s/link", tmp);
	cr_assert_eq(symlink("/etc/hostname", path), 0);
	cr_assert_eq(cni_state_read(tmp, "link", &got), -ELOOP);
	cr_assert_eq(cni_state_write_raw(tmp, "bad", "{not json", 9), 0);
	cr_assert_eq(cni_state_read(tmp, "bad", &got), -EBADMSG);
}

Test(state, names)
{
	cr_assert(cni_state_name_valid("mynet-0123abcd-net1"));
	cr_assert_not(cni_state_name_valid("../x"));
	cr_assert_not(cni_state_name_valid("a/b"));
	cr_assert_not(cni_state_name_valid(".."));
	cr_assert_not(cni_state_name_valid(""));
	char longest[CNI_STATE_NAME_MAX + 2];

	memset(longest, 'a', sizeof(longest));
	longest[CNI_STATE_NAME_MAX] = '\0';
	cr_assert(cni_state_name_valid(longest));
	cr_assert_eq(cni_state_write_raw(tmp, longest, "{}", 2), 0, "room for its temp name");
	longest[CNI_STATE_NAME_MAX] = 'a';
	longest[CNI_STATE_NAME_MAX + 1] = '\0';
	cr_assert_not(cni_state_name_valid(longest));
}

Test(state, lock_contention_is_error_11)
{
	struct cni_error err = {0};
	char path[128];
	int fd, pipefd[2];
	pid_t pid;
	char c;

	snprintf(path, sizeof(path), "%s/lock", tmp);
	umask(0);
	cr_assert_eq(pipe(pipefd), 0);
	pid = fork();
	if (pid == 0) {
		struct cni_error e2 = {0};
		int held = cni_lock_acquire(path, 1000, &e2);

		if (write(pipefd[1], "x", 1) != 1 || held < 0)
			_exit(1);
		sleep_ms(600);
		cni_lock_release(held);
		_exit(0);
	}
	cr_assert_eq(read(pipefd[0], &c, 1), 1);
	cr_assert_eq(mode_of(path), 0600);
	uint64_t t0 = now_ms();

	fd = cni_lock_acquire(path, 100, &err);
	cr_assert_eq(fd, -EAGAIN);
	assert_cni_error(&err, 11, "timed out waiting for a lock");
	cr_assert_lt(now_ms() - t0, 1000);
	/* Once the holder lets go, the lock is ours. */
	memset(&err, 0, sizeof(err));
	fd = cni_lock_acquire(path, 5000, &err);
	cr_assert_geq(fd, 0, "%s", err.details);
	cni_lock_release(fd);
	waitpid(pid, NULL, 0);
}

static int alarms;

static void count_alarm(int sig)
{
	(void)sig;
	alarms++;
}

Test(state, lock_wait_blocks_and_is_bounded_whatever_the_signal_state, .timeout = 20)
{
	struct sigaction sa = {.sa_handler = count_alarm}, now;
	struct cni_error err = {0};
	sigset_t alrm, mask;
	char path[128];
	int held, fd;
	uint64_t t0;

	snprintf(path, sizeof(path), "%s/lock", tmp);
	held = open(path, O_RDONLY | O_CREAT, 0600);
	cr_assert_eq(flock(held, LOCK_EX), 0);
	/* The caller's SIGALRM handler and mask survive; a blocked SIGALRM
	 * cannot turn the bounded wait into a hang. */
	sigemptyset(&sa.sa_mask);
	sigaction(SIGALRM, &sa, NULL);
	sigemptyset(&alrm);
	sigaddset(&alrm, SIGALRM);
	sigprocmask(SIG_BLOCK, &alrm, NULL);
	t0 = now_ms();
	fd = cni_lock_acquire(path, 200, &err);
	cr_assert_eq(fd, -EAGAIN);
	assert_cni_error(&err, 11, "timed out waiting for a lock");
	cr_assert_geq(now_ms() - t0, 190);
	cr_assert_lt(now_ms() - t0, 2000);
	sigprocmask(SIG_SETMASK, NULL, &mask);
	cr_assert(sigismember(&mask, SIGALRM), "the caller's mask is restored");
	sigaction(SIGALRM, NULL, &now);
	cr_assert_eq(now.sa_handler, count_alarm, "the caller's handler is restored");
	sigprocmask(SIG_UNBLOCK, &alrm, NULL);
	cr_assert_eq(alarms, 0, "our timer never reached the caller's handler");
	close(held);
	memset(&err, 0, sizeof(err));
	fd = cni_lock_acquire(path, 200, &err);
	cr_assert_geq(fd, 0, "%s", err.details);
	cni_lock_release(fd);
}

struct seen {
	char names[8][32];
	size_t n;
	const char *stop_at;
};

static int note(int dirfd, const char *name, void *arg)
{
	struct seen *s = arg;
	struct stat st;

	cr_assert_eq(fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW), 0, "%s", name);
	cr_assert_lt(s->n, 8);
	snprintf(s->names[s->n++], sizeof(s->names[0]), "%s", name);
	return s->stop_at && !strcmp(name, s->stop_at) ? 42 : 0;
}

static bool saw(const struct seen *s, const char *name)
{
	for (size_t i = 0; i < s->n; i++)
		if (!strcmp(s->names[i], name))
			return true;
	return false;
}

Test(state, each_lists_entries_but_dot_files)
{
	char dir[128], miss[160], link[160];
	struct seen s = {0};

	snprintf(dir, sizeof(dir), "%s/each", tmp);
	cr_assert_eq(cni_state_write_text(dir, "a", "1"), 0);
	cr_assert_eq(cni_state_write_text(dir, "b", "2"), 0);
	cr_assert_eq(cni_state_write_text(dir, ".a.XXXXXX", "tmp"), 0);
	cr_assert_eq(cni_state_each(dir, 0, note, &s), 0);
	cr_assert_eq(s.n, 2);
	cr_assert(saw(&s, "a") && saw(&s, "b"));

	/* fn's nonzero return stops the listing and is returned. */
	memset(&s, 0, sizeof(s));
	s.stop_at = "a";
	cr_assert_eq(cni_state_each(dir, 0, note, &s), 42);

	/* A bound: no more than max entries are looked at. */
	memset(&s, 0, sizeof(s));
	cr_assert_eq(cni_state_each(dir, 1, note, &s), 0);
	cr_assert_leq(s.n, 1);

	/* A missing directory is empty; a link to one is not followed. */
	snprintf(miss, sizeof(miss), "%s/none", tmp);
	memset(&s, 0, sizeof(s));
	cr_assert_eq(cni_state_each(miss, 0, note, &s), 0);
	cr_assert_eq(s.n, 0);
	snprintf(link, sizeof(link), "%s/link", tmp);
	cr_assert_eq(symlink(dir, link), 0);
	cr_assert_lt(cni_state_each(link, 0, note, &s), 0);
	cr_assert_eq(s.n, 0);
}
