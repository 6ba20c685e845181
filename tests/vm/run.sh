#!/usr/bin/env bash
# The QEMU bench runner: boot Debian's cloud kernel once, run the selected
# scenarios inside, bring their output directories back, judge them.
#
#   tests/vm/run.sh [options] [SCENARIO...]
#     SCENARIO     a name in tests/vm/scenarios/ (NAME.sh + NAME.check), or
#                  a path to a .sh file (then NAME.check next to it is used
#                  if present). Default: $BG_SCENARIOS, else all scenarios.
#     --label L    file prefix in $OUTPUT/vm (default: bench)
#     --no-check   fetch results only, do not run the .check scripts
#
# Environment:
#   OUTPUT           build directory (default: build)
#   BG_BPFGRAPH      the tracer binary to put in the guest (default:
#                    $OUTPUT/bpfgraph); BG_WL likewise ($OUTPUT/vm/wl)
#   BG_VM_TIMEOUT    overall limit in seconds for the whole run (900)
#   BG_VM_STALL      seconds without a guest heartbeat (ttyS2, every 2 s)
#                    before the guest is declared stuck (60)
#   BG_VM_KERNEL     the Debian kernel series to boot: 6.1 (default), 6.12,
#                    7.3 (tools/vm-kernel.sh fetches it once); results and
#                    logs of a series other than 6.1 go under $OUTPUT/vm/SERIES
#   BG_VM_ACCEL      tcg (default: single-threaded TCG), tcg-multi (faster,
#                    but livelocks on live text patching) or kvm (only
#                    where KVM really works)
#   BG_VM_MEM        guest memory in MiB (2048); BG_VM_SMP cpus (2; always
#                    1 on the instruction clock)
#   BG_VM_APPEND     more kernel command line (e.g. tsc=reliable)
#   BG_VM_ICOUNT     QEMU's -icount for scenarios on the instruction clock
#                    (shift=0,sleep=off: 1 ns per guest instruction, idle
#                    time skipped; off: they run on the real-time clock
#                    with the others)
#   BG_VM_CLOCK      real or icount: every scenario on that clock, whatever
#                    its bench-clock says (tests/bench/run.sh on icount:
#                    costs in instructions, not in emulation time)
#   BG_VM_CPU        QEMU's -cpu under TCG (max)
#   BG_VM_MODULES    modules to load, relative to kernel/ (fs/binfmt_misc.ko
#                    fs/romfs/romfs.ko fs/nls/nls_utf8.ko)
#   BG_VM_TOOLS      host programs to copy into the guest with their
#                    libraries, for a diagnosis (e.g. "perf strace"; none),
#                    each at its host path; not under /tmp, which the
#                    guest mounts a tmpfs over (an older bpfgraph for a
#                    side-by-side run: /opt/oldbin/bpfgraph, say)
#   BG_VM_QUIET=1    do not echo guest progress lines
#
#   BG_VM_JOBS       guests at once (default: the host's CPUs, nproc): with
#                    2 or more, the instruction clock's boot runs beside
#                    the host clock's (its logs: L.icount.*, its lines
#                    "vm icount:"); with 1, after it
#
# One boot runs all scenarios of one clock in order. A scenario that kills
# the guest (panic, oops, or a lockup: no heartbeat for BG_VM_STALL
# seconds, then an NMI for backtraces) fails alone: the rest get a fresh
# boot.
# Results: $OUTPUT/vm/out/NAME/ per scenario, $OUTPUT/vm/L.console.log
# (kernel console), L.channel.log (raw results channel), L.heartbeat.log,
# L.bootN.* for the boots after the first (L.icount.* and L.icount.bootN.*
# for the instruction clock's when they run side by side), L.results (one
# "PASS NAME" / "FAIL NAME" line per scenario). Exit 0 if all passed, 1 if a scenario
# failed, 3 if a guest did not finish.
# Scenario files may carry directives in comments:
#   # bench-timeout: SECONDS   (default 180)
#   # bench-tracefs: off        (tracefs and debugfs unmounted during it)
#   # bench-clock: icount       (booted apart, on one CPU, with QEMU's
#                                instruction counter as the guest's clock)
#   # bench-default: off        (run only when named, not by default nor
#                                by make check)
set -euo pipefail

orig_pwd=$PWD
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
cd "$root"
OUTPUT=${OUTPUT:-build}
# 6.1 keeps the bench's original place; other series get their own.
case ${BG_VM_KERNEL:-6.1} in
6.1) vmdir=$OUTPUT/vm ;;
*) vmdir=$OUTPUT/vm/$BG_VM_KERNEL ;;
esac
label=bench
do_check=1
scenarios=()

log() { printf 'vm%s: %s\n' "${log_tag:-}" "$*" >&2; }
die() { printf 'vm: ERROR: %s\n' "$*" >&2; exit 3; }

parse_args() {
	while [ $# -gt 0 ]; do
		case "$1" in
		--label) label=$2; shift 2 ;;
		--no-check) do_check=0; shift ;;
		-h | --help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
		-*) die "unknown option $1" ;;
		*) scenarios+=("$1"); shift ;;
		esac
	done
	if [ ${#scenarios[@]} -eq 0 ] && [ -n "${BG_SCENARIOS:-}" ]; then
		read -r -a scenarios <<<"$BG_SCENARIOS"
	fi
	# Paths are relative to where we were called from, not to the repo.
	local i
	for i in "${!scenarios[@]}"; do
		case "${scenarios[i]}" in
		/*) ;;
		*/*) scenarios[i]=$orig_pwd/${scenarios[i]} ;;
		esac
	done
	if [ ${#scenarios[@]} -eq 0 ]; then
		local f
		for f in "$here"/scenarios/*.sh; do
			[ -e "$f" ] && [ "$(directive "$f" default on)" = on ] &&
				scenarios+=("$(basename "$f" .sh)")
		done
	fi
	[ ${#scenarios[@]} -gt 0 ] || die "no scenarios"
}

# NAME or path -> path of the guest script.
scenario_script() {
	case "$1" in
	*/*) echo "$1" ;;
	*) echo "$here/scenarios/$1.sh" ;;
	esac
}
scenario_name() { basename "$1" .sh; }

directive() { # FILE KEY DEFAULT
	local v
	v=$(sed -n "s/^# *bench-$2: *\([^ ]*\).*/\1/p" "$1" | head -n1)
	echo "${v:-$3}"
}

# ---- initramfs --------------------------------------------------------

# Copy a dynamically linked program and the libraries ldd names.
copy_dynamic() {
	local bin=$1 dest=$2 lib
	install -D -m 0755 "$bin" "$dest$bin"
	for lib in $(ldd "$bin" | grep -o '/[^ ]*'); do
		install -D -m 0755 "$(readlink -f "$lib")" "$dest$lib"
	done
}

add_busybox() {
	local ir=$1 bb app
	bb=$(command -v busybox) || die "busybox not found (apt-get install busybox-static)"
	# The guest has no libc: a dynamic busybox would not even start.
	! ldd "$bb" >/dev/null 2>&1 || die "$bb is not static (install busybox-static)"
	install -D -m 0755 "$bb" "$ir/bin/busybox"
	for app in $("$bb" --list-full); do
		[ -e "$ir/$app" ] || { mkdir -p "$ir/$(dirname "$app")" && ln -s /bin/busybox "$ir/$app"; }
	done
}

add_modules() {
	local ir=$1 m src dst
	for m in ${BG_VM_MODULES-fs/binfmt_misc.ko fs/romfs/romfs.ko fs/nls/nls_utf8.ko}; do
		dst=$ir/lib/modules/$kver/bench/$(basename "$m")
		mkdir -p "$(dirname "$dst")"
		for src in "$modules/kernel/$m" "$modules/kernel/$m.xz" "$modules/kernel/$m.zst"; do
			[ -e "$src" ] || continue
			case "$src" in
			*.xz) xz -dc "$src" >"$dst" ;;
			*.zst) zstd -dcq "$src" >"$dst" ;;
			*) cp "$src" "$dst" ;;
			esac
			continue 2
		done
		die "module $m not found under $modules/kernel"
	done
}

# The scenarios of one boot (arguments) into the staging tree.
add_scenarios() {
	local ir=$1 s path name
	shift
	rm -rf "$ir/bench"
	mkdir -p "$ir/bench/scenarios" "$ir/bench/lib"
	cp "$here/lib/guest.sh" "$here/lib/fidelity.sh" "$ir/bench/lib/"
	: >"$ir/bench/list"
	for s in "$@"; do
		path=$(scenario_script "$s")
		[ -f "$path" ] || die "no scenario script $path"
		name=$(scenario_name "$path")
		# BENCH_SCENARIO for progress lines; the rest is the script.
		{ echo "BENCH_SCENARIO=$name"; cat "$path"; } >"$ir/bench/scenarios/$name.sh"
		echo "$name $(directive "$path" timeout 180) $(directive "$path" tracefs on)" \
			>>"$ir/bench/list"
	done
}

# Results of an earlier run must never be judged as this run's.
clear_old_results() {
	local s
	for s in "${scenarios[@]}"; do
		rm -rf "${vmdir:?}/out/$(scenario_name "$(scenario_script "$s")")"
	done
}

# Everything but the scenarios: busybox, the binaries, bpftool, trace-cmd,
# modules.
build_base() {
	local bpfgraph=${BG_BPFGRAPH:-$OUTPUT/bpfgraph} wl=${BG_WL:-$OUTPUT/vm/wl}
	rm -rf "$ir"
	mkdir -p "$ir"/{bin,sbin,usr/bin,usr/sbin,proc,sys,dev,tmp,root,etc,out}
	mkdir -p "$ir"/sys/kernel/{tracing,debug} "$ir"/sys/fs/bpf
	add_busybox "$ir"
	[ -x "$wl" ] || die "$wl missing (make $OUTPUT/vm/wl)"
	install -m 0755 "$wl" "$ir/bin/wl"
	# The symbol readers' comparison (scenario ksyms_kcore), where built.
	[ ! -x "$OUTPUT/vm/ksymcmp" ] || install -m 0755 "$OUTPUT/vm/ksymcmp" "$ir/bin/ksymcmp"
	if [ -x "$bpfgraph" ]; then
		install -m 0755 "$bpfgraph" "$ir/bin/bpfgraph"
	else
		log "warning: $bpfgraph missing: scenarios will find no /bin/bpfgraph"
	fi
	copy_dynamic "$(command -v bpftool || echo /usr/sbin/bpftool)" "$ir"
	# Debian's trace-cmd (tools/deps.sh build), for the scenarios that
	# read its data files: with its libraries about 1.5 MB.
	if command -v trace-cmd >/dev/null; then
		copy_dynamic "$(command -v trace-cmd)" "$ir"
	else
		log "warning: no trace-cmd on the host: scenarios will find no /usr/bin/trace-cmd"
	fi
	local t path
	for t in ${BG_VM_TOOLS:-}; do
		path=$(command -v "$t") || die "BG_VM_TOOLS: no $t on the host"
		case $path in
		/tmp/*) die "BG_VM_TOOLS: $t is under /tmp, which the guest's tmpfs hides: copy it elsewhere" ;;
		esac
		copy_dynamic "$path" "$ir"
	done
	add_modules "$ir"
	install -m 0755 "$here/lib/init.sh" "$ir/init"
}

pack_initramfs() { # SCENARIO...
	add_scenarios "$ir" "$@"
	# Uncompressed: the guest unpacks it faster than it would gunzip it.
	(cd "$ir" && find . -print0 | LC_ALL=C sort -z |
		cpio --quiet -o -H newc -0 -R 0:0) >"$vmdir/$label.initramfs.cpio"
}

# ---- boot -------------------------------------------------------------

# TCG by default: /dev/kvm can exist and open yet not run a guest (nested
# setups: seen failing on MSR writes or hanging silently), and the bench's
# cost figures are TCG figures. BG_VM_ACCEL=kvm is for a machine where KVM
# is known to work.
# Single-threaded TCG: with QEMU 7.2's multi-threaded TCG (the default for
# x86 guests) live text patching under concurrent execution livelocks the
# guest: one CPU loops on the int3 of a half-patched function entry while
# the patching CPU waits for its IPI in text_poke_bp_batch(). Seen with the
# kernel's own function_graph (first enable, under an open() loop) and with
# fentry attach; 8 of 8 stress rounds passed with thread=single.
accel_args() {
	case "${BG_VM_ACCEL:-tcg}" in
	kvm) echo "-accel kvm -cpu host" ;;
	# max = every feature TCG emulates.
	tcg) echo "-accel tcg,thread=single -cpu ${BG_VM_CPU:-max}${BG_VM_ICOUNT:+ -icount $BG_VM_ICOUNT}" ;;
	tcg-multi) echo "-accel tcg,thread=multi -cpu max" ;;
	*) die "BG_VM_ACCEL must be tcg, tcg-multi or kvm" ;;
	esac
}

# The instruction clock (scenarios with "# bench-clock: icount"). Under
# plain TCG the guest's clock is the host's, so the emulator's own costs
# become guest time, and they are not the hardware's: code that runs in
# many distinct copies (one trampoline and two programs per traced
# function) costs TCG far more than its instructions (block lookups), and
# a traced tcp_sendmsg call took ~5x function_graph's. Kernel decisions
# keyed on time then differ between two tracers of the same workload
# (softirq work handed to ksoftirqd past 2 ms, a time slice running out)
# and comparisons measured the emulator. With -icount shift=0 guest time
# is 1 ns per instruction executed, the same every run: the same call
# takes 614 us traced by bpfgraph, 476 us by function_graph. QEMU 7.2's
# icount hangs bringing up a second x86 CPU, so these boots have one.
# sleep=off: while the guest idles (a sleep, an RCU grace period's wait)
# its clock jumps to the next timer instead of keeping pace with the
# host's; the guest sees the same times. 6.1's fidelity suite, whose
# waits for trampolines to be released are mostly idle, took 1469 s of
# host time instead of 1769.
start_qemu() {
	local accel mon=${console%.console.log}.monitor
	accel=$(accel_args)
	log "booting $kver ($accel, ${BG_VM_SMP:-2} cpus) for: $*"
	: >"$console"
	: >"$channel"
	: >"$heartbeat"
	# The monitor, through two FIFOs, is how a stuck guest gets its NMI.
	rm -f "$mon.in" "$mon.out"
	mkfifo "$mon.in" "$mon.out"
	# Both ends held open here: qemu never blocks on them, and its replies
	# (a few lines) fit in the pipe buffer unread.
	# shellcheck disable=SC2034 # mon_out is only held open
	exec {mon_in}<>"$mon.in" {mon_out}<>"$mon.out"
	# ttyS0 console, ttyS1 results channel, ttyS2 heartbeat.
	# shellcheck disable=SC2086 # accel is a word list
	qemu-system-x86_64 $accel -nodefaults -display none -no-reboot \
		-m "${BG_VM_MEM:-2048}" -smp "${BG_VM_SMP:-2}" \
		-kernel "$vmlinuz" -initrd "$vmdir/$label.initramfs.cpio" \
		-append "console=ttyS0 quiet panic=-1 oops=panic ${BG_VM_APPEND:-}" \
		-serial "file:$console" -serial "file:$channel" -serial "file:$heartbeat" \
		-monitor "pipe:$mon" \
		</dev/null >"$vmdir/$label.qemu.log" 2>&1 &
	qemu_pid=$!
	t_start=$(date +%s.%N)
}

since_start() { echo "$(date +%s.%N) $t_start" | awk '{ printf "%.1f", $1 - $2 }'; }

# Control lines seen so far on the channel (data lines are base64, never
# starting with "BG-"), complete ones only: read while the guest was
# writing it, "BG-DONE-SCENARIO oracle_openat" without its rc once ended
# a CI run here (set -u). The file only grows: its first n bytes, and
# their last line only if the n-th byte ends it.
channel_lines() {
	local n last
	n=$(stat -c %s "$channel" 2>/dev/null || echo 0)
	[ "$n" -gt 0 ] || return 0
	last=$(dd if="$channel" bs=1 skip=$((n - 1)) count=1 2>/dev/null | od -An -tx1 | tr -d ' \n')
	if [ "$last" = 0a ]; then
		head -c "$n" "$channel"
	else
		head -c "$n" "$channel" | sed '$d'
	fi | tr -d '\r' | grep '^BG-' || true
}

# Echo new progress lines; remember the scenario that is running.
follow_channel() {
	local line lines n=0 i
	mapfile -t lines < <(channel_lines)
	for ((i = seen; i < ${#lines[@]}; i++)); do
		line=${lines[i]}
		# shellcheck disable=SC2086 # split into fields on purpose
		set -- $line
		case "$1" in
		BG-INIT) boot_secs=$(since_start); say "guest up after ${boot_secs}s (guest uptime $2 s), kernel $3" ;;
		BG-START) current=$2 last_started=$2; say "[$(since_start)s] $2: started" ;;
		BG-DONE-SCENARIO) say "[$(since_start)s] $2: finished, rc $3"; current= ;;
		BG-TIMEOUT) say "[$(since_start)s] $2: KILLED after its ${3}s limit" ;;
		BG-PROGRESS) say "[$(since_start)s] ${line#BG-PROGRESS }" ;;
		BG-ALLDONE) alldone=1 ;;
		esac
		n=$((n + 1))
	done
	seen=$((seen + n))
}
say() { [ "${BG_VM_QUIET:-0}" = 1 ] || log "$*"; }

trouble_re='soft lockup|hard LOCKUP|blocked for more than|Oops|BUG:|Kernel panic|general protection|detected stalls|NMI'

# Kernel trouble on the console, shown as it happens.
watch_console() {
	local lines n i
	mapfile -t lines < <(tr -d '\r' <"$console" | grep -E "$trouble_re" || true)
	n=${#lines[@]}
	for ((i = trouble_seen; i < n && i < 20; i++)); do
		log "kernel: ${lines[i]}"
	done
	trouble_seen=$n
}

kill_qemu() {
	kill -KILL "$qemu_pid" 2>/dev/null || true
	wait "$qemu_pid" 2>/dev/null || true
	follow_channel
}

# A guest whose heartbeat stopped has a stuck kernel (user space gets no
# CPU). Before killing it, an NMI makes it panic (unknown_nmi_panic) and
# print every CPU's backtrace (panic_print) on the console log.
nmi_and_kill() {
	log "guest heartbeat stopped: sending an NMI for backtraces"
	echo nmi >&"$mon_in" || true
	local i
	for ((i = 0; i < 100; i++)); do
		kill -0 "$qemu_pid" 2>/dev/null || break
		sleep 0.2
	done
	kill_qemu
	watch_console
}

wait_qemu() {
	local limit=${BG_VM_TIMEOUT:-900} stall=${BG_VM_STALL:-60} deadline now hb hb_size=-1 allow
	deadline=$(($(date +%s) + limit))
	seen=0 current='' alldone=0 boot_secs='' last_started='' trouble_seen=0
	local hb_at
	hb_at=$(date +%s)
	while kill -0 "$qemu_pid" 2>/dev/null; do
		follow_channel
		watch_console
		now=$(date +%s)
		hb=$(stat -c %s "$heartbeat")
		if [ "$hb" != "$hb_size" ]; then
			hb_size=$hb
			hb_at=$now
		fi
		# Before /init starts the heartbeat, the boot gets twice as long.
		allow=$stall
		[ -n "$boot_secs" ] || allow=$((2 * stall))
		if [ $((now - hb_at)) -ge "$allow" ]; then
			nmi_and_kill
			guest_failure "STUCK: no heartbeat from the guest for ${stall}s (BG_VM_STALL): its kernel is locked up"
			return 1
		fi
		if [ "$now" -ge "$deadline" ]; then
			nmi_and_kill
			guest_failure "TIMEOUT: the guest did not finish within BG_VM_TIMEOUT=${limit}s"
			return 1
		fi
		sleep 0.2
	done
	wait "$qemu_pid" 2>/dev/null || true
	follow_channel
	watch_console
	run_secs=$(since_start)
	if [ "$alldone" != 1 ]; then
		guest_failure "the guest stopped before finishing (panic, oops or poweroff)"
		return 1
	fi
	log "guest finished all scenarios in ${run_secs}s (boot ${boot_secs:-?}s)"
}

# Loud, with everything needed to start debugging.
guest_failure() {
	# One line for judge(): why the scenarios of this boot got no results.
	echo "$1${current:+ (running: $current)}" >>"$vmdir/$label.trouble"
	{
		echo "vm${log_tag:-}: ################################################################"
		echo "vm${log_tag:-}: $1"
		if [ -n "$current" ]; then
			echo "vm${log_tag:-}: scenario running at that moment: $current"
		elif [ -z "$boot_secs" ]; then
			echo "vm${log_tag:-}: the guest never reached /init"
		else
			echo "vm${log_tag:-}: between scenarios (last started: ${last_started:-none})"
		fi
		if [ "${trouble_seen:-0}" -gt 0 ]; then
			echo "vm${log_tag:-}: console log: $console (from the first kernel trouble)"
			echo "vm${log_tag:-}: ################################################################"
			tr -d '\r' <"$console" | awk -v re="$trouble_re" '$0 ~ re { p = 1 } p' |
				head -n 150 | sed 's/^/vm| /'
		else
			echo "vm${log_tag:-}: console log: $console (last lines below)"
			echo "vm${log_tag:-}: ################################################################"
			tr -d '\r' <"$console" | tail -n 30 | sed 's/^/vm| /'
		fi
	} >&2
}

# ---- results ----------------------------------------------------------

# Decode every BG-BEGIN..BG-END block into $vmdir/out/NAME.
unpack_results() {
	local name sum got
	rm -rf "$vmdir/$label.out.tmp"
	mkdir -p "$vmdir/$label.out.tmp" "$vmdir/out"
	tr -d '\r' <"$channel" | awk -v dir="$vmdir/$label.out.tmp" '
		/^BG-BEGIN / { name = $2; file = dir "/" name ".b64"; printf "" > file; next }
		/^BG-END / { if (name != "") { close(file); print $2, $3 > (dir "/index") } name = ""; next }
		/^BG-/ { next }
		name != "" { print >> file }'
	[ -f "$vmdir/$label.out.tmp/index" ] || return 0
	while read -r name sum; do
		base64 -d <"$vmdir/$label.out.tmp/$name.b64" >"$vmdir/$label.out.tmp/$name.tgz" 2>/dev/null || true
		got=$(md5sum <"$vmdir/$label.out.tmp/$name.tgz" | cut -d' ' -f1)
		if [ "$got" != "$sum" ]; then
			log "results of $name corrupted on the channel (md5 $got != $sum)"
			continue
		fi
		rm -rf "${vmdir:?}/out/$name"
		# A scenario that cannot be unpacked (a full disk) fails alone.
		tar -C "$vmdir/out" -xzf "$vmdir/$label.out.tmp/$name.tgz" ||
			log "results of $name could not be unpacked into $vmdir/out (tar exit $?)"
	done <"$vmdir/$label.out.tmp/index"
	rm -rf "$vmdir/$label.out.tmp"
}

# One verdict per scenario into $results; the check's output is shown.
judge() {
	local s path name chk dir msg
	: >"$results"
	for s in "${scenarios[@]}"; do
		path=$(scenario_script "$s")
		name=$(scenario_name "$path")
		chk=${path%.sh}.check
		dir=$vmdir/out/$name
		if [ ! -f "$dir/scenario.rc" ]; then
			msg=$(cat "$vmdir/$label.trouble" "$vmdir/$label.icount.trouble" 2>/dev/null |
				tail -n1)
			verdict FAIL "$name" "no results came back from the guest${msg:+: $msg}"
		elif [ -s "$dir/scenario.stuck" ]; then
			verdict FAIL "$name" "not ended by SIGKILL after its $(cat "$dir/scenario.timeout")s limit, asleep in the kernel: $(head -n1 "$dir/scenario.stuck"); see $dir/scenario.stuck"
		elif [ -f "$dir/scenario.timeout" ]; then
			verdict FAIL "$name" "killed after its $(cat "$dir/scenario.timeout")s limit; see $dir/scenario.log"
		elif [ ! -x "$chk" ]; then
			verdict FAIL "$name" "no executable $chk"
		elif msg=$("$chk" "$dir" 2>&1); then
			verdict PASS "$name" "$msg"
		else
			verdict FAIL "$name" "$msg"
		fi
	done
}

# "PASS name", or "FAIL name<TAB>first line of why" (tools/check.sh shows it
# in its closing list, the part of a CI log that is read first).
verdict() {
	if [ "$1" = PASS ] || [ -z "$3" ]; then
		echo "$1 $2" >>"$results"
	else
		# The check's first line that is not a note, else its first line.
		local why
		why=$(printf '%s\n' "$3" | { grep -v '^ *note:' || true; } | head -n1)
		[ -n "$why" ] || why=$(printf '%s\n' "$3" | head -n1)
		why=${why#"${why%%[! ]*}"}
		printf '%s %s\t%s\n' "$1" "$2" "$(printf '%s\n' "$why" | cut -c1-200)" >>"$results"
	fi
	printf '%s %s\n' "$1" "$2"
	[ -z "$3" ] || printf '%s\n' "$3" | sed 's/^/    /'
}

# Log files of boot N: label.console.log for the first, label.bootN.* after.
set_boot_files() {
	local p=$vmdir/$label
	[ "$1" -eq 1 ] || p=$p.boot$1
	console=$p.console.log
	channel=$p.channel.log
	heartbeat=$p.heartbeat.log
}

# Boot until every scenario ran or was lost with a dead guest: a scenario
# that kills the kernel fails alone, the ones after it get a fresh boot.
# Arguments: the scenarios (of one clock); boots counts on across calls.
run_boots() {
	local remaining=("$@") s i lost
	while [ ${#remaining[@]} -gt 0 ]; do
		boot=$((boot + 1))
		set_boot_files $boot
		pack_initramfs "${remaining[@]}"
		start_qemu "${remaining[@]}"
		BG_VM_TIMEOUT=$((t_end - $(date +%s))) wait_qemu && break
		guest_ok=3
		unpack_results
		# Drop what ran (results came back) and the one that was running.
		lost=${current:-}
		for i in "${!remaining[@]}"; do
			s=$(scenario_name "$(scenario_script "${remaining[i]}")")
			if [ -d "$vmdir/out/$s" ] || [ "$s" = "$lost" ]; then
				unset 'remaining[i]'
			elif [ -z "$lost" ]; then
				# Died between scenarios or at boot: this one is lost.
				unset 'remaining[i]'
				lost=$s
			fi
		done
		remaining=("${remaining[@]+"${remaining[@]}"}")
		[ "$(date +%s)" -lt "$t_end" ] || break
		[ ${#remaining[@]} -eq 0 ] || log "rebooting for the remaining scenarios: ${remaining[*]}"
	done
	unpack_results
}

main() {
	parse_args "$@"
	mkdir -p "$vmdir"
	ir=$vmdir/$label.initramfs.d
	results=$vmdir/$label.results
	rm -f "$results" "$vmdir/$label".boot*.log "$vmdir/$label".icount.boot*.log \
		"$vmdir/$label.trouble" "$vmdir/$label.icount.trouble"
	eval "$("$root/tools/vm-kernel.sh")"
	command -v qemu-system-x86_64 >/dev/null || die "qemu-system-x86_64 not found (tools/deps.sh vm)"
	clear_old_results
	build_base
	# Scenarios on the instruction clock get boots of their own.
	local s clock real=() icount=()
	for s in "${scenarios[@]}"; do
		clock=${BG_VM_CLOCK:-$(directive "$(scenario_script "$s")" clock real)}
		case $clock in
		real) real+=("$s") ;;
		icount) [ "${BG_VM_ICOUNT:-}" = off ] && real+=("$s") || icount+=("$s") ;;
		*) die "$s: bench-clock must be real or icount, not '$clock'" ;;
		esac
	done
	boot=0 guest_ok=0 t_end=$(($(date +%s) + ${BG_VM_TIMEOUT:-900}))
	# The instruction clock's boots (see start_qemu()).
	local icount_opts=${BG_VM_ICOUNT:-shift=0,sleep=off}
	if [ ${#real[@]} -gt 0 ] && [ ${#icount[@]} -gt 0 ] &&
		[ "${BG_VM_JOBS:-$(nproc)}" -ge 2 ]; then
		# Side by side, one host CPU each (TCG runs a guest on one
		# thread): the instruction clock's guest time does not depend on
		# the host's load, and the other boot keeps a CPU of its own.
		local ic_pid
		rm -rf "$vmdir/$label.icount.initramfs.d"
		cp -a "$ir" "$vmdir/$label.icount.initramfs.d"
		(
			label=$label.icount
			ir=$vmdir/$label.initramfs.d
			log_tag=' icount'
			boot=0
			BG_VM_SMP=1 BG_VM_ICOUNT=$icount_opts run_boots "${icount[@]}"
			exit "$guest_ok"
		) &
		ic_pid=$!
		BG_VM_ICOUNT='' run_boots "${real[@]}"
		wait "$ic_pid" || guest_ok=3
	else
		[ ${#real[@]} -eq 0 ] || BG_VM_ICOUNT='' run_boots "${real[@]}"
		[ ${#icount[@]} -eq 0 ] || [ "$(date +%s)" -ge "$t_end" ] ||
			BG_VM_SMP=1 BG_VM_ICOUNT=$icount_opts run_boots "${icount[@]}"
	fi
	if [ $do_check -eq 0 ]; then
		return $guest_ok
	fi
	judge
	if grep -q '^FAIL' "$results"; then
		return 1
	fi
	return $guest_ok
}

main "$@"
