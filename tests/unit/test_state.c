// SPDX-License-Identifier: Apache-2.0
/* Atomic JSON records, modes whatever the umask, names, symlinks; locks. */
#include <criterion/criterion.h>
#include <dirent.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cleanup.h"
#include "helpers.h"
#include "json.h"
#include "lock.h"
#include "state.h"
#include "util.h"

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
	static const mode_t masks[] = { 0, 022, 077 };
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
	}
	/* An existing, wider directory is tightened. */
	snprintf(dir, sizeof(dir), "%s/wide", tmp);
	cr_assert_eq(mkdir(dir, 0777), 0);
	chmod(dir, 0777);
	cr_assert_eq(cni_state_mkdir(dir), 0);
	cr_assert_eq(mode_of(dir), 0700);
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
			  !strcmp(e->d_name, ".."), "leftover %s", e->d_name);
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
}

Test(state, lock_contention_is_error_11)
{
	struct cni_error err = { 0 };
	char path[128];
	int fd, pipefd[2];
	pid_t pid;
	char c;

	snprintf(path, sizeof(path), "%s/lock", tmp);
	umask(0);
	cr_assert_eq(pipe(pipefd), 0);
	pid = fork();
	if (pid == 0) {
		struct cni_error e2 = { 0 };
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
