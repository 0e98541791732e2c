// SPDX-License-Identifier: Apache-2.0
/* ibcni-install's parts: the options main parses, and the steps it runs in
 * order (install the plugins, the RDMA netns mode, the node config). */
#ifndef IBCNI_INSTALL_H
#define IBCNI_INSTALL_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "protocol/nodeconf.h"

/* The files the image installs, in install order; --only picks a subset. */
enum { INST_IB_SRIOV, INST_RDMA_NS, INST_IB_HOST_LOCAL, INST_RDMA, INST_N };

struct opts {
	const char *src;
	const char *dst;
	const char *modprobe_dir;
	const char *netns_mode;
	int wait; /* -1: not given (wait), 0: --no-sleep, 1: --wait */
	bool only[INST_N];
	bool only_given;
	/* Upstream's --*-bin-file: the file installed under that name. */
	const char *bin_file[INST_N];
	/* The node configuration: written only when one of these is given. */
	const char *node_dir;
	char dirs[CNI_NODECONF_MAX_DIRS][PATH_MAX];
	size_t n_dirs;
	const char *device_check;
	long max_wait_ms; /* -1: not given */
	const char *node_name;
	const char *ranges_dir;
	char *ranges; /* DIR/NAME as compact JSON once read; NULL: none */
};

/* The file name of INST_* i in the CNI directory ("rdma" for INST_RDMA). */
const char *inst_name(int i);

/* Index of a plugin name for --only, or -1 when it is not one of ours. */
int inst_index(const char *name);

/* Install every selected plugin into o->dst, each under a temporary name,
 * fsync'ed, renamed over what is there (a link is replaced, never
 * followed). 0, or negative errno after saying on stderr what failed. */
int install_all(const struct opts *o);

/* Write buf as dfd/name: temp name, fsync, rename. 0 or negative errno. */
int write_atomic(int dfd, const char *name, const void *buf, size_t len, mode_t mode);

/* --netns-mode: record the mode in o->modprobe_dir unless another file
 * there already sets ib_core netns_mode (SNO's rdmaMode), then try it now.
 * 0 (also when another owns it), or negative errno when writing failed. */
int set_netns_mode(const struct opts *o);

/* Read and check o->ranges_dir/o->node_name into o->ranges (left NULL when
 * there is no entry for the node). 0, or -EINVAL naming the file. */
int load_node_ranges(struct opts *o);

/* True when an option of the node configuration was given. */
bool node_conf_given(const struct opts *o);

/* Load the node configuration as this run would leave it (conf as ibcni.conf,
 * NULL: the current one; ranges as ibcni.conf.d/ranges.conf, NULL: none when
 * o->ranges_dir, else the current one) from a private stage in dfd, the
 * plugins' files untouched. 0, -EINVAL after naming the file and key, or
 * negative errno. */
int check_node_conf(const struct opts *o, int dfd, const char *conf, const char *ranges);

/* Write o->node_dir/ibcni.conf (and ibcni.conf.d/ranges.conf) from the
 * options once the result loads. 0 or negative errno. */
int write_node_conf(const struct opts *o);

#endif
