# SPDX-License-Identifier: Apache-2.0
# The crash tier's harness, sourced after tests/netns/lib.sh and sriov-lib.sh
# (the same private namespaces, the same simulated SR-IOV node). A sweep runs
# one plugin command again and again under strace, each time with one
# injection at the k-th call of one syscall (a SIGKILL, or an errno), plays
# the runtime's retry, and checks that the node converged to the state it
# had before: links, files, locks.

FULL=${FULL:-0}
# Kill points by default: every call of the syscalls that leave something
# behind a dead process (files, links, pipes to a delegate, the delegate
# itself). A kill at any other call leaves the state the last of these left,
# which a kill at the next of these leaves too. FULL=1 kills at every call
# of every syscall the command makes, and in its IPAM delegate too.
KILL_SET=write,writev,pwrite64,sendmsg,renameat,renameat2,rename,linkat,link,unlinkat,unlink,mkdirat,mkdir,ftruncate,clone,clone3,fork,vfork,wait4
# Faults (one per run): every call of these syscalls the plugin makes (the
# dynamic loader's are not the plugin's, and are skipped); one errno per
# call, rotating, and every third openat by default; FULL=1 each errno at
# every call.
FAULT_SET=write,fsync,rename,renameat,renameat2,sendmsg,setns,openat
FAULT_ERRNOS=(EIO ENOSPC EINTR)
# Codes a failure may carry: the spec's and ours (README).
CODES_OK=' 1 2 3 4 5 6 7 11 50 51 100 101 102 103 104 110 111 112 '

NET=rdma-net
BASE_LINKS= BASE_FILES=
POINT=                  # the injection under test, for messages
SHOWN=0                 # failures printed in this sweep (the rest counted)
STATS=                  # per-sweep lines printed at the end of a test
declare -A CODES=()     # error code -> how many runs ended with it

# cfail MESSAGE: a failure at the current point; at most SHOW_MAX (15) printed a sweep.
cfail() {
	fails=$((fails + 1))
	SHOWN=$((SHOWN + 1))
	[ "$SHOWN" -le "${SHOW_MAX:-15}" ] && echo "    FAIL [$POINT]: $*"
	[ "$SHOWN" -eq "${SHOW_MAX:-15}" ] && echo "    (further failures of this sweep counted, not printed)"
	return 0
}

# --- running a plugin with one injection ---

# The IPAM delegate as ib-sriov finds it first on CNI_PATH: a wrapper that
# runs the real binary, under strace when $T/wrap/inject holds options. The
# options are taken by the first call only (a rollback's IPAM DEL runs
# clean), and the wrapper dies of SIGKILL as the binary did.
wrap_init() {
	mkdir -p "$T/wrap"
	cat >"$T/wrap/ib-host-local" <<EOF
#!/bin/bash
mv "$T/wrap/inject" "$T/wrap/inject.taken" 2>/dev/null || exec "$BIN/ib-host-local"
strace -qq \$(cat "$T/wrap/inject.taken") "$BIN/ib-host-local"
rc=\$?
[ \$rc -eq 137 ] && kill -KILL \$\$
exit \$rc
EOF
	chmod 0755 "$T/wrap/ib-host-local"
}

# run_plugin PLUGIN COMMAND ID NETNS IFNAME CONF: like cni_exec; under strace
# with $STRACE when set. CNI_PATH is the wrapper's directory first, so the
# IPAM is exec'ed; CRASH_CNI_PATH=$BIN serves it inside ib-sriov instead. Its stderr is a pipe read to the end, so this
# returns only when every process that inherited it (the orphaned delegate
# of a killed plugin) has exited: the retry never races the killed run.
run_plugin() {
	local plugin=$1 cmd=$2 id=$3 ns=$4 ifname=$5 conf=$6 pre=()
	[[ $plugin == */* ]] || plugin=$BIN/$plugin
	[[ -z $ns || $ns == /* ]] || ns=/run/netns/$ns
	[ -n "${STRACE:-}" ] && pre=(strace -qq $STRACE)
	{ env -i PATH="$PATH" CNI_COMMAND="$cmd" CNI_CONTAINERID="$id" CNI_NETNS="$ns" \
		CNI_IFNAME="$ifname" CNI_PATH="${CRASH_CNI_PATH:-$T/wrap:$BIN}" \
		IBCNI_LOCK_TIMEOUT_MS="${LOCK_MS:-}" \
		"${pre[@]}" "$plugin" <<<"$conf" 2>&1 >"$T/out" | cat >"$T/err"; }
	RC=${PIPESTATUS[0]}
	OUT=$(cat "$T/out")
	ERR=$(cat "$T/err")
}

# inject TARGET OPTIONS: strace options for the next run of the plugin
# (TARGET plugin) or of its IPAM delegate (TARGET delegate); the trace of the
# injected process goes to $T/trace.
inject() {
	rm -f "$T/trace" "$T/wrap/inject" "$T/wrap/inject.taken"
	STRACE=
	if [ "$1" = delegate ]; then
		echo "-o $T/trace $2" >"$T/wrap/inject"
	else
		STRACE="-o $T/trace $2"
	fi
}

# A failed run must print one clean CNI error: JSON with a known code, a
# message, the request's version; it is counted by code.
clean_error() { # WHAT
	local code
	code=$(jq -r 'if (.code|type)=="number" and (.msg|type)=="string" and (.msg|length)>0
		and (.cniVersion|type)=="string" then .code else "bad" end' <<<"$OUT" 2>/dev/null)
	if [[ $CODES_OK != *" $code "* ]]; then
		cfail "$1: rc $RC, not a clean CNI error: ${OUT:-(no stdout)} ${ERR:0:300}"
		return 1
	fi
	CODES[$code]=$((${CODES[$code]:-0} + 1))
	return 0
}

# --- the node's state ---

# Name, flags, MTU, state and MAC of every host link (no jq: this runs
# several times a point).
links_state() {
	ip -o link show | awk '{
		mac = ""; state = ""
		for (i = 1; i <= NF; i++) {
			if ($i == "mtu") mtu = $(i + 1)
			if ($i == "state") state = $(i + 1)
			if ($i ~ /^link\//) mac = $(i + 1)
		}
		print $2, $3, mtu, state, mac
	}' | sort
}

# Names, types and modes under our state directories, the device-info
# directory and the lease directory (contents change: round-robin pointers). ib-host-local's owner
# index is a cache checked against the lease files on every lookup: a
# stale entry or a missing token costs a rebuild, so its files are left out
# (its temp files are not: see converged).
files_state() {
	find /var/lib/cni "$T/leases" /run/ibcni /run/k8s.cni.cncf.io -mindepth 1 -printf '%p %y %m\n' 2>/dev/null |
		grep -Ev '/\.ib-host-local/[^/]+/(token|owners/[^/]+) ' | sort
}

baseline() {
	BASE_LINKS=$(links_state)
	BASE_FILES=$(files_state)
}

# converged [KEEP-REGEX]: the node is as the baseline says; files matching
# KEEP-REGEX (another attachment's) are left out of the comparison.
converged() {
	local keep=${1:-^$} now f
	now=$(links_state)
	[ "$now" == "$BASE_LINKS" ] ||
		cfail "links differ: $(diff <(echo "$BASE_LINKS") <(echo "$now") | grep '^[<>]' | tr '\n' ' ')"
	now=$(files_state | grep -Ev "$keep")
	[ "$now" == "$(grep -Ev "$keep" <<<"$BASE_FILES")" ] ||
		cfail "files differ: $(diff <(grep -Ev "$keep" <<<"$BASE_FILES") <(echo "$now") | grep '^[<>]' | tr '\n' ' ')"
	now=$(find /var/lib/cni "$T/leases" /run/k8s.cni.cncf.io \( -name '*.tmp' -o -name '.*.??????' -o -name tmp \) 2>/dev/null)
	[ -z "$now" ] || cfail "temp files left: $now"
	for f in /run/ibcni/*/*.lock "$T"/leases/*/lock /var/lib/cni/networks/*/lock; do
		[ -e "$f" ] || continue
		flock -n -E 99 "$f" true || cfail "lock $f is held"
	done
}

# --- sweeps ---

# A scenario SC provides the functions
#   SC_prep     before each run: what the command finds (e.g. an attachment)
#   SC_run      the command itself (run_plugin ...), once
#   SC_after    after a run the plugin completed (RC 0 or an error): the
#               result's checks and what the runtime does next
#   SC_retry    after a killed run: the runtime's retry
#   SC_check    the convergence check (converged with its exceptions)

# points SC MODE TARGET: "syscall count" for each distinct syscall one clean
# run of the target makes, the loader's calls listed as "syscall -first".
points() {
	local sc=$1 set=$KILL_SET
	[ "$2" = fault ] && set=$FAULT_SET
	[ "$2" = kill ] && [ "$FULL" = 1 ] && set=all
	"${sc}_prep"
	inject "$3" "-e trace=$set"
	"${sc}_run"
	STRACE=
	"${sc}_after" >/dev/null
	# Lines: name(args) = ret. The loader opens ld.so.cache and libraries
	# before main; a fault there is not the plugin's to report.
	awk -F'(' '/^[a-z_0-9]+\(/ {
		n[$1]++
		if ($1 == "openat" && ($0 ~ /ld\.so\.cache/ || $0 ~ /\.so[."]/)) skip[$1] = n[$1]
	} END { for (s in n) print s, n[s], (s in skip) ? skip[s] : 0 }' "$T/trace" 2>/dev/null | sort
}

# sweep SC MODE TARGET LABEL: every point of the target (the plugin, or its
# delegate), each until a run goes past the syscall's last call.
sweep() {
	local sc=$1 mode=$2 tgt=$3 label=$4 n=0 bad0=$fails bad s count skip k e errnos hit
	local conv=0 fails_before
	SHOWN=0
	while read -r s count skip; do
		for ((k = skip + 1; ; k++)); do
			if [ "$mode" = kill ]; then
				errnos=(KILL)
			elif [ "$FULL" = 1 ]; then
				errnos=("${FAULT_ERRNOS[@]}")
			elif [ "$s" = openat ] && [ $((k % 3)) != 1 ] && [ "$k" -le "$count" ]; then
				continue
			else
				errnos=("${FAULT_ERRNOS[n % 3]}")
			fi
			hit=0
			for e in "${errnos[@]}"; do
				POINT="$label $s#$k $e"
				"${sc}_prep"
				if [ "$e" = KILL ]; then
					inject "$tgt" "-e trace=$s -e inject=$s:signal=KILL:when=$k"
				else
					inject "$tgt" "-e trace=$s -e inject=$s:error=$e:when=$k"
				fi
				"${sc}_run"
				STRACE=
				if ! grep -q -e 'killed by SIGKILL' -e INJECTED "$T/trace" 2>/dev/null; then
					"${sc}_after"	# past the last call: a clean run
					"${sc}_check"
					continue
				fi
				hit=1
				n=$((n + 1))
				fails_before=$fails
				if [ "$e" = KILL ]; then
					"${sc}_retry"
				elif [ "$RC" = 0 ]; then
					"${sc}_after"
				else
					# A fault on stdout itself leaves no way to
					# print an error: the runtime sees none.
					{ [ "$tgt" = plugin ] && grep INJECTED "$T/trace" | grep -q '^write(1,'; } ||
						clean_error "$label"
					"${sc}_retry"
				fi
				"${sc}_check"
				[ "$fails" -eq "$fails_before" ] && conv=$((conv + 1))
			done
			[ "$hit" = 1 ] || break
			[ "$k" -gt 5000 ] && { cfail "$s: no end of calls"; break; }
		done
	done < <(points "$sc" "$mode" "$tgt")
	if [ "$mode" = kill ]; then
		STATS+="$(printf '%-34s %4d kill points, %4d converged' "$label" "$n" "$conv")"$'\n'
	else
		STATS+="$(printf '%-34s %4d faults,      %4d converged' "$label" "$n" "$conv")"$'\n'
	fi
	[ "$n" -gt 0 ] || cfail "no point was exercised"
}

print_stats() {
	local c line=
	printf '%s' "$STATS" | sed 's/^/    /'
	for c in $(printf '%s\n' "${!CODES[@]}" | sort -n); do
		line+=" $c:${CODES[$c]}"
	done
	[ -n "$line" ] && echo "    error codes (code:runs):$line"
	return 0
}

# The same sweep of the IPAM delegate inside the plugin's command: FULL=1
# only (the delegate's own crash consistency is swept directly, and its
# death as seen by the plugin by the points around its wait4).
sweep_delegate() { # SC MODE LABEL
	if [ "$FULL" = 1 ]; then
		sweep "$1" "$2" delegate "$3"
	else
		STATS+="$(printf '%-34s (FULL=1)' "$3")"$'\n'
	fi
}
