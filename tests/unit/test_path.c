// SPDX-License-Identifier: Apache-2.0
/* cni/base/path.c's directory walk, the one that state/ and the log share:
 * no link followed anywhere on the path, a private directory checked. */
#include <criterion/criterion.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/path.h"
#include "helpers.h"

static char tmp[64];

static void setup(void)
{
	make_tmpdir(tmp, sizeof(tmp));
}

static void teardown(void)
{
	rm_tree(tmp);
}

TestSuite(path, .init = setup, .fini = teardown, .timeout = 10);

/* cni_path_opendir(tmp/rel, flags): 0 (the fd closed) or the error. */
static int open_rel(const char *rel, unsigned int flags)
{
	char dir[256];
	int fd;

	snprintf(dir, sizeof(dir), "%s/%s", tmp, rel);
	fd = cni_path_opendir(dir, flags);
	if (fd < 0)
		return fd;
	close(fd);
	return 0;
}

static mode_t mode_at(const char *rel)
{
	char path[256];
	struct stat st;

	snprintf(path, sizeof(path), "%s/%s", tmp, rel);
	cr_assert_eq(lstat(path, &st), 0, "%s", path);
	return st.st_mode & 07777;
}

Test(path, opens_creates_and_keeps_no_descriptor)
{
	int fds = open_fds();

	tree_mkdir(tmp, "a/b");
	cr_assert_eq(open_rel("a/b", 0), 0);
	cr_assert_eq(open_rel("a//b/", CNI_PATH_PRIVATE), 0, "repeated and trailing slashes");
	cr_assert_eq(open_rel("a/x/y", 0), -ENOENT);
	cr_assert_eq(open_rel("a/x/y", CNI_PATH_CREATE_LAST), -ENOENT, "only the last is made");
	cr_assert_eq(open_rel("a/x", CNI_PATH_CREATE_LAST | CNI_PATH_PRIVATE), 0);
	cr_assert_eq(mode_at("a/x"), 0700);
	cr_assert_eq(open_rel("c/d/e", CNI_PATH_CREATE), 0);
	cr_assert_eq(mode_at("c"), 0700);
	cr_assert_eq(mode_at("c/d/e"), 0700);
	cr_assert_eq(open_rel("a/./b", 0), -EINVAL);
	cr_assert_eq(open_rel("a/../a", 0), -EINVAL);
	cr_assert_eq(cni_path_opendir("relative/dir", 0), -EINVAL);
	cr_assert_eq(open_fds(), fds);
}

Test(path, a_link_anywhere_on_the_path_is_refused)
{
	tree_mkdir(tmp, "real/sub");
	tree_link(tmp, "real", "link");
	tree_link(tmp, "real/sub", "real/sublink");
	cr_assert_eq(open_rel("link", 0), -ELOOP, "the last component");
	cr_assert_eq(open_rel("link/sub", 0), -ELOOP, "a component on the way");
	cr_assert_eq(open_rel("real/sublink", CNI_PATH_CREATE), -ELOOP);
	cr_assert_eq(open_rel("link/new", CNI_PATH_CREATE), -ELOOP, "never created through it");
	{
		char path[256];
		struct stat st;

		snprintf(path, sizeof(path), "%s/real/new", tmp);
		cr_assert_eq(lstat(path, &st), -1, "created through the link");
	}
	tree_put(tmp, "file", "x");
	cr_assert_eq(open_rel("file", 0), -ENOTDIR);
	cr_assert_eq(open_rel("file/sub", CNI_PATH_CREATE), -ENOTDIR);
}

Test(path, a_directory_others_can_write_or_own_is_refused)
{
	char dir[256];

	tree_mkdir(tmp, "open");
	snprintf(dir, sizeof(dir), "%s/open", tmp);
	cr_assert_eq(chmod(dir, 0770), 0);
	cr_assert_eq(open_rel("open", CNI_PATH_PRIVATE), -EPERM, "group-writable");
	cr_assert_eq(open_rel("open", 0), 0, "checked only when asked");
	cr_assert_eq(chmod(dir, 0700), 0);
	/* Only the last directory is checked: /tmp on the way is everyone's. */
	cr_assert_eq(open_rel("open", CNI_PATH_PRIVATE), 0);
	if (geteuid() != 0)
		return; /* chown needs root */
	cr_assert_eq(chown(dir, 65534, 65534), 0);
	cr_assert_eq(open_rel("open", CNI_PATH_PRIVATE), -EPERM, "owned by someone else");
	cr_assert_eq(open_rel("open", CNI_PATH_CREATE_LAST | CNI_PATH_PRIVATE), -EPERM);
}

Test(path, private_is_ours_and_unwritable_by_others)
{
	struct stat st = {.st_uid = geteuid(), .st_mode = S_IFDIR | 0755};

	cr_assert(cni_path_private(&st));
	st.st_mode = S_IFDIR | 0775;
	cr_assert_not(cni_path_private(&st));
	st.st_mode = S_IFDIR | 0757;
	cr_assert_not(cni_path_private(&st));
	st.st_mode = S_IFDIR | 0700;
	st.st_uid = geteuid() + 1;
	cr_assert_not(cni_path_private(&st));
}
