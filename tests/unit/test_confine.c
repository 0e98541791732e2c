// SPDX-License-Identifier: Apache-2.0
/* Confinement of NAD-named paths: normalisation, allowed roots, filesystem kinds. */
#include <criterion/criterion.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/cleanup.h"
#include "state/confine.h"
#include "state/state.h"
#include "helpers.h"

static void assert_norm(const char *in, int want, const char *out)
{
	char buf[64];
	int ret = cni_path_normalise(in, buf, sizeof(buf));

	cr_assert_eq(ret, want, "%s: %d", in, ret);
	if (!want)
		cr_assert_str_eq(buf, out, "%s", in);
}

Test(confine, normalise)
{
	assert_norm("/var/lib/cni", 0, "/var/lib/cni");
	assert_norm("//var//lib/cni//", 0, "/var/lib/cni");
	assert_norm("/", 0, "/");
	assert_norm("///", 0, "/");
	assert_norm("/a/.../b", 0, "/a/.../b");
	assert_norm("/a/..b", 0, "/a/..b");
	assert_norm("var/lib", -EINVAL, NULL);
	assert_norm("", -EINVAL, NULL);
	assert_norm("/a/../b", -EINVAL, NULL);
	assert_norm("/a/./b", -EINVAL, NULL);
	assert_norm("/a/..", -EINVAL, NULL);
	assert_norm("/a/.", -EINVAL, NULL);
	assert_norm("/aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
		    -ENAMETOOLONG, NULL);
}

Test(confine, under_whole_components)
{
	char a[] = "/var/lib/cni/networks", b[] = "/srv/ipam";
	char *roots[] = {a, b};

	cr_assert_eq(cni_path_under("/var/lib/cni/networks", roots, 2), a);
	cr_assert_eq(cni_path_under("/var/lib/cni/networks/x/y", roots, 2), a);
	cr_assert_eq(cni_path_under("/srv/ipam/z", roots, 2), b);
	cr_assert_null(cni_path_under("/var/lib/cni/networksx", roots, 2));
	cr_assert_null(cni_path_under("/var/lib/cni", roots, 2));
	cr_assert_null(cni_path_under("/srv", roots, 2));
	cr_assert_null(cni_path_under("/etc", roots, 0));
}

static int fs_of(const char *path, const char **fs)
{
	static char buf[32];
	_cleanup_close_ int fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	cr_assert_geq(fd, 0, "%s", path);
	return cni_fs_ordinary(fd, fs, buf, sizeof(buf));
}

Test(confine, filesystem_kinds)
{
	char dir[64];
	const char *fs = NULL;

	make_tmpdir(dir, sizeof(dir));
	cr_assert_eq(fs_of(dir, &fs), 0, "%s is on %s", dir, fs);
	cr_assert_eq(fs_of("/proc", &fs), -EXDEV);
	cr_assert_str_eq(fs, "proc");
	cr_assert_eq(fs_of("/proc/self/fd", &fs), -EXDEV);
	if (access("/sys/kernel", F_OK) == 0) {
		cr_assert_eq(fs_of("/sys/kernel", &fs), -EXDEV);
		cr_assert_str_eq(fs, "sysfs");
	}
	rm_tree(dir);
}

Test(confine, creates_the_root_and_below_never_its_parent)
{
	char dir[64], root[128], sub[160], parent[128];
	const char *fs = NULL;
	char buf[32];
	struct stat st;
	int fd;

	make_tmpdir(dir, sizeof(dir));
	snprintf(parent, sizeof(parent), "%s/p", dir);
	snprintf(root, sizeof(root), "%s/p/root", dir);
	snprintf(sub, sizeof(sub), "%s/p/root/a/b", dir);
	/* The parent of the allowed root does not exist: nothing is made. */
	fd = cni_state_opendir_under(root, sub, CNI_DIR_CREATE, &fs, buf, sizeof(buf));
	cr_assert_eq(fd, -ENOENT);
	cr_assert_neq(stat(parent, &st), 0, "the root's parent was created");
	/* With the parent there, the root and below are made 0700. */
	cr_assert_eq(mkdir(parent, 0755), 0);
	fd = cni_state_opendir_under(root, sub, CNI_DIR_CREATE | CNI_DIR_PRIVATE, &fs, buf,
				     sizeof(buf));
	cr_assert_geq(fd, 0, "%d", fd);
	close(fd);
	cr_assert_eq(stat(sub, &st), 0);
	cr_assert_eq(st.st_mode & 07777, 0700);
	cr_assert_eq(stat(root, &st), 0);
	cr_assert_eq(st.st_mode & 07777, 0700);
	/* Again: the fast path opens it. */
	fd = cni_state_opendir_under(root, sub, CNI_DIR_CREATE, &fs, buf, sizeof(buf));
	cr_assert_geq(fd, 0);
	close(fd);
	/* Without CREATE an absent directory stays absent. */
	snprintf(sub, sizeof(sub), "%s/p/root/c", dir);
	cr_assert_eq(cni_state_opendir_under(root, sub, 0, &fs, buf, sizeof(buf)), -ENOENT);
	cr_assert_neq(stat(sub, &st), 0);
	/* A directory outside the root is refused whatever it is. */
	cr_assert_eq(cni_state_opendir_under(root, parent, 0, &fs, buf, sizeof(buf)), -EINVAL);
	snprintf(sub, sizeof(sub), "%s/p/rootx", dir);
	cr_assert_eq(cni_state_opendir_under(root, sub, CNI_DIR_CREATE, &fs, buf, sizeof(buf)),
		     -EINVAL);
	cr_assert_neq(stat(sub, &st), 0);
	rm_tree(dir);
}

Test(confine, no_link_on_the_way)
{
	char dir[64], root[128], sub[160];
	const char *fs = NULL;
	char buf[32];

	make_tmpdir(dir, sizeof(dir));
	tree_mkdir(dir, "real");
	tree_link(dir, "real", "root");
	snprintf(root, sizeof(root), "%s/root", dir);
	snprintf(sub, sizeof(sub), "%s/root/x", dir);
	cr_assert_eq(cni_state_opendir_under(root, root, 0, &fs, buf, sizeof(buf)), -ELOOP);
	cr_assert_eq(cni_state_opendir_under(root, sub, CNI_DIR_CREATE, &fs, buf, sizeof(buf)),
		     -ELOOP);
	snprintf(sub, sizeof(sub), "%s/real/x", dir);
	cr_assert_neq(access(sub, F_OK), 0);
	rm_tree(dir);
}

Test(confine, nothing_made_in_a_pseudo_filesystem)
{
	const char *fs = NULL;
	char buf[32];

	/* proc refuses the mkdir itself; the check must come first and say why. */
	cr_assert_eq(cni_state_opendir_under("/proc/ibcni-unit", "/proc/ibcni-unit/x",
					     CNI_DIR_CREATE, &fs, buf, sizeof(buf)),
		     -EXDEV);
	cr_assert_str_eq(fs, "proc");
	cr_assert_eq(
	    cni_state_opendir_under("/proc/sys", "/proc/sys/kernel", 0, &fs, buf, sizeof(buf)),
	    -EXDEV);
	cr_assert_str_eq(fs, "proc");
}
