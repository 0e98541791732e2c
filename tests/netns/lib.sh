# SPDX-License-Identifier: Apache-2.0
# The netns tier's harness. Every test function runs (via run.sh) in its own
# private mount and network namespace, so links, /run/netns, /var/lib/cni and
# the simulated /sys/bus/pci it builds vanish when it ends.

BIN=${IBCNI_BIN:?}
HELPER=${IBCNI_HELPER:?}
FIXTURES=${IBCNI_FIXTURES:?}
GO_CNI=${GO_CNI:-/usr/lib/cni}
T=                      # scratch directory of the running test
OUT= ERR= RC=           # stdout, stderr and exit status of the last cni_exec
fails=0

lib_init() {
	T=$(mktemp -d /tmp/ibcni-netns.XXXXXX)
	mount -t tmpfs ibcni-run /run
	mkdir -p /run/netns
	mkdir -p /var/lib/cni && mount -t tmpfs ibcni-state /var/lib/cni
	# No kubelet of the node's own answers for the tests' pods (test-podres.sh
	# starts one of its own there).
	mkdir -p /var/lib/kubelet && mount -t tmpfs ibcni-kubelet /var/lib/kubelet
	# The node's own config, private to the test: the default data
	# directory and the test's scratch directory (tests keep leases there).
	mkdir -p /etc/ibcni && mount -t tmpfs ibcni-etc /etc/ibcni
	node_conf '{"allowedDataDirs":["/var/lib/cni/networks","'"$T"'"]}'
	ip link set lo up
}

# node_conf JSON: /etc/ibcni/ibcni.conf as an admin writes it (root, 0644),
# its drop-ins removed; "" removes it (the defaults).
node_conf() {
	rm -rf /etc/ibcni/ibcni.conf.d
	if [ -z "$1" ]; then
		rm -f /etc/ibcni/ibcni.conf
		return
	fi
	printf '%s\n' "$1" >/etc/ibcni/ibcni.conf && chmod 0644 /etc/ibcni/ibcni.conf
}

# node_dropin NAME JSON: /etc/ibcni/ibcni.conf.d/NAME as the installer writes it.
node_dropin() {
	mkdir -p -m 0755 /etc/ibcni/ibcni.conf.d
	printf '%s\n' "$2" >"/etc/ibcni/ibcni.conf.d/$1" && chmod 0644 "/etc/ibcni/ibcni.conf.d/$1"
}

lib_finish() {
	rm -rf "$T"
	[ "$fails" -eq 0 ]
}

# --- assertions: each failure is printed and counted; the test goes on ---

fail() {
	echo "    FAIL: $*"
	fails=$((fails + 1))
}

assert_eq() { # want got what
	[ "$1" == "$2" ] || fail "$3: want '$1', got '$2'"
}

assert_match() { # regex text what
	[[ $2 =~ $1 ]] || fail "$3: '$2' does not match /$1/"
}

# assert_json FILTER WANT: jq FILTER applied to $OUT must print WANT.
assert_json() {
	local got
	got=$(jq -c "$1" <<<"$OUT" 2>&1) || got="(not JSON: $OUT)"
	[ "$got" == "$2" ] || fail "jq '$1': want $2, got $got"
}

# assert_link NETNS NAME FILTER WANT: `ip -j` state of a link.
assert_link() {
	local ns=$1 name=$2 got
	if [ "$ns" = host ]; then
		got=$(ip -j -d link show dev "$name" 2>/dev/null | jq -c ".[0] | $3")
	else
		got=$(ip -n "$ns" -j -d link show dev "$name" 2>/dev/null | jq -c ".[0] | $3")
	fi
	[ "$got" == "$4" ] || fail "link $name in $ns: $3: want $4, got ${got:-absent}"
}

assert_no_link() { # NETNS NAME
	if [ "$1" = host ]; then
		! ip link show dev "$2" >/dev/null 2>&1 || fail "link $2 still in host"
	else
		! ip -n "$1" link show dev "$2" >/dev/null 2>&1 || fail "link $2 still in $1"
	fi
}

assert_file() { # PATH CONTENT
	[ -f "$1" ] || { fail "file $1 missing"; return; }
	local got
	got=$(cat "$1")
	[ "$got" == "$2" ] || fail "file $1: want '$2', got '$got'"
}

assert_mode() { # PATH MODE
	local got
	got=$(stat -c %a "$1" 2>/dev/null)
	[ "$got" == "$2" ] || fail "mode of $1: want $2, got ${got:-missing}"
}

# --- running plugins ---

# cni_exec PLUGIN COMMAND CONTAINERID NETNS IFNAME CONFIG [CNI_ARGS]
# PLUGIN is a bin/ name or a path; NETNS a name under /run/netns, a path or "".
# IBCNI_WRAP, when set, prefixes the plugin (tests/valgrind.sh runs it so).
# The "(...)" of --version for a build of the tree at $1: the commit in a
# git checkout of that very tree (the Makefile's SOURCE), else what a
# release tarball says.
version_source_re() { # TREE
	local top
	top=$(git -c safe.directory="$1" -C "$1" rev-parse --show-toplevel 2>/dev/null)
	if [ "$top" = "$(cd "$1" && pwd)" ]; then
		echo 'git [0-9a-f]+(-dirty)?'
	else
		echo 'not built from a git checkout'
	fi
}

cni_exec() {
	local plugin=$1 cmd=$2 id=$3 ns=$4 ifname=$5 conf=$6 args=${7:-}
	[[ $plugin == */* ]] || plugin=$BIN/$plugin
	[[ -z $ns || $ns == /* ]] || ns=/run/netns/$ns
	OUT=$(env -i PATH="$PATH" CNI_COMMAND="$cmd" CNI_CONTAINERID="$id" CNI_NETNS="$ns" \
		CNI_IFNAME="$ifname" CNI_PATH="${CNI_PATH_OVERRIDE:-$BIN:$FIXTURES:$GO_CNI}" \
		CNI_ARGS="$args" IBCNI_DELEGATE_TIMEOUT_MS="${IBCNI_DELEGATE_TIMEOUT_MS:-}" \
		${IBCNI_DELEGATE_EXEC:+IBCNI_DELEGATE_EXEC=$IBCNI_DELEGATE_EXEC} \
		${IBCNI_WRAP:-} "$plugin" <<<"$conf" 2>"$T/stderr")
	RC=$?
	ERR=$(cat "$T/stderr")
}

# --- a simulated SR-IOV node (design section 6) ---
# sim_node PFS VFS [ib|eth]: tmpfs trees over /sys/bus/pci/{devices,drivers}.
# PF p is 0000:0(3+p):00.0 with netdev pf<p>; VF v of PF p is at routing ID
# 8 + v on the PF's bus (0000:0(3+p):01.<v> for v < 8) with netdev vf<p>_<v>,
# bound to mlx5_core, and for ib an RDMA device mlx5_<p>_<v> whose port 1
# pkey table holds 0xffff. Netdevs are veths; each peer (…p) stays in the
# host, down. The veths have no PCI parent: the kernel reports no VF table
# for the PFs (the unit tier's fake kernel serves one).
sim_node() {
	local pfs=$1 vfs=$2 kind=${3:-ib} p
	local D=/sys/bus/pci/devices R=/sys/bus/pci/drivers
	mount -t tmpfs sim-devices $D || return 1
	mount -t tmpfs sim-drivers $R || return 1
	mkdir -p $R/mlx5_core $R/vfio-pci
	: >$R/mlx5_core/bind; : >$R/mlx5_core/unbind
	: >$R/vfio-pci/bind; : >$R/vfio-pci/unbind
	for ((p = 0; p < pfs; p++)); do
		sim_pf $p "$vfs" "$kind" || return 1
	done
}

# sim_pf P VFS [ib|eth]: PF p of the simulated node with VFS VFs (up to
# 127, as a GPU node's; sim_node makes the trees first).
sim_pf() {
	local p=$1 vfs=$2 kind=${3:-ib} v pf vf dev
	local D=/sys/bus/pci/devices
	pf=$(printf '0000:%02x:00.0' $((3 + p)))
	mkdir -p $D/$pf/net/pf$p
	ip link add pf$p type veth peer name pf${p}p || return 1
	ln -s ../../drivers/mlx5_core $D/$pf/driver
	# VF v's routing ID is the PF's + First VF Offset + v * VF Stride.
	echo 8 >$D/$pf/sriov_offset
	echo 1 >$D/$pf/sriov_stride
	for ((v = 0; v < vfs; v++)); do
		vf=$(sim_vf_addr $p $v)
		dev=vf${p}_$v
		mkdir -p $D/$vf/net/$dev
		ip link add $dev type veth peer name ${dev}p || return 1
		ln -s ../$pf $D/$vf/physfn
		ln -s ../$vf $D/$pf/virtfn$v
		ln -s ../../drivers/mlx5_core $D/$vf/driver
		if [ "$kind" = ib ]; then
			mkdir -p $D/$vf/infiniband/mlx5_${p}_$v/ports/1/pkeys
			echo 0xffff >$D/$vf/infiniband/mlx5_${p}_$v/ports/1/pkeys/0
			echo 0x0000 >$D/$vf/infiniband/mlx5_${p}_$v/ports/1/pkeys/1
		fi
	done
}

sim_vf_addr() { # PF VF -> PCI address (routing ID 8 + VF on the PF's bus)
	printf '0000:%02x:%02x.%d' $((3 + $1)) $(((8 + $2) >> 3)) $(((8 + $2) & 7))
}

pod_ns() { # NAME: a pod network namespace with lo up
	ip netns add "$1" && ip -n "$1" link set lo up
}
