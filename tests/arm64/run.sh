#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# The arm64 tier: the aarch64 plugins of `make ARCH=arm64` run under
# qemu-user (qemu-aarch64-static, named explicitly: binfmt_misc is neither
# needed nor used), as root, each test in private mount and network
# namespaces with tmpfs over /run and /var/lib/cni (tests/netns/lib.sh).
#
# What runs: tests/arm64/test-*.sh (static aarch64 ELF, a second build the
# same bytes, VERSION, --help and --version as the amd64 build prints them,
# ib-host-local ADD/CHECK/DEL with its leases on disk, ib-sriov ADD/CHECK/DEL
# on the simulated SR-IOV node, records and leases shared with the amd64
# build, `ib-sriov doctor` equal to the amd64 one), then the netns tier
# itself with the arm64 plugins (IBCNI_WRAP=tests/arm64/qemu-wrap.sh runs
# every aarch64 file that cni_exec runs through qemu) but for the tests in
# NOT_RUN below, each printed with its reason.
#
# What qemu-user 7.2 (Debian 12) cannot run, and so is not tested here:
# - nsfs ioctls: NS_GET_NSTYPE is not in qemu's ioctl table (ENOSYS in 7.2,
#   ENOTTY in 10, which bookworm-backports' qemu brings with the vm-igb tier). The
#   plugins then ask setns(CLONE_NEWNET), which works (test_netns_kind_*).
# - NETLINK_RDMA: qemu-user opens only NETLINK_ROUTE, KOBJECT_UEVENT and
#   AUDIT sockets (EPROTONOSUPPORT otherwise), so rdma-ns, rdmaIsolation,
#   pkeyEnforce's RDMA checks and the netns-mode commands cannot reach the
#   RDMA subsystem; this kernel has none either, so the netns tier's rdma-ns
#   tests (which expect exactly that answer) pass, and the vm tier's rxe
#   tests are amd64 only.
# - RTM_NEWLINKPROP/RTM_DELLINKPROP are not translated (EOPNOTSUPP): the
#   tests whose pod adds altnames that DEL must remove are amd64 only (the
#   plugins ask for it only when a link has altnames).
# - FIB rule messages (RTM_GETRULE, RTM_NEWRULE, RTM_DELRULE) are not
#   translated (EOPNOTSUPP): railTable's ADD, which lists the pod's rules
#   before it adds its own, refuses with code 100, so the rail tests are
#   amd64 only (test-rails:test_rails_bad_keys, which stops before, runs).
# - getsockopt SO_NETNS_COOKIE is not in qemu 7.2's table (EINVAL): rdma-ns
#   records no namespace cookie there, as on a kernel before 5.14.
# - SIOCETHTOOL is not forwarded: rdma-ns cannot read a pod netdev's driver
#   (its message says "no ethtool" where the amd64 build says "veth").
# - An aarch64 file exec'ed by anything but cni_exec (the tests that run
#   $BIN/... themselves, cnitool, Multus, podman, an exec'ed delegate) fails
#   with ENOEXEC without binfmt_misc, which a test must not register on the
#   host; those tests' subjects are covered by this tier's own tests or by
#   the builtin delegate (ib-host-local served inside ib-sriov).
# - Timing: qemu's TCG is 5 to 20 times slower, so tests that bound a run's
#   duration or race eight plugins are amd64 only.
set -u
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
export IBCNI_FIXTURES=$root/tests/fixtures
: "${IBCNI_BIN:?the arm64 bin directory}" "${IBCNI_NATIVE_BIN:?the native bin directory}"
export IBCNI_BIN IBCNI_NATIVE_BIN IBCNI_WRAP=$here/qemu-wrap.sh IBCNI_HELPER=${IBCNI_HELPER:-none}
pass=0 fail=0 failed=()

finish() {
	[ ${#failed[@]} -gt 0 ] && printf 'failed: %s\n' "${failed[*]}"
	echo "arm64: $pass passed, $fail failed"
	[ "$fail" -eq 0 ]
	exit
}

if [ "$(id -u)" -ne 0 ]; then
	echo "arm64: not run: needs root (namespaces, veth, mounts); run: sudo make check-arm64"
	fail=1 failed+=(root)
	finish
fi
if ! command -v qemu-aarch64-static >/dev/null; then
	echo "arm64: not run: no qemu-aarch64-static (scripts/cross-deps.sh arm64 installs it)"
	fail=1 failed+=(qemu)
	finish
fi
echo "arm64: $(qemu-aarch64-static --version | head -n 1)"
# An aarch64 file that something execs by itself fails with ENOEXEC, and
# execvp(3) then hands it to /bin/sh: whatever that makes of the bytes
# happens in a scratch directory, never in the tree.
scratch=$(mktemp -d /tmp/ibcni-arm64.XXXXXX)
trap 'rm -rf "$scratch"' EXIT
cd "$scratch" || exit 1

filter=${ARM64_FILTER:-}
for file in "$here"/test-*.sh; do
	for fn in $(bash -c ". '$root/tests/netns/lib.sh' 2>/dev/null; . '$file'; declare -F" | awk '{print $3}' | grep '^test_'); do
		name="$(basename "$file" .sh):$fn"
		[[ -n $filter && $name != *$filter* ]] && continue
		log=$(mktemp)
		start=$(date +%s%N)
		timeout 300 unshare --mount --net --propagation private \
			bash -c ". '$root/tests/netns/lib.sh'; . '$file'; lib_init && $fn; lib_finish" >"$log" 2>&1
		rc=$?
		ms=$((($(date +%s%N) - start) / 1000000))
		if [ $rc -eq 0 ]; then
			pass=$((pass + 1))
			printf '  PASS  %-58s %6d ms\n' "$name" "$ms"
		else
			fail=$((fail + 1))
			failed+=("$name")
			printf '  FAIL  %-58s %6d ms\n' "$name" "$ms"
			sed 's/^/        /' "$log"
		fi
		rm -f "$log"
	done
done
[ -n "$filter" ] && finish

# The netns tier with the arm64 plugins. NAME-SUBSTRING<TAB>why it is not run.
not_run() {
	cat <<'EOF'
test-doctor:	runs $BIN/ib-sriov doctor itself (ENOEXEC without binfmt_misc); test-arm64:test_doctor_same_as_amd64 runs it through qemu
test-examples:test_help_and_version	runs $BIN/* --help itself; test-arm64:test_version_help_and_about compares them with the amd64 build's
test-examples:test_examples_boot_files	runs $BIN/rdma-ns itself
test-hostile-runtime:test_log_one_write_per_line	runs $BIN/ib-sriov under strace itself
test-hostile-runtime:test_logfile_planted	runs $BIN/ib-sriov under timeout itself
test-hostile-runtime:test_netns_planted_or_own_refused	runs $BIN/ib-sriov itself; test-arm64:test_netns_kind_without_the_ioctl has its cases through qemu
test-ibsriov-hostile:test_stuck_data_dir_times_out	bounds the run's time, which qemu's TCG stretches
test-ibsriov-hostile:test_altnames_never_reach_the_host	altnames: qemu-user does not translate RTM_DELLINKPROP (EOPNOTSUPP)
test-ibsriov-hostile:test_pod_changes_to_the_vf_are_undone	altnames: qemu-user does not translate RTM_DELLINKPROP (EOPNOTSUPP)
test-ibsriov-hostile:test_rollback_undoes_the_pods_changes	altnames: qemu-user does not translate RTM_DELLINKPROP (EOPNOTSUPP)
test-ibsriov-dropin:test_record_of_the_previous_format_is_released	altnames: qemu-user does not translate RTM_DELLINKPROP (EOPNOTSUPP)
test-ibsriov:test_cnitool_conflist	cnitool execs the plugins (ENOEXEC)
test-ibsriov:test_eight_vfs_concurrently	eight plugins racing under TCG outlast the test's bounds
test-ibsriov:test_ib_host_local_builtin_same_as_exec	its exec'ed cases exec an aarch64 ib-host-local (ENOEXEC)
test-ipam:test_cost_independent	measures time
test-ipam:test_lock_timeout	measures time
test-ipam:test_concurrent_adds	races under TCG outlast the test's bounds
test-ipam:test_interop_shared_directory	runs $BIN/ib-host-local itself, sixty at once
test-ipam:test_lease_published_complete	runs $BIN/ib-host-local under strace itself
test-ipam:test_packed_range_one_fsync	runs $BIN/ib-host-local under strace itself
test-ipam:test_killed_runs	runs $BIN/ib-host-local under strace itself
test-link:test_announce_updates_neighbours	runs $BIN/ib-sriov under strace itself
test-multus:	Multus execs the plugins (ENOEXEC)
test-rdmans:test_rdmans_cnitool	cnitool execs the plugins (ENOEXEC)
test-rdmans:test_rdmans_installed_as_rdma	runs $BIN/rdma itself
test-rdmans:test_rdmans_status_and_admin	runs $BIN/rdma-ns's admin commands itself
test-rdmans:test_rdmans_device_from_mac	needs SIOCETHTOOL, which qemu-user does not forward
test-rdmans:test_rdmans_late_del_reused_inode_other_cookie	needs SO_NETNS_COOKIE, which qemu-user 7.2 does not answer (EINVAL): the plugins then compare device and inode only, as on a kernel before 5.14
test-runtime:test_about_without_command	runs $BIN/* itself; test-arm64:test_version_help_and_about compares them
test-runtime:test_large_config	runs $BIN/ib-sriov itself
test-apt-sources:	scripts only, no plugin
test-chain:	cnitool execs the plugins (ENOEXEC)
test-compat:	the previous release's amd64 build against this one: the compat tier, amd64 only
test-examples:test_examples_rails_nads	railTable: qemu-user does not translate FIB rule messages (EOPNOTSUPP)
test-heal:test_reconcile_	runs $BIN/ib-sriov reconcile itself, which execs rdma-ns and ib-host-local (ENOEXEC)
test-ibsriov-late:	runs $BIN/ib-sriov under strace itself (its flock held up by fault injection)
test-ibsriov-portwait:test_doctor_	runs $BIN/ib-sriov doctor itself (ENOEXEC)
test-ipam-delegates:test_ip_index_through_ib_sriov	its exec'ed case execs an aarch64 ib-host-local (ENOEXEC)
test-rails:test_rails_arp_flux_without_sysctls	railTable: qemu-user does not translate FIB rule messages (EOPNOTSUPP)
test-rails:test_rails_check_and_del_after_pod_changes	railTable: qemu-user does not translate FIB rule messages (EOPNOTSUPP)
test-rails:test_rails_dual_stack	railTable: qemu-user does not translate FIB rule messages (EOPNOTSUPP)
test-rails:test_rails_four_subnets	railTable: qemu-user does not translate FIB rule messages (EOPNOTSUPP)
test-rails:test_rails_keep_main	railTable: qemu-user does not translate FIB rule messages (EOPNOTSUPP)
test-rails:test_rails_like_sbr_tuning	railTable: qemu-user does not translate FIB rule messages (EOPNOTSUPP)
test-rails:test_rails_one_subnet	railTable: qemu-user does not translate FIB rule messages (EOPNOTSUPP)
test-rails:test_rails_rollback_at_every_step	railTable: qemu-user does not translate FIB rule messages (EOPNOTSUPP)
test-rails:test_rails_table_taken	railTable: qemu-user does not translate FIB rule messages (EOPNOTSUPP)
EOF
}
exclude=
while IFS=$'\t' read -r what why; do
	printf '  not run  %-44s %s\n' "$what" "$why"
	exclude+=" $what"
done < <(not_run)
log=$(mktemp)
NETNS_EXCLUDE=$exclude "$root/tests/netns/run.sh" 2>&1 | tee "$log" | grep -v '^netns: [0-9]* passed'
read -r p f < <(sed -En 's/^netns: ([0-9]+) passed, ([0-9]+) failed.*/\1 \2/p' "$log" | tail -1)
rm -f "$log"
[ -n "${p:-}" ] || { p=0 f=1; }
pass=$((pass + p)) fail=$((fail + f))
[ "$f" -eq 0 ] || failed+=("netns tier with the arm64 plugins")
finish
