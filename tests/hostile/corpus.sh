# SPDX-License-Identifier: Apache-2.0
# The hostile-input corpus runner, sourced after tests/netns/lib.sh inside a
# private mount and network namespace (lib_init done). corpus_group FILE runs
# one group of tests/hostile/*.cases (the format is in tests/hostile/README):
# it sets up the group's node once, then for each case plants files, runs
# the plugin under a timeout with the case's environment and stdin, and
# checks the exit status, the CNI error code (and message), that stdout is
# one JSON value in valid UTF-8, and that nothing changed: links, addresses
# and routes of the host and of the pods, every file under /var/lib/cni,
# /run, the scratch and data directories (planted paths included),
# /var/log/ibcni and the simulated sysfs, and /etc (an overlay whose upper
# layer must stay empty). The machine is shared: the per-case path forks as
# little as bash allows.

CORPUS_TIMEOUT=${CORPUS_TIMEOUT:-4}
CORPUS_VERBOSE=${CORPUS_VERBOSE:-0}

# Where plants may go: the tier's private mounts and the scratch directory.
plant_allowed() { # PATH
	case $1 in
	"$T"/* | /var/lib/cni/* | /run/* | /var/log/ibcni/* | /sys/bus/pci/devices/* | /sys/bus/pci/drivers/*)
		[[ $1 != *..* ]] ;;
	*) return 1 ;;
	esac
}

# subst TEXT: REPLY is TEXT with the fixed placeholders and the group's
# "let" definitions replaced.
subst() {
	local s=$1 k
	s=${s//@T@/$T}
	s=${s//@DATA@/$T/data}
	s=${s//@POD@//run/netns/pod1}
	s=${s//@VF@/0000:03:01.1}
	s=${s//@PF@/0000:03:00.0}
	s=${s//@BIN@/$BIN}
	s=${s//@FIX@/$FIXTURES}
	for k in "${!CG_LET[@]}"; do
		s=${s//@$k@/${CG_LET[$k]}}
	done
	REPLY=$s
}

# One fingerprint of everything a plugin run could change: one ip per
# namespace (links with details, addresses, both families' routes in every
# table) and one find (type, mode, owner, size, inode and mtime of every
# file, so a rewrite shows even with the same bytes; a directory's entries
# and mode, not its times: a temporary file published or rolled back
# leaves none).
snap() {
	local ns dirs=(/var/lib/cni /run "$T" /var/log/ibcni "$CG_ETC_UPPER")
	local batch=$'addr show\nroute show table all\nroute show table all root ::/0\n'
	[ "$CG_NODE" != none ] && dirs+=(/sys/bus/pci/devices /sys/bus/pci/drivers)
	echo "== host"
	ip -d -j -batch - <<<"$batch" 2>&1
	for ns in $CG_PODS; do
		echo "== $ns"
		ip -n "$ns" -d -j -batch - <<<"$batch" 2>&1
	done
	echo "== files"
	find "${dirs[@]}" -path "$T/.r" -prune -o -type d -printf '%p d %m %U:%G\n' \
		-o -printf '%p %y %m %U:%G %s %i %T@ %l\n' 2>/dev/null
}

# snap_read: REPLY is a fresh snapshot (no fork beyond snap's own).
snap_read() {
	snap >"$R/snap"
	REPLY=
	IFS= read -r -d '' REPLY <"$R/snap"
}

# What differs between two snapshots, JSON arrays split into objects.
snap_diff() { # BEFORE AFTER
	diff <(snap_lines "$1") <(snap_lines "$2") | grep '^[<>]' | head -12 | cut -c1-300
}

snap_lines() {
	local l
	while IFS= read -r l; do
		if [[ $l == '['* ]]; then
			jq -c '.[]' <<<"$l" 2>/dev/null || echo "$l"
		else
			echo "$l"
		fi
	done <<<"$1"
}

# A snapshot that no longer moves (links settle, DAD ends).
snap_settled() {
	local a i
	snap_read
	for ((i = 0; i < 20; i++)); do
		a=$REPLY
		sleep 0.1
		snap_read
		[ "$a" == "$REPLY" ] && break
	done
}

# plant WORD: create what a case plants; what undoes it goes to CP_UNDO.
plant() {
	local kind=${1%%:*} spec=${1#*:} path arg= top
	path=${spec%%=*}
	[[ $spec == *=* ]] && arg=${spec#*=}
	plant_allowed "$path" || { PLANT_ERR="outside the sandbox: $path"; return 1; }
	if [ "$kind" = mode ]; then
		CP_UNDO+=("mode:$(stat -c %a "$path"):$path")
		chmod "$arg" "$path"
		return
	fi
	top=$path
	while [ ! -e "${top%/*}" ]; do top=${top%/*}; done
	if [ -e "$path" ] || [ -L "$path" ]; then
		# Planted over something: it goes aside and comes back after.
		mkdir -p "$R/aside"
		mv "$path" "$R/aside/${#CP_UNDO[@]}" || { PLANT_ERR="cannot move $path aside"; return 1; }
		CP_UNDO+=("back:$R/aside/${#CP_UNDO[@]}:$path")
	fi
	[ -e "$path" ] || [ -L "$path" ] || CP_UNDO+=("rm:$top")
	mkdir -p "${path%/*}"
	case $kind in
	fifo) mkfifo "$path" ;;
	zero) mknod "$path" c 1 5 ;; # /dev/zero's device number
	ln) ln -sfn "$arg" "$path" ;;
	hard) ln -f "$arg" "$path" ;;
	dir) mkdir -p "$path" && chmod "${arg:-700}" "$path" ;;
	file) printf '%b' "$arg" >"$path" ;;
	sparse) truncate -s "$arg" "$path" ;;
	big) yes 'nameserver 192.0.2.53' | head -c "$arg" >"$path" ;; # ARG bytes of resolv.conf
	*) PLANT_ERR="unknown plant $kind"; return 1 ;;
	esac || { PLANT_ERR="cannot plant $1"; return 1; }
}

unplant() {
	local u i
	for ((i = ${#CP_UNDO[@]} - 1; i >= 0; i--)); do
		u=${CP_UNDO[i]}
		case $u in
		rm:*) rm -rf "${u#rm:}" ;;
		back:*) u=${u#back:}; rm -rf "${u#*:}"; mv "${u%%:*}" "${u#*:}" ;;
		mode:*) u=${u#mode:}; chmod "${u%%:*}" "${u#*:}" ;;
		esac
	done
	CP_UNDO=()
}

# make_stdin SPEC FILE; the stdin column is one of
#   base | jq FILTER | text TEXT | bytes FORMAT | sh COMMAND | -
make_stdin() {
	local spec=$1 how body base
	how=${spec%% *}
	body=${spec#"$how"}
	body=${body# }
	subst "$body"; body=$REPLY
	subst "$CG_BASE"; base=$REPLY
	case $how in
	base) printf '%s' "$base" >"$2" ;;
	jq) jq -c "$body" <<<"$base" >"$2" ;;
	text) printf '%s' "$body" >"$2" ;;
	bytes) printf '%b' "$body" >"$2" ;;
	sh) (BASE=$base && eval "$body") >"$2" ;;
	-) : >"$2" ;;
	*) echo "unknown stdin form: $how" >&2; return 1 ;;
	esac
}

# rep STRING N: STRING N times (for sh stdin).
rep() {
	local s=$1 n=$2 out=$1
	while ((${#out} < ${#s} * n)); do out=$out$out; done
	printf '%s' "${out:0:${#s}*n}"
}

# exec_plugin ENV...: run the case's plugin from the scratch directory;
# sets RC, OUT and ERR.
exec_plugin() {
	local plugin=$CP_PLUGIN
	[[ $plugin == */* ]] || plugin=$BIN/$plugin
	env -i -C "$T" PATH=/usr/sbin:/usr/bin:/sbin:/bin "$@" \
		timeout -k 1 "$CORPUS_TIMEOUT" ${IBCNI_WRAP:-} "$plugin" <"$R/stdin" >"$R/out" 2>"$R/err"
	RC=$?
	OUT= ERR=
	IFS= read -r -d '' OUT <"$R/out"
	IFS= read -r -d '' -N 2000 ERR <"$R/err"
}

# build_env WORD...: the case's environment (CP_ENVV) and plugin
# (CP_PLUGIN): the group's env line, then the case's KEY=VALUE (printf %b
# escapes) and -KEY words. PLUGIN=name picks another binary.
build_env() {
	local w k
	declare -gA CP_ENV=()
	for w in "${CG_ENV[@]}" "$@"; do
		if [[ $w =~ ^-([A-Z_][A-Z0-9_]*)$ ]]; then
			unset "CP_ENV[${BASH_REMATCH[1]}]"
		elif [[ $w =~ ^([A-Z_][A-Z0-9_]*)=(.*)$ ]]; then
			k=${BASH_REMATCH[1]}
			subst "${BASH_REMATCH[2]}"
			printf -v "CP_ENV[$k]" '%b' "$REPLY"
		fi
	done
	CP_PLUGIN=${CP_ENV[PLUGIN]:-$CG_PLUGIN}
	unset "CP_ENV[PLUGIN]"
	CP_ENVV=()
	for k in "${!CP_ENV[@]}"; do CP_ENVV+=("$k=${CP_ENV[$k]}"); done
}

# judge EXPECT RC OUTFILE: CP_WHY says what is wrong with the run (empty
# when nothing), from the exit status and JV, the fields the group's one jq
# read from the case's stdout: values, code, msg type, cniVersion type,
# msg and details (JSON strings).
#   EXPECT: ok | ok gone=PATH | added | about | CODE | CODE MSG | CODE ~TEXT
judge() {
	local want=$1 rc=$2 out=$3 code msg v
	CP_WHY=
	if ((rc == 124 || rc == 137)); then
		CP_WHY="timed out after ${CORPUS_TIMEOUT}s"
		return
	fi
	((rc > 1)) && { CP_WHY="exit status $rc (crash?)"; return; }
	IFS=$'\t' read -ra v <<<"${JV[$out]:-0}"
	if [ -s "$out" ]; then
		[ "${v[0]}" = 1 ] || { CP_WHY="stdout is not one JSON value: $(head -c 200 "$out")"; return; }
		[ -n "${BADUTF8[$out]:-}" ] && { CP_WHY="stdout is not valid UTF-8"; return; }
	fi
	case $want in
	ok | ok\ * | added | about)
		if ((rc != 0)); then
			CP_WHY="want success, got exit $rc: [${v[1]:-},${v[4]:-},${v[5]:-}]"
		elif [ "$want" = about ] && [ -s "$out" ]; then
			CP_WHY="want no stdout, got $(head -c 200 "$out")"
		elif [ "$want" = added ] && [ ! -s "$out" ]; then
			CP_WHY="want a result, got nothing"
		elif [ "${v[1]:--}" != - ]; then
			CP_WHY="exit 0 with an error on stdout: $(head -c 200 "$out")"
		fi
		return ;;
	esac
	code=${want%% *} msg=
	[[ $want == *' '* ]] && msg=${want#* }
	if ((rc != 1)) || [ "${v[1]:-}" != "$code" ] || [ "${v[2]:-}" != string ] || [ "${v[3]:-}" != string ]; then
		CP_WHY="want error $code, got exit $rc: [${v[1]:-},${v[4]:-},${v[5]:-}]"
	elif [[ $msg == '~'* ]]; then
		[[ "${v[4]} ${v[5]}" == *"${msg:1}"* ]] || CP_WHY="want '${msg:1}' in msg/details, got ${v[4]} ${v[5]}"
	elif [ -n "$msg" ] && [ "${v[4]}" != "\"$msg\"" ]; then
		CP_WHY="want msg \"$msg\", got ${v[4]} (${v[5]})"
	fi
}

# read_outputs FILE...: JV[file] = "values code msgtype vertype msg details"
# for every case's stdout, with one jq for the whole group (one per file
# only when some file is not JSON at all).
read_outputs() {
	local f name rest filter='[input_filename, (if type == "object" then
		((.code // "-") | tostring), (.msg | type), (.cniVersion | type),
		((.msg // "") | tostring | @json), ((.details // "") | tostring | @json)
		else "-", "-", "-", "\"\"", "\"\"" end)] | join("\t")'
	declare -gA JV=()
	[ $# -eq 0 ] && return
	if ! jq -r "$filter" "$@" >"$R/jv" 2>/dev/null; then
		: >"$R/jv"
		for f; do jq -r "$filter" "$f" >>"$R/jv" 2>/dev/null || JV[$f]=bad; done
	fi
	while IFS=$'\t' read -r name rest; do
		if [ -n "${JV[$name]:-}" ]; then
			JV[$name]=2 # a second value in one stdout
		else
			JV[$name]=1$'\t'$rest
		fi
	done <"$R/jv"
}

# A case whose expect is "added": DEL of the same request must undo it
# (paths matching the group's volatile regex aside).
undo_added() {
	local e=() w after before
	for w in "${CP_ENVV[@]}"; do [[ $w == CNI_COMMAND=* ]] || e+=("$w"); done
	exec_plugin "${e[@]}" CNI_COMMAND=DEL
	((RC == 0)) || { CP_WHY="DEL after the ADD failed: exit $RC ${OUT:0:200}"; return; }
	after=$(snap | volatile_filter)
	before=$(volatile_filter <<<"$CP_BEFORE")
	[ "$before" == "$after" ] || CP_WHY="DEL did not restore: $(snap_diff "$before" "$after" | tr '\n' ' ')"
}

# drop_volatile SNAPSHOT: REPLY without the lines the group's volatile
# regex matches (caches a run may rebuild, such as ib-host-local's index).
drop_volatile() {
	local l out=
	while IFS= read -r l; do
		[[ $l =~ $CG_VOLATILE ]] || out+=$l$'\n'
	done <<<"$1"
	REPLY=$out
}

volatile_filter() {
	grep -Ev "${CG_VOLATILE:-^\$^}"
}

# run_case N EXPECT SETUP STDIN: runs case N; its stdout is kept as
# $R/o/N for judge, C_RC[N] is the exit status and C_WHY[N] what went
# wrong beyond the output (planting, state, the DEL after an ADD).
run_case() {
	local n=$1 expect=$2 setup=$3 stdin=$4 words=() w after before gone= why=
	CP_UNDO=() CP_WHY=
	[ "$setup" = - ] && setup=
	read -ra words <<<"$setup"
	build_env "${words[@]}"
	for w in "${words[@]}"; do
		[[ $w =~ ^(fifo|zero|ln|hard|dir|file|sparse|big|mode): ]] || continue
		subst "$w"
		plant "$REPLY" || { why="plant $w: $PLANT_ERR"; break; }
	done
	if [ -z "$why" ] && ! make_stdin "$stdin" "$R/stdin" 2>"$R/mkerr"; then
		IFS= read -r -d '' why <"$R/mkerr"
		why="stdin: $why"
	fi
	C_RC[n]=0
	if [ -z "$why" ]; then
		if [ ${#CP_UNDO[@]} -gt 0 ]; then
			snap_read
			CP_BEFORE=$REPLY
		else
			CP_BEFORE=$CG_BASELINE
		fi
		exec_plugin "${CP_ENVV[@]}"
		C_RC[n]=$RC C_ERR[n]=$ERR
		printf '%s' "$OUT" >"$R/o/$n"
		LC_ALL=C
		[[ $OUT == *[$'\x80'-$'\xff']* ]] && ! iconv -f UTF-8 -t UTF-8 <"$R/out" >/dev/null 2>&1 &&
			BADUTF8[$R/o/$n]=1
		unset LC_ALL
		if [[ $expect == ok\ gone=* ]]; then
			subst "${expect#ok gone=}"; gone=$REPLY
			{ [ -e "$gone" ] || [ -L "$gone" ]; } && why="$gone was not removed"
		fi
		if [ -z "$why" ] && [ "$expect" = added ] && ((RC == 0)); then
			undo_added
			why=$CP_WHY
		elif [ -z "$why" ]; then
			snap_read
			after=$REPLY
			before=$CP_BEFORE
			[ -n "$gone" ] && before=$(grep -Fv "$gone" <<<"$before")
			if [ -n "$CG_VOLATILE" ]; then
				drop_volatile "$before"; before=$REPLY
				drop_volatile "$after"; after=$REPLY
			fi
			[ "$before" == "$after" ] || why="state changed: $(snap_diff "$before" "$after" | tr '\n' ' ')"
		fi
	fi
	C_WHY[n]=$why
	# The next case starts from the state as it is now.
	if [ ${#CP_UNDO[@]} -gt 0 ] || [ -n "$why" ] || [ "$expect" = added ]; then
		unplant
		snap_settled
		CG_BASELINE=$REPLY
	fi
}

trim() { # TEXT -> REPLY without surrounding blanks
	local s=$1
	s=${s#"${s%%[![:space:]]*}"}
	REPLY=${s%"${s##*[![:space:]]}"}
}

# corpus_group FILE: run one group; prints its failures and one summary
# line, writes "cases passed failed known" to $T/.r/totals.
# Directives (before the first case):
#   node none|eth|ib   pods NAME...   plugin NAME   env KEY=VALUE...
#   base JSON   let NAME VALUE   setup SHELL   volatile REGEX
# and before a case: known REASON (that case is a known failure).
corpus_group() {
	local file=$1 line dir arg id expect setup started=0 known= n=0 p=0 f=0 k=0 x=0 i start
	CG_NAME=${file##*/} CG_NODE=none CG_PODS=pod1 CG_PLUGIN= CG_BASE='{}' CG_ENV=()
	CG_NAME=${CG_NAME%.cases} CG_VOLATILE= CG_SETUP=() CG_ETC_UPPER=$T/.r/etc/u
	declare -gA CG_LET=() BADUTF8=()
	C_ID=() C_EXP=() C_KNOWN=() C_RC=() C_WHY=() C_ERR=()
	R=$T/.r
	mkdir -p "$R/o" "$T/data"
	start=$EPOCHREALTIME
	while IFS= read -r line || [ -n "$line" ]; do
		[[ $line =~ ^[[:space:]]*(#|$) ]] && continue
		dir=${line%% *} arg=${line#* }
		[ "$dir" = "$line" ] && arg=
		trim "$arg"; arg=$REPLY
		if [[ $dir =~ ^(known|node|pods|plugin|env|base|let|setup|volatile)$ ]]; then
			((started)) && [ "$dir" != known ] &&
				{ echo "  $CG_NAME: directive after the first case: $line"; return 1; }
			case $dir in
			known) known=$arg ;;
			node) CG_NODE=$arg ;;
			pods) CG_PODS=$arg ;;
			plugin) CG_PLUGIN=$arg ;;
			env) read -ra CG_ENV <<<"$arg" ;;
			base) CG_BASE=$arg ;;
			let) subst "${arg#* }"; CG_LET[${arg%% *}]=$REPLY ;;
			setup) CG_SETUP+=("$arg") ;;
			volatile) CG_VOLATILE=$arg ;;
			esac
			continue
		fi
		if ((!started)); then
			started=1
			group_setup || { echo "  $CG_NAME: setup failed"; group_teardown; return 1; }
		fi
		trim "${line%% | *}"; id=$REPLY; line=${line#* | }
		trim "${line%% | *}"; expect=$REPLY; line=${line#* | }
		trim "${line%% | *}"; setup=$REPLY
		trim "${line#* | }"
		n=$((n + 1))
		C_ID[n]=$id C_EXP[n]=$expect C_KNOWN[n]=$known
		run_case "$n" "$expect" "$setup" "$REPLY"
		known=
	done <"$file"
	read_outputs $(find "$R/o" -type f -size +0)
	for ((i = 1; i <= n; i++)); do
		judge "${C_EXP[i]}" "${C_RC[i]}" "$R/o/$i"
		[[ -z $CP_WHY || ${C_WHY[i]} == plant* || ${C_WHY[i]} == stdin* ]] && CP_WHY=${C_WHY[i]}
		if [ -n "${C_KNOWN[i]}" ]; then
			k=$((k + 1))
			if [ -n "$CP_WHY" ]; then
				echo "    KNOWN ${C_ID[i]}: ${C_KNOWN[i]} -- got: $CP_WHY"
			else
				x=$((x + 1))
				echo "    FIXED ${C_ID[i]}: passes now; drop its known line (${C_KNOWN[i]})"
			fi
		elif [ -n "$CP_WHY" ]; then
			f=$((f + 1))
			echo "    FAIL  ${C_ID[i]}: $CP_WHY"
			[ "$CORPUS_VERBOSE" = 1 ] && echo "          stderr: ${C_ERR[i]:0:600}"
		else
			p=$((p + 1))
		fi
	done
	group_teardown
	# A known failure that passes now counts as passed (and said so above).
	p=$((p + x)) k=$((k - x))
	start=${start/./} now=${EPOCHREALTIME/./}
	printf '  %-22s %4d cases, %4d passed, %3d failed, %3d known %7d ms\n' \
		"$CG_NAME" "$n" "$p" "$f" "$k" $(((now - start) / 1000))
	echo "$n $p $f $k" >"$R/totals"
	[ "$f" -eq 0 ]
}

# Once per group: /etc behind an overlay, the node, the pods, the setup
# lines, then the baseline every case is compared with.
group_setup() {
	local s ns
	mkdir -p /var/log/ibcni && mount -t tmpfs -o mode=0700 ibcni-log /var/log/ibcni || return 1
	mkdir -p "$R/etc" && mount -t tmpfs corpus-etc "$R/etc" &&
		mkdir -p "$R/etc/u" "$R/etc/w" &&
		mount -t overlay corpus-etc -o "lowerdir=/etc,upperdir=$R/etc/u,workdir=$R/etc/w" /etc ||
		return 1
	# The overlay hides lib_init's /etc/ibcni: the node config again, in it.
	mkdir -p /etc/ibcni && node_conf '{"allowedDataDirs":["/var/lib/cni/networks","'"$T"'"]}' ||
		return 1
	case $CG_NODE in
	none) ;;
	eth | ib) sim_node 1 2 "$CG_NODE" || return 1 ;;
	*) echo "unknown node $CG_NODE"; return 1 ;;
	esac
	for ns in $CG_PODS; do pod_ns "$ns" || return 1; done
	for s in "${CG_SETUP[@]}"; do
		subst "$s"
		eval "$REPLY" || { echo "  setup line failed: $s"; return 1; }
	done
	snap_settled
	CG_BASELINE=$REPLY
}

group_teardown() {
	umount /etc 2>/dev/null
	umount "$R/etc" 2>/dev/null
}

# For setup lines: run the group's plugin once; fails unless it succeeds.
setup_exec() { # COMMAND CONTAINERID IFNAME [STDIN-SPEC] [ENV...]
	build_env CNI_COMMAND="$1" CNI_CONTAINERID="$2" CNI_IFNAME="$3" "${@:5}"
	make_stdin "${4:-base}" "$R/stdin" || return 1
	exec_plugin "${CP_ENVV[@]}"
	((RC == 0)) || { echo "  setup $1 $2 $3: exit $RC $OUT ${ERR:0:300}"; return 1; }
}
