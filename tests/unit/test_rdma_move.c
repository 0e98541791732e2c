// SPDX-License-Identifier: Apache-2.0
/* cni/kernel/rdma_move.c (the real one) against a fake of the few RDMA and
 * netns calls it makes: a host and a pod namespace holding devices, with
 * Linux 7.3's per-namespace names or the older system-wide ones. The
 * test's own definitions take the place of the real ones: it is linked
 * with rdma_move.o, rdma_names.o, sys.o and the base layer only (tests.mk). */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "helpers.h"
#include "kernel/netns.h"
#include "kernel/rdma_move.h"

enum { HOST, POD };

struct fake_dev {
	bool exists;
	int ns;
	uint32_t index;
	char name[CNI_RDMA_NAME_MAX];
};

static struct {
	struct fake_dev devs[32];
	int n, ns, pod_fd;
	bool per_netns;		  /* Linux 7.3: names unique per namespace, a move takes one */
	int get_err[2];		  /* a GET in that namespace fails so (a transient error) */
	int move_err;		  /* every move fails so */
	bool all_held;		  /* every name a move or rename gives is held on the host */
	unsigned int dumps;	  /* GETs by name: a dump of the namespace */
	unsigned int whole_dumps; /* cni_rdma_devs calls */
	char tried[1024];	  /* every name given to a named move or rename, in order */
} k;

static struct cni_sys test_sys = CNI_SYS_INIT;
static struct cni_sys *const sys = &test_sys;

/* --- the fake --- */

static struct fake_dev *held(int ns, const char *name)
{
	for (int i = 0; i < k.n; i++)
		if (k.devs[i].exists && (!k.per_netns || k.devs[i].ns == ns) &&
		    !strcmp(k.devs[i].name, name))
			return &k.devs[i];
	return NULL;
}

static struct fake_dev *here(uint32_t index)
{
	for (int i = 0; i < k.n; i++)
		if (k.devs[i].exists && k.devs[i].ns == k.ns && k.devs[i].index == index)
			return &k.devs[i];
	return NULL;
}

static void note(const char *what, const char *name)
{
	size_t used = strlen(k.tried);

	snprintf(k.tried + used, sizeof(k.tried) - used, "%s%s %s", used ? ", " : "", what, name);
}

int cni_netns_open_current(struct cni_sys *s)
{
	return open("/dev/null", O_RDONLY | O_CLOEXEC);
}

int cni_netns_enter(struct cni_sys *s, int fd, int *saved)
{
	*saved = 1000 + k.ns;
	k.ns = fd == k.pod_fd ? POD : HOST;
	return 0;
}

int cni_netns_restore(struct cni_sys *s, int *saved)
{
	k.ns = *saved - 1000;
	*saved = -1;
	return 0;
}

int cni_rdma_dev_get(struct cni_sys *s, const char *name, uint32_t index, struct cni_rdma_dev *dev)
{
	if (k.get_err[k.ns])
		return k.get_err[k.ns];
	k.dumps += name != NULL;
	for (int i = 0; i < k.n; i++) {
		struct fake_dev *d = &k.devs[i];

		if (d->exists && d->ns == k.ns &&
		    (name ? !strcmp(d->name, name) : d->index == index)) {
			*dev = (struct cni_rdma_dev){.index = d->index};
			memcpy(dev->name, d->name, sizeof(dev->name));
			return 0;
		}
	}
	return -ENODEV;
}

/* A whole namespace: cni_rdma_return must never need one (a pod grows the
 * host's at will), so it is only counted. */
int cni_rdma_devs(struct cni_sys *s, struct cni_rdma_dev **devs, size_t *n)
{
	k.whole_dumps++;
	if (k.get_err[k.ns])
		return k.get_err[k.ns];
	*devs = calloc((size_t)k.n + 1, sizeof(**devs));
	*n = 0;
	if (!*devs)
		return -ENOMEM;
	for (int i = 0; i < k.n; i++)
		if (k.devs[i].exists && k.devs[i].ns == k.ns) {
			(*devs)[*n].index = k.devs[i].index;
			memcpy((*devs)[(*n)++].name, k.devs[i].name, CNI_RDMA_NAME_MAX);
		}
	return 0;
}

int cni_rdma_move(struct cni_sys *s, uint32_t index, int netns_fd)
{
	struct fake_dev *d = here(index);
	int to = netns_fd == k.pod_fd ? POD : HOST;

	if (!d)
		return -EINVAL; /* the kernel's answer for an index not here */
	if (k.move_err)
		return k.move_err;
	if (k.per_netns && held(to, d->name))
		return -EEXIST;
	d->ns = to;
	return 0;
}

/* As the real one answers: 7.3 moves it under name; an older kernel renames
 * it, stays, and the read-back renames it back (-ENOSYS). */
int cni_rdma_move_named(struct cni_sys *s, const struct cni_rdma_dev *dev, int netns_fd,
			const char *name)
{
	struct fake_dev *d = here(dev->index), *h;
	int to = netns_fd == k.pod_fd ? POD : HOST;

	note("move", name);
	if (!d)
		return -EINVAL;
	if (k.move_err)
		return k.move_err;
	h = held(to, name);
	if ((h && h != d) || k.all_held)
		return -EEXIST;
	if (!k.per_netns)
		return -ENOSYS;
	d->ns = to;
	memcpy(d->name, name, strlen(name) + 1);
	return 0;
}

int cni_rdma_rename(struct cni_sys *s, uint32_t index, const char *name)
{
	struct fake_dev *d = here(index), *h = held(k.ns, name);

	note("rename", name);
	if (!d)
		return -EINVAL;
	if ((h && h != d) || k.all_held)
		return -EEXIST;
	memcpy(d->name, name, strlen(name) + 1);
	return 0;
}

/* --- set-up --- */

static char err_path[64];
static int err_saved = -1;

static void add(int ns, uint32_t index, const char *name)
{
	struct fake_dev *d = &k.devs[k.n++];

	*d = (struct fake_dev){.exists = true, .ns = ns, .index = index};
	snprintf(d->name, sizeof(d->name), "%s", name);
}

static const struct fake_dev *dev(uint32_t index)
{
	for (int i = 0; i < k.n; i++)
		if (k.devs[i].exists && k.devs[i].index == index)
			return &k.devs[i];
	return NULL;
}

/* A fresh fake (Linux 7.3 unless told), stderr (the log) caught in a file. */
static void setup(void)
{
	int fd;

	memset(&k, 0, sizeof(k));
	k.per_netns = true;
	k.pod_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
	snprintf(err_path, sizeof(err_path), "/tmp/ibcni-unit-rdma-return.%d", (int)getpid());
	fd = open(err_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	cr_assert_geq(fd, 0);
	fflush(stderr);
	err_saved = dup(STDERR_FILENO);
	dup2(fd, STDERR_FILENO);
	close(fd);
}

static void teardown(void)
{
	fflush(stderr);
	dup2(err_saved, STDERR_FILENO);
	close(err_saved);
	close(k.pod_fd);
	unlink(err_path);
}

/* What was logged so far. */
static const char *logged(void)
{
	static char buf[4096];
	FILE *f;
	size_t n;

	fflush(stderr);
	f = fopen(err_path, "r");
	cr_assert_not_null(f);
	n = fread(buf, 1, sizeof(buf) - 1, f);
	buf[n] = '\0';
	fclose(f);
	return buf;
}

static int give_back(const struct cni_rdma_ref *refs, size_t n, const char **failed)
{
	int ret = cni_rdma_return(sys, k.pod_fd, refs, n, failed);

	cr_assert_eq(k.ns, HOST, "every entry into the pod was left");
	cr_assert_eq(k.whole_dumps, 0, "no namespace was dumped whole");
	return ret;
}

static const struct cni_rdma_ref ref3 = {.name = "mlx5_3", .index = 3, .has_index = true};

/* --- the name the device comes home under --- */

/* C1: renamed by the pod, it is found by index and comes home under its
 * recorded name, without a dump of either namespace. */
Test(rdma_return, renamed_in_the_pod_comes_home_under_the_recorded_name, .init = setup,
     .fini = teardown)
{
	const char *failed = "x";

	add(HOST, 1, "mlx5_0");
	add(POD, 3, "hijack0");
	cr_assert_eq(give_back(&ref3, 1, &failed), 0);
	cr_assert_null(failed);
	cr_assert(dev(3)->ns == HOST);
	cr_assert_str_eq(dev(3)->name, "mlx5_3");
	cr_assert_str_eq(k.tried, "move mlx5_3");
	cr_assert_eq(k.dumps, 0, "asked for by index");
}

/* U4: the host holds the recorded name and <name>_<index> (a pod's rxe
 * squatting them): the kernel's EEXIST leads to an unpredictable name,
 * never to the one the device has in the pod. */
Test(rdma_return, names_taken_lead_to_an_unpredictable_one, .init = setup, .fini = teardown)
{
	const char *failed = NULL;
	char want[256];

	add(HOST, 10, "mlx5_3");
	add(HOST, 11, "mlx5_3_3");
	add(HOST, 12, "mlx5_7");
	add(POD, 3, "mlx5_7");
	cr_assert_eq(give_back(&ref3, 1, &failed), 0);
	cr_assert(dev(3)->ns == HOST);
	cr_assert_str_neq(dev(3)->name, "mlx5_7", "never the pod's name");
	cr_assert_eq(strncmp(dev(3)->name, "mlx5_3_3_", 9), 0, "%s", dev(3)->name);
	cr_assert_eq(strlen(dev(3)->name), 9 + 16);
	snprintf(want, sizeof(want), "move mlx5_3, move mlx5_3_3, move %s", dev(3)->name);
	cr_assert_str_eq(k.tried, want);
}

/* Every name held (the random ones cannot be planted: here the host
 * answers EEXIST to each): DEL fails naming the device, the names tried
 * are logged, and the device stays in the pod rather than come home under
 * the name the pod gave it. */
Test(rdma_return, no_name_free_fails_and_keeps_the_device, .init = setup, .fini = teardown)
{
	const char *failed = NULL;

	add(POD, 3, "pod0");
	k.all_held = true;
	cr_assert_eq(give_back(&ref3, 1, &failed), -ENOTUNIQ);
	cr_assert_str_eq(failed, "mlx5_3");
	cr_assert(dev(3)->ns == POD);
	cr_assert_str_eq(dev(3)->name, "pod0");
	cr_assert(strstr(logged(), "RDMA device pod0 (index 3): every name tried is held on the "
				   "host: mlx5_3, mlx5_3_3, mlx5_3_3_"),
		  "%s", logged());
}

/* A kernel before 7.3 (names system-wide): moved plainly, then renamed on
 * the host along the same names, so the pod's name does not stay. */
Test(rdma_return, old_kernel_renames_on_the_host, .init = setup, .fini = teardown)
{
	const char *failed = NULL;

	k.per_netns = false;
	add(HOST, 10, "mlx5_3");
	add(POD, 3, "hijack0");
	cr_assert_eq(give_back(&ref3, 1, &failed), 0);
	cr_assert(dev(3)->ns == HOST);
	cr_assert_str_eq(dev(3)->name, "mlx5_3_3");
	cr_assert_str_eq(k.tried, "move mlx5_3, move mlx5_3_3, rename mlx5_3, rename mlx5_3_3");
}

/* --- gone (U2) --- */

/* In neither namespace (the pod deleted its rxe): a warning naming it, and
 * DEL goes on. */
Test(rdma_return, in_neither_namespace_is_gone, .init = setup, .fini = teardown)
{
	const char *failed = NULL;
	const char *log;

	add(HOST, 1, "mlx5_0");
	cr_assert_eq(give_back(&ref3, 1, &failed), 0);
	cr_assert_null(failed);
	log = logged();
	cr_assert(strstr(log, "RDMA device mlx5_3 (index 3) is in neither the pod's network "
			      "namespace (net:["),
		  "%s", log);
	cr_assert(strstr(log, "gone (deleted in the pod?); released"), "%s", log);
}

/* Only the kernel's "no such device" in both counts: a GET that fails
 * otherwise, in the pod or on the host, fails DEL (the record stays). */
Test(rdma_return, a_transient_error_is_not_gone, .init = setup, .fini = teardown)
{
	const char *failed = NULL;

	k.get_err[POD] = -EIO;
	cr_assert_eq(give_back(&ref3, 1, &failed), -EIO);
	cr_assert_str_eq(failed, "mlx5_3");
	k.get_err[POD] = 0;
	k.get_err[HOST] = -ENOBUFS;
	failed = NULL;
	cr_assert_eq(give_back(&ref3, 1, &failed), -ENOBUFS);
	cr_assert_str_eq(failed, "mlx5_3");
	cr_assert_null(strstr(logged(), "gone"));
}

/* Back already (an earlier DEL moved it): found on the host, no warning. */
Test(rdma_return, already_home, .init = setup, .fini = teardown)
{
	const char *failed = NULL;

	add(HOST, 3, "mlx5_3");
	cr_assert_eq(give_back(&ref3, 1, &failed), 0);
	cr_assert_str_eq(k.tried, "");
	cr_assert_null(strstr(logged(), "gone"));
}

/* Home by another way (the pod moved it to a namespace of its own, which
 * died) under a name the pod chose: renamed to its recorded host name, or
 * the next home name when that is held; a derived one is kept. */
Test(rdma_return, home_under_the_pods_name_is_renamed, .init = setup, .fini = teardown)
{
	const char *failed = NULL;

	add(HOST, 3, "hijack0");
	cr_assert_eq(give_back(&ref3, 1, &failed), 0);
	cr_assert_str_eq(dev(3)->name, "mlx5_3");
	k.n = 0;
	add(HOST, 3, "mlx5_7");
	add(HOST, 4, "mlx5_3");
	cr_assert_eq(give_back(&ref3, 1, &failed), 0);
	cr_assert_str_eq(dev(3)->name, "mlx5_3_3");
	cr_assert_eq(give_back(&ref3, 1, &failed), 0);
	cr_assert_str_eq(dev(3)->name, "mlx5_3_3", "a home name is kept");
}

/* A move the kernel refuses while the device stays in the pod fails DEL. */
Test(rdma_return, refused_move_fails, .init = setup, .fini = teardown)
{
	const char *failed = NULL;

	add(POD, 3, "mlx5_3");
	k.move_err = -EOPNOTSUPP;
	cr_assert_eq(give_back(&ref3, 1, &failed), -EOPNOTSUPP);
	cr_assert_str_eq(failed, "mlx5_3");
	cr_assert(dev(3)->ns == POD);
}

/* A record of an older build (no index): found in the pod by name; not
 * there, it counts as home (the host is never dumped for it). */
Test(rdma_return, record_without_index, .init = setup, .fini = teardown)
{
	const struct cni_rdma_ref by_name = {.name = "mlx5_4"};
	const char *failed = NULL;

	add(POD, 4, "mlx5_4");
	cr_assert_eq(give_back(&by_name, 1, &failed), 0);
	cr_assert(dev(4)->ns == HOST);
	cr_assert_eq(k.dumps, 1, "one dump, the pod's");
	cr_assert_eq(give_back(&by_name, 1, &failed), 0);
	cr_assert_eq(k.dumps, 2);
}

/* No RDMA subsystem: nothing can be in the pod. */
Test(rdma_return, no_rdma_subsystem, .init = setup, .fini = teardown)
{
	const char *failed = NULL;

	k.get_err[POD] = k.get_err[HOST] = -EPROTONOSUPPORT;
	cr_assert_eq(give_back(&ref3, 1, &failed), 0);
	cr_assert_null(failed);
}

/* --- into the pod (cni_rdma_send) --- */

/* What the lookup found: names, and indices when indexed. */
static struct cni_rdma_found found(bool indexed, size_t n)
{
	static const char *const names[] = {"mlx5_3", "mlx5_4"};
	struct cni_rdma_found f = {.n = n, .indexed = indexed, .how = CNI_RDMA_BY_PCI};

	for (size_t i = 0; i < n; i++) {
		snprintf(f.names[i], sizeof(f.names[i]), "%s", names[i]);
		f.index[i] = indexed ? 3 + (uint32_t)i : 0;
	}
	return f;
}

/* Sysfs gives names: one dump of this namespace gives their indices; a
 * lookup that gave them already costs none. */
Test(rdma_send, indices_from_one_dump, .init = setup, .fini = teardown)
{
	struct cni_rdma_found f = found(false, 2);
	const char *failed = "x";

	add(HOST, 3, "mlx5_3");
	add(HOST, 4, "mlx5_4");
	cr_assert_eq(cni_rdma_found_indices(sys, &f, &failed), 0);
	cr_assert_null(failed);
	cr_assert(f.indexed && f.index[0] == 3 && f.index[1] == 4);
	cr_assert_eq(k.whole_dumps, 1);
	cr_assert_eq(cni_rdma_found_indices(sys, &f, &failed), 0);
	cr_assert_eq(k.whole_dumps, 1, "indexed already: no dump");
	f = found(false, 2);
	k.devs[1].ns = POD; /* mlx5_4 */
	cr_assert_eq(cni_rdma_found_indices(sys, &f, &failed), -ENODEV);
	cr_assert_str_eq(failed, "mlx5_4", "the device not visible here is named");
	cr_assert_not(f.indexed);
}

Test(rdma_send, plain_moves_every_device, .init = setup, .fini = teardown)
{
	struct cni_rdma_found f = found(true, 2);
	const char *failed = "x";

	add(HOST, 3, "mlx5_3");
	add(HOST, 4, "mlx5_4");
	cr_assert_eq(cni_rdma_send(sys, &f, k.pod_fd, "", &failed), 0);
	cr_assert_null(failed);
	cr_assert(dev(3)->ns == POD && dev(4)->ns == POD);
	cr_assert_str_eq(dev(3)->name, "mlx5_3", "a plain move keeps the name");
	cr_assert_eq(k.whole_dumps + k.dumps, 0, "by index: no dump");
	cr_assert(strstr(logged(), "moved RDMA device mlx5_4 (index 4) into the pod"));
}

Test(rdma_send, named_moves_under_the_name, .init = setup, .fini = teardown)
{
	struct cni_rdma_found f = found(true, 1);
	const char *failed = "x";

	add(HOST, 3, "mlx5_3");
	cr_assert_eq(cni_rdma_send(sys, &f, k.pod_fd, "net1", &failed), 0);
	cr_assert(dev(3)->ns == POD);
	cr_assert_str_eq(dev(3)->name, "net1");
	cr_assert_str_eq(k.tried, "move net1");
}

/* A name for two devices is refused before anything moves. */
Test(rdma_send, a_name_for_two_devices_moves_nothing, .init = setup, .fini = teardown)
{
	struct cni_rdma_found f = found(true, 2);
	const char *failed = NULL;
	struct cni_error err = {0};

	add(HOST, 3, "mlx5_3");
	add(HOST, 4, "mlx5_4");
	cr_assert_eq(cni_rdma_send(sys, &f, k.pod_fd, "net1", &failed), -E2BIG);
	cr_assert(dev(3)->ns == HOST && dev(4)->ns == HOST);
	cr_assert_str_eq(k.tried, "", "no move asked");
	cr_assert_eq(cni_rdma_send_error(sys, &err, -E2BIG, "net1", failed), -E2BIG);
	cr_assert_eq(err.code, CNI_ERR_INVALID_CONFIG);
	cr_assert_str_eq(err.msg, "rdmaName names one RDMA device");
}

/* A kernel without names per namespace renames and stays: -ENOSYS, the
 * device still here, and one sentence for both plugins. */
Test(rdma_send, old_kernel_cannot_name_it, .init = setup, .fini = teardown)
{
	struct cni_rdma_found f = found(true, 1);
	const char *failed = NULL;
	struct cni_error err = {0};

	k.per_netns = false;
	add(HOST, 3, "mlx5_3");
	cr_assert_eq(cni_rdma_send(sys, &f, k.pod_fd, "net1", &failed), -ENOSYS);
	cr_assert_str_eq(failed, "mlx5_3");
	cr_assert(dev(3)->ns == HOST);
	cni_rdma_send_error(sys, &err, -ENOSYS, "net1", failed);
	cr_assert_eq(err.code, CNI_ERR_INVALID_CONFIG);
	cr_assert_str_eq(err.msg, "rdmaName needs RDMA device names per network namespace");
	cr_assert_str_eq(err.details,
			 "\"rdmaName\" is \"net1\" but this kernel names RDMA devices once for the "
			 "whole node: it renamed mlx5_3 without moving it (undone). Remove "
			 "rdmaName, or run Linux 7 or later (ib-sriov doctor says which)");
}

/* The kernel's refusal (rxe, siw: no namespace change) is returned as it
 * is and named; a device moved before it stays moved. */
Test(rdma_send, refusal_names_the_device, .init = setup, .fini = teardown)
{
	struct cni_rdma_found f = found(true, 1);
	const char *failed = NULL;
	struct cni_error err = {0};

	add(HOST, 3, "mlx5_3");
	k.move_err = -EOPNOTSUPP;
	cr_assert_eq(cni_rdma_send(sys, &f, k.pod_fd, NULL, &failed), -EOPNOTSUPP);
	cr_assert_str_eq(failed, "mlx5_3");
	cni_rdma_send_error(sys, &err, -EOPNOTSUPP, NULL, failed);
	cr_assert_eq(err.code, CNI_ERR_DEVICE);
	cr_assert_str_eq(err.msg, "cannot move the RDMA device into the pod");
	cr_assert_str_eq(err.details,
			 "mlx5_3: its driver does not support moving between network namespaces "
			 "(soft RDMA drivers such as rxe and siw never do) ",
			 "the name, the sentence, the kernel's extended ack (none here)");
}
