// SPDX-License-Identifier: Apache-2.0
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/cleanup.h"
#include "kernel/pci.h"
#include "base/util.h"

/* A path under the PCI root, or a link target read there: far below
 * PATH_MAX, and PATH_MAX buffers were stack pages to fault in on every ADD
 * (stack clash protection probes each page of a frame). A longer one is
 * refused (-ENAMETOOLONG), never cut. */
#define SYSFS_PATH_MAX 512

static int dev_path(char *buf, size_t len, const char *root, const char *addr, const char *sub)
{
	return check_snprintf(buf, len, "%s/devices/%s%s%s", root, addr, sub ? "/" : "",
			      sub ? sub : "");
}

/* A symlink's target, NUL-terminated: 0, -errno, or -ENAMETOOLONG rather
 * than a cut one. */
static int read_link(const char *path, char target[SYSFS_PATH_MAX])
{
	ssize_t n = readlink(path, target, SYSFS_PATH_MAX);

	if (n < 0)
		return -errno;
	if (n >= SYSFS_PATH_MAX)
		return -ENAMETOOLONG;
	target[n] = '\0';
	return 0;
}

/* Basename of a symlink's target. */
static int link_base(const char *path, char *out, size_t len)
{
	char target[SYSFS_PATH_MAX];
	const char *base;
	int ret = read_link(path, target);

	if (ret)
		return ret;
	base = strrchr(target, '/');
	return copy_str(out, len, base ? base + 1 : target);
}

/* First entry (in byte order, as alphasort in the C locale) of a directory,
 * skipping dot files. A net/ or infiniband/ directory holds one or two: read
 * with getdents64 into the stack, no DIR buffer, no list to sort. */
static int first_entry(const char *dir, char *out, size_t len)
{
	_cleanup_close_ int fd = open(dir, O_RDONLY | O_DIRECTORY | O_NONBLOCK | O_CLOEXEC);
	char buf[2048], best[NAME_MAX + 1] = "";
	ssize_t n;

	if (fd < 0)
		return errno == ENOENT ? -ENODEV : -errno;
	while ((n = getdents64(fd, buf, sizeof(buf))) > 0) {
		for (ssize_t off = 0; off < n;) {
			const struct dirent64 *e = (const struct dirent64 *)(buf + off);

			off += e->d_reclen;
			if (e->d_name[0] != '.' && (!*best || strcmp(e->d_name, best) < 0))
				copy_str(best, sizeof(best), e->d_name);
		}
	}
	if (n < 0)
		return -errno;
	return *best ? copy_str(out, len, best) : -ENODEV;
}

int cni_pci_netdev(const char *root, const char *addr, char name[IFNAMSIZ])
{
	char path[SYSFS_PATH_MAX];

	name[0] = '\0';
	if (dev_path(path, sizeof(path), root, addr, "net"))
		return -ENAMETOOLONG;
	return first_entry(path, name, IFNAMSIZ);
}

int cni_pci_wait_netdev(const char *root, const char *addr, unsigned int timeout_ms,
			char name[IFNAMSIZ])
{
	uint64_t deadline = now_ms() + timeout_ms;
	int ret;

	for (;;) {
		ret = cni_pci_netdev(root, addr, name);
		if (ret != -ENODEV || now_ms() >= deadline)
			return ret == -ENODEV ? -ETIMEDOUT : ret;
		sleep_ms(20);
	}
}

int cni_pci_driver(const char *root, const char *addr, char *drv, size_t len)
{
	char path[SYSFS_PATH_MAX];
	int ret;

	drv[0] = '\0';
	if (dev_path(path, sizeof(path), root, addr, "driver"))
		return -ENAMETOOLONG;
	ret = link_base(path, drv, len);
	return ret == -ENOENT ? -ENOENT : ret;
}

/* A sysfs attribute holding a count: the kernel gives it whole in one read
 * (a regular file of the test tree does too); non-blocking, no link. */
static int read_count(const char *root, const char *pf, const char *attr, unsigned int *out)
{
	_cleanup_close_ int fd = -1;
	char path[SYSFS_PATH_MAX], buf[32];
	uint64_t v;
	ssize_t n;
	int ret;

	if (dev_path(path, sizeof(path), root, pf, attr))
		return -ENAMETOOLONG;
	fd = open(path, O_RDONLY | O_NONBLOCK | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = read(fd, buf, sizeof(buf) - 1);
	if (n < 0)
		return -errno;
	buf[n] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
	ret = parse_u64(buf, 10, 65535, &v);
	if (!ret)
		*out = (unsigned int)v;
	return ret;
}

/* Domain and routing ID (bus << 8 | device << 3 | function) of a PCI
 * address "dddd:bb:dd.f". */
static int pci_rid(const char *addr, unsigned int *domain, unsigned int *rid)
{
	unsigned int bus, dev, fn;
	int end = 0;

	if (sscanf(addr, "%x:%2x:%2x.%1x%n", domain, &bus, &dev, &fn, &end) != 4 || addr[end] ||
	    dev > 0x1f || fn > 7)
		return -EINVAL;
	*rid = bus << 8 | dev << 3 | fn;
	return 0;
}

/* VF n sits at the PF's routing ID + First VF Offset + n * VF Stride (the
 * SR-IOV capability, in sysfs as sriov_offset and sriov_stride): one lookup
 * instead of a readlink per VF, and still checked against virtfn<n>. */
int cni_pci_vf_index_rid(const char *root, const char *pf, const char *vf)
{
	unsigned int pf_dom, vf_dom, pf_rid, vf_rid, offset, stride, n;
	char path[SYSFS_PATH_MAX], name[24], base[64];

	if (pci_rid(pf, &pf_dom, &pf_rid) || pci_rid(vf, &vf_dom, &vf_rid) || pf_dom != vf_dom ||
	    read_count(root, pf, "sriov_offset", &offset) ||
	    read_count(root, pf, "sriov_stride", &stride) || !stride || vf_rid < pf_rid + offset ||
	    (vf_rid - pf_rid - offset) % stride)
		return -ENOENT;
	n = (vf_rid - pf_rid - offset) / stride;
	if (check_snprintf(name, sizeof(name), "virtfn%u", n) ||
	    dev_path(path, sizeof(path), root, pf, name) || link_base(path, base, sizeof(base)) ||
	    strcmp(base, vf))
		return -ENOENT;
	return (int)n;
}

static int vf_index(const char *root, const char *pf, const char *vf)
{
	_cleanup_dir_ DIR *d = NULL;
	char path[SYSFS_PATH_MAX], base[64];
	struct dirent *e;

	if (dev_path(path, sizeof(path), root, pf, NULL))
		return -ENAMETOOLONG;
	d = opendir(path);
	if (!d)
		return -errno;
	while ((e = readdir(d))) {
		char link[SYSFS_PATH_MAX];
		uint64_t n;

		if (strncmp(e->d_name, "virtfn", 6) || parse_u64(e->d_name + 6, 10, INT32_MAX, &n))
			continue;
		if (check_snprintf(link, sizeof(link), "%s/%s", path, e->d_name) ||
		    link_base(link, base, sizeof(base)))
			continue;
		if (!strcmp(base, vf))
			return (int)n;
	}
	return -ENOENT;
}

int cni_pci_rdma_devs(const char *root, const char *addr, char names[][CNI_RDMA_NAME_MAX],
		      size_t max)
{
	struct dirent **list;
	char path[SYSFS_PATH_MAX];
	size_t found = 0;
	int n;

	if (dev_path(path, sizeof(path), root, addr, "infiniband"))
		return -ENAMETOOLONG;
	n = scandir(path, &list, NULL, alphasort);
	if (n < 0)
		return errno == ENOENT ? 0 : -errno;
	for (int i = 0; i < n; i++) {
		if (list[i]->d_name[0] != '.' && found < max &&
		    !copy_str(names[found], CNI_RDMA_NAME_MAX, list[i]->d_name))
			found++;
		free(list[i]);
	}
	free(list);
	return (int)found;
}

int cni_pci_aux_rdma_devs(const char *root, const char *aux_root, const char *addr,
			  char names[][CNI_RDMA_NAME_MAX], size_t max)
{
	char path[SYSFS_PATH_MAX];
	_cleanup_dir_ DIR *d = NULL;
	struct dirent *e;
	struct stat st;
	int n = 0;

	if (dev_path(path, sizeof(path), root, addr, NULL))
		return -ENAMETOOLONG;
	d = opendir(path);
	while (d && !n && (e = readdir(d))) {
		if (e->d_name[0] == '.' ||
		    dev_path(path, sizeof(path), aux_root, e->d_name, NULL) || lstat(path, &st))
			continue;
		n = cni_pci_rdma_devs(aux_root, e->d_name, names, max);
	}
	return n;
}

int cni_pci_aux_parent(const char *aux_root, const char *id, char parent[CNI_PCI_ADDR_LEN],
		       bool *sf)
{
	char path[SYSFS_PATH_MAX], target[SYSFS_PATH_MAX], *slash;
	struct stat st;
	int ret;

	if (dev_path(path, sizeof(path), aux_root, id, NULL))
		return -ENAMETOOLONG;
	ret = read_link(path, target);
	if (ret)
		return ret == -ENOENT ? -ENODEV : ret;
	/* .../devices/pci0000:00/<parent>/<id>: the parent is the component before. */
	slash = strrchr(target, '/');
	if (!slash)
		return -ENOTTY;
	*slash = '\0';
	slash = strrchr(target, '/');
	if (!cni_pci_addr_parse(slash ? slash + 1 : target, parent))
		return -ENOTTY;
	if (dev_path(path, sizeof(path), aux_root, id, "sfnum"))
		return -ENAMETOOLONG;
	*sf = stat(path, &st) == 0;
	return 0;
}

int cni_pci_vf_get(const char *root, const char *addr, struct cni_pci_vf *vf)
{
	char path[SYSFS_PATH_MAX];
	struct stat st;
	int ret;

	memset(vf, 0, sizeof(*vf));
	if (copy_str(vf->addr, sizeof(vf->addr), addr) ||
	    dev_path(path, sizeof(path), root, addr, "physfn"))
		return -EINVAL;
	ret = link_base(path, vf->pf_addr, sizeof(vf->pf_addr));
	/* No physfn: not a VF, or no such device at all. */
	if (ret == -ENOENT && !dev_path(path, sizeof(path), root, addr, NULL))
		return stat(path, &st) < 0 ? (errno == ENOENT ? -ENODEV : -errno) : -ENOTTY;
	if (ret)
		return ret;
	ret = cni_pci_vf_index_rid(root, vf->pf_addr, addr);
	if (ret < 0)
		ret = vf_index(root, vf->pf_addr, addr);
	if (ret < 0)
		return ret == -ENOENT ? -ENOTTY : ret;
	vf->vf_index = ret;
	ret = cni_pci_netdev(root, vf->pf_addr, vf->pf_netdev);
	if (ret && ret != -ENODEV)
		return ret;
	ret = cni_pci_netdev(root, addr, vf->netdev);
	if (ret && ret != -ENODEV)
		return ret;
	ret = cni_pci_driver(root, addr, vf->driver, sizeof(vf->driver));
	if (ret && ret != -ENOENT)
		return ret;
	if (dev_path(path, sizeof(path), root, addr, "infiniband"))
		return -ENAMETOOLONG;
	ret = first_entry(path, vf->rdma_dev, sizeof(vf->rdma_dev));
	return ret == -ENODEV ? 0 : ret;
}

static int write_attr(const char *path, const char *val)
{
	_cleanup_close_ int fd = open(path, O_WRONLY | O_CLOEXEC | O_NOFOLLOW);

	if (fd < 0)
		return -errno;
	return write_all(fd, val, strlen(val));
}

int cni_pci_rebind(const char *root, const char *addr)
{
	char drv[64], path[SYSFS_PATH_MAX];
	int ret = cni_pci_driver(root, addr, drv, sizeof(drv));

	if (ret)
		return ret;
	if (check_snprintf(path, sizeof(path), "%s/drivers/%s/unbind", root, drv))
		return -ENAMETOOLONG;
	ret = write_attr(path, addr);
	if (ret)
		return ret;
	if (check_snprintf(path, sizeof(path), "%s/drivers/%s/bind", root, drv))
		return -ENAMETOOLONG;
	return write_attr(path, addr);
}

int cni_pci_pkeys(const char *root, const char *addr, const char *rdma_dev, unsigned int port,
		  uint16_t *pkeys, size_t max)
{
	_cleanup_dir_ DIR *d = NULL;
	char path[SYSFS_PATH_MAX], sub[SYSFS_PATH_MAX];
	struct dirent *e;
	size_t n = 0;

	if (check_snprintf(sub, sizeof(sub), "infiniband/%s/ports/%u/pkeys", rdma_dev, port) ||
	    dev_path(path, sizeof(path), root, addr, sub))
		return -ENAMETOOLONG;
	d = opendir(path);
	if (!d)
		return -errno;
	while ((e = readdir(d)) && n < max) {
		_cleanup_free_ char *buf = NULL;
		char file[SYSFS_PATH_MAX];
		uint64_t v;

		if (e->d_name[0] == '.' ||
		    check_snprintf(file, sizeof(file), "%s/%s", path, e->d_name) ||
		    read_file(file, 32, &buf, NULL))
			continue;
		buf[strcspn(buf, "\n")] = '\0';
		if (parse_u64(buf, 16, 0xffff, &v) || !(v & 0x7fff))
			continue;
		pkeys[n++] = (uint16_t)v;
	}
	return (int)n;
}

static int not_dot(const struct dirent *e)
{
	return e->d_name[0] != '.';
}

int cni_pci_sriov_pfs(const char *root, char pfs[][CNI_PCI_ADDR_LEN], size_t max)
{
	struct dirent **list;
	char path[SYSFS_PATH_MAX];
	size_t found = 0;
	int n;

	if (check_snprintf(path, sizeof(path), "%s/devices", root))
		return -ENAMETOOLONG;
	n = scandir(path, &list, not_dot, alphasort);
	if (n < 0)
		return -errno;
	for (int i = 0; i < n; i++) {
		char probe[SYSFS_PATH_MAX];
		struct stat st;
		bool pf = false;

		if (!dev_path(probe, sizeof(probe), root, list[i]->d_name, "virtfn0"))
			pf = lstat(probe, &st) == 0;
		if (!pf && !dev_path(probe, sizeof(probe), root, list[i]->d_name, "sriov_totalvfs"))
			pf = stat(probe, &st) == 0;
		if (pf && found < max && cni_pci_addr_parse(list[i]->d_name, pfs[found]))
			found++;
		free(list[i]);
	}
	free(list);
	return (int)found;
}

int cni_pci_vf_addr(const char *root, const char *pf, unsigned int n, char vf[CNI_PCI_ADDR_LEN])
{
	char path[SYSFS_PATH_MAX], sub[32], base[64];
	int ret;

	if (check_snprintf(sub, sizeof(sub), "virtfn%u", n) ||
	    dev_path(path, sizeof(path), root, pf, sub))
		return -ENAMETOOLONG;
	ret = link_base(path, base, sizeof(base));
	if (ret)
		return ret;
	return cni_pci_addr_parse(base, vf) ? 0 : -EINVAL;
}

int cni_pci_sriov_counts(const char *root, const char *pf, unsigned int *num, unsigned int *total)
{
	int ret = read_count(root, pf, "sriov_numvfs", num);

	if (ret)
		return ret;
	return read_count(root, pf, "sriov_totalvfs", total);
}

int cni_pci_port_attr_parse(const char *text, unsigned int max, unsigned int *out)
{
	char buf[32];
	uint64_t v;

	if (!text)
		return -EINVAL;
	copy_str(buf, sizeof(buf), text);
	buf[strcspn(buf, ":\n")] = '\0';
	if (parse_u64(buf, 10, max, &v))
		return -EINVAL;
	*out = (unsigned int)v;
	return 0;
}

static int port_attr(const char *root, const char *addr, const char *rdma_dev, unsigned int port,
		     const char *attr, unsigned int *out)
{
	_cleanup_free_ char *buf = NULL;
	char path[SYSFS_PATH_MAX], sub[SYSFS_PATH_MAX];
	int ret;

	if (check_snprintf(sub, sizeof(sub), "infiniband/%s/ports/%u/%s", rdma_dev, port, attr) ||
	    dev_path(path, sizeof(path), root, addr, sub))
		return -ENAMETOOLONG;
	ret = read_file(path, 64, &buf, NULL);
	if (ret)
		return ret;
	return cni_pci_port_attr_parse(buf, 255, out);
}

int cni_pci_port_state(const char *root, const char *addr, const char *rdma_dev, unsigned int port,
		       unsigned int *state, unsigned int *phys)
{
	int ret = port_attr(root, addr, rdma_dev, port, "state", state);

	if (ret)
		return ret;
	if (port_attr(root, addr, rdma_dev, port, "phys_state", phys))
		*phys = 0;
	return 0;
}
