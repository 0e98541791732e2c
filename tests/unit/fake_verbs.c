// SPDX-License-Identifier: Apache-2.0
/* The fake libibverbs (fake_verbs.h). Built only into unit tests. */
#include <dirent.h>
#include <errno.h>
#include <infiniband/verbs.h>
#include <endian.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "fake_verbs.h"

struct fake_verbs fv;

static struct ibv_device devices[FAKE_VERBS_DEVS];

void fake_verbs_reset(void)
{
	memset(&fv, 0, sizeof(fv));
	fv.list_errno = ENOSYS;
}

struct fake_verbs_dev *fake_verbs_add(const char *name, bool ib)
{
	struct fake_verbs_dev *d = &fv.devs[fv.n++];
	struct fake_verbs_port *p = &d->ports[0];

	fv.list_errno = 0;
	memset(d, 0, sizeof(*d));
	snprintf(d->name, sizeof(d->name), "%s", name);
	d->node_guid = 0x0c42a10300aabb01ULL;
	d->n_ports = 1;
	p->state = IBV_PORT_ACTIVE;
	p->phys_state = 5;
	p->link_layer = ib ? IBV_LINK_LAYER_INFINIBAND : IBV_LINK_LAYER_ETHERNET;
	p->width = 2;
	p->speed = 32;
	p->subnet_prefix = 0xfe80000000000000ULL;
	p->guid = ib ? 0x0200000000000009ULL : 0x020000fffe000042ULL;
	p->gid_tbl_len = ib ? 128 : 256;
	p->pkeys[p->n_pkeys++] = 0xffff;
	if (ib)
		p->pkeys[p->n_pkeys++] = 0x8001;
	return d;
}

static struct fake_verbs_dev *of(struct ibv_device *dev)
{
	return &fv.devs[dev - devices];
}

struct ibv_device **ibv_get_device_list(int *num)
{
	struct ibv_device **list;

	fv.lists++;
	if (fv.list_errno) {
		errno = fv.list_errno;
		return NULL;
	}
	list = calloc(fv.n + 1, sizeof(*list));
	for (unsigned int i = 0; i < fv.n; i++) {
		snprintf(devices[i].name, sizeof(devices[i].name), "%s", fv.devs[i].name);
		snprintf(devices[i].dev_name, sizeof(devices[i].dev_name), "uverbs%u", i);
		list[i] = &devices[i];
	}
	if (num)
		*num = (int)fv.n;
	return list;
}

void ibv_free_device_list(struct ibv_device **list)
{
	fv.frees++;
	free(list);
}

const char *ibv_get_device_name(struct ibv_device *dev)
{
	return dev->name;
}

static int query_port(struct ibv_context *ctx, uint8_t num, struct ibv_port_attr *a, size_t len)
{
	struct fake_verbs_dev *d = of(ctx->device);
	struct fake_verbs_port *p;

	if (num < 1 || num > d->n_ports)
		return EINVAL;
	p = &d->ports[num - 1];
	if (p->query_ret)
		return p->query_ret;
	memset(a, 0, len);
	a->state = (enum ibv_port_state)p->state;
	a->phys_state = (uint8_t)p->phys_state;
	a->link_layer = (uint8_t)p->link_layer;
	a->active_width = (uint8_t)p->width;
	a->active_speed = (uint8_t)p->speed;
	a->gid_tbl_len = p->gid_tbl_len;
	a->pkey_tbl_len = (uint16_t)p->n_pkeys;
	a->active_mtu = p->active_mtu ? (enum ibv_mtu)p->active_mtu : IBV_MTU_1024;
	a->lid = 7;
	a->sm_lid = 1;
	return 0;
}

/* Descriptors from 3 up, the listing's own apart, and below the soft
 * limit (valgrind keeps its own above the limit it gives the process). */
static int fds_above_stdio(void)
{
	DIR *d = opendir("/proc/self/fd");
	struct rlimit lim = {0};
	struct dirent *e;
	int n = 0;

	if (!d)
		return -1;
	getrlimit(RLIMIT_NOFILE, &lim);
	while ((e = readdir(d)))
		if (atoi(e->d_name) > 2 && atoi(e->d_name) != dirfd(d) &&
		    (rlim_t)atoi(e->d_name) < lim.rlim_cur)
			n++;
	closedir(d);
	return n;
}

/* The process's effective capabilities are none ("CapEff:" all zeros). */
static bool no_caps(void)
{
	char line[128];
	bool none = false;
	FILE *f = fopen("/proc/self/status", "re");

	while (f && fgets(line, sizeof(line), f))
		if (!strncmp(line, "CapEff:", 7))
			none = strtoull(line + 7, NULL, 16) == 0;
	if (f)
		fclose(f);
	return none;
}

struct ibv_context *ibv_open_device(struct ibv_device *dev)
{
	struct fake_verbs_dev *d = of(dev);
	struct verbs_context *v;

	if (d->chatty) {
		printf("fake libibverbs on stdout\n");
		fflush(stdout);
		fprintf(stderr, "fake libibverbs on stderr\n");
	}
	if (d->open_sleep_ms)
		usleep(d->open_sleep_ms * 1000);
	/* What the child holds: the reply pipe alone, no capability. */
	if (d->audit && (fds_above_stdio() != 1 || !no_caps())) {
		errno = fds_above_stdio() != 1 ? EMFILE : EACCES;
		return NULL;
	}
	/* libibverbs honours SYSFS_PATH and friends: the child must not. */
	if (d->open_errno || getenv("SYSFS_PATH")) {
		errno = d->open_errno ? d->open_errno : EINVAL;
		return NULL;
	}
	fv.opens++;
	v = calloc(1, sizeof(*v));
	v->sz = sizeof(*v);
	v->query_port = query_port;
	v->context.device = dev;
	v->context.abi_compat = __VERBS_ABI_IS_EXTENDED;
	return &v->context;
}

int ibv_close_device(struct ibv_context *ctx)
{
	fv.closes++;
	free(verbs_get_ctx(ctx));
	return 0;
}

int ibv_query_device(struct ibv_context *ctx, struct ibv_device_attr *attr)
{
	struct fake_verbs_dev *d = of(ctx->device);

	memset(attr, 0, sizeof(*attr));
	snprintf(attr->fw_ver, sizeof(attr->fw_ver), "20.39.1002");
	attr->node_guid = htobe64(d->node_guid);
	attr->sys_image_guid = htobe64(d->node_guid);
	attr->vendor_id = 0x02c9;
	attr->vendor_part_id = 4126;
	attr->phys_port_cnt = (uint8_t)d->n_ports;
	return 0;
}

/* The compat entry point the inline ibv_query_port falls back to; unused
 * while the context is extended, but referenced. */
#undef ibv_query_port
int ibv_query_port(struct ibv_context *ctx, uint8_t num, struct _compat_ibv_port_attr *a)
{
	return query_port(ctx, num, (struct ibv_port_attr *)a, sizeof(struct ibv_port_attr));
}

int ibv_query_gid(struct ibv_context *ctx, uint8_t num, int index, union ibv_gid *gid)
{
	struct fake_verbs_port *p = &of(ctx->device)->ports[num - 1];

	if (p->gid_fail || index != 0)
		return -1;
	gid->global.subnet_prefix = htobe64(p->subnet_prefix);
	gid->global.interface_id = htobe64(p->guid);
	return 0;
}

int ibv_query_pkey(struct ibv_context *ctx, uint8_t num, int index, __be16 *pkey)
{
	struct fake_verbs_port *p = &of(ctx->device)->ports[num - 1];

	if (p->pkey_errno || index < 0 || (unsigned int)index >= p->n_pkeys) {
		errno = p->pkey_errno ? p->pkey_errno : EINVAL;
		return -1;
	}
	*pkey = htobe16(p->pkeys[index]);
	return 0;
}

ssize_t _ibv_query_gid_table(struct ibv_context *ctx, struct ibv_gid_entry *entries,
			     size_t max_entries, uint32_t flags, size_t entry_size)
{
	struct fake_verbs_dev *d = of(ctx->device);

	(void)flags;
	if (d->gid_table_ret < 0)
		return d->gid_table_ret;
	if (entry_size != sizeof(*entries) || d->n_gids > max_entries)
		return -EINVAL;
	for (unsigned int i = 0; i < d->n_gids; i++) {
		memset(&entries[i], 0, sizeof(entries[i]));
		memcpy(entries[i].gid.raw, d->gids[i].raw, 16);
		entries[i].gid_index = d->gids[i].index;
		entries[i].port_num = d->gids[i].port;
		entries[i].gid_type = d->gids[i].type;
		entries[i].ndev_ifindex = d->gids[i].ifindex;
	}
	return (ssize_t)d->n_gids;
}
