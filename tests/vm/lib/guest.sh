# Helpers for guest scenarios (busybox ash). Source it:
#   . /bench/lib/guest.sh
# Scenarios run with cwd = $OUT, the directory shipped back to the host.

T=/sys/kernel/tracing

# One line on the host's terminal while the scenario runs (fd 3 is the
# results channel opened by /init).
progress() {
	echo "BG-PROGRESS ${BENCH_SCENARIO:-?}: $*" >&3 2>/dev/null || true
}

# run_cmd NAME CMD...: stdout in NAME.out, stderr in NAME.err, exit code in
# NAME.rc. Never fails itself: the host-side check judges.
run_cmd() {
	_name=$1
	shift
	"$@" >"$_name.out" 2>"$_name.err"
	echo $? >"$_name.rc"
}

# Wait until PID is stopped (state T in /proc/PID/stat), at most ~10 s.
wait_stopped() {
	_i=0
	while [ $_i -lt 1000 ]; do
		_st=$(sed 's/.*) \(.\).*/\1/' "/proc/$1/stat" 2>/dev/null) || return 1
		[ "$_st" = T ] && return 0
		usleep 10000
		_i=$((_i + 1))
	done
	return 1
}

# Guest uptime in seconds (two decimals).
up() { cut -d' ' -f1 /proc/uptime; }
# Guest seconds since uptime T (two decimals).
since() { echo "$1 $(up)" | awk '{ printf "%.2f", $2 - $1 }'; }

# Whether a program of bpfgraph (bg_*) is loaded. grep -q ends bpftool's
# listing at the first match, which keeps a poll ten times a second cheap
# while a thousand programs are being released: listing them all each
# time (grep -c) kept the guest busy, and the 6.1 fidelity suite's waits
# for a release grew 2-3x on the instruction clock.
# Or a process of bpfgraph's still releasing hooks: the kprobes go last,
# without programs, and function_graph would draw their int3 handling.
bgloaded() {
	bpftool prog show 2>/dev/null | grep -q 'name bg_' && return 0
	for _f in /proc/[0-9]*/stat; do
		read -r _l 2>/dev/null <"$_f" || continue
		case $_l in *"(bpfgraph-free"*") "[!ZX]*) return 0 ;; esac
	done
	return 1
}

# bpfgraph's skeleton is loaded: bg_switch stays for the whole trace
# (bg_probe, the hook tier's probe while planning, is gone within
# milliseconds).
loaded() { bpftool prog show 2>/dev/null | grep -q 'name bg_switch'; }

# wait_for PATTERN FILE S: until FILE has a line matching PATTERN, polled
# every 50 ms for at most S seconds; the status says whether it came.
wait_for() {
	_wf=0
	while ! grep -q "$1" "$2" 2>/dev/null && [ $_wf -lt $(($3 * 20)) ]; do
		usleep 50000
		_wf=$((_wf + 1))
	done
	grep -q "$1" "$2" 2>/dev/null
}

# State letter of every wl process (R, S, T...), on one line.
wlstate() {
	for _p in /proc/[0-9]*; do
		[ "$(cat "$_p/comm" 2>/dev/null)" = wl ] && sed 's/.*) \(.\).*/\1/' "$_p/stat"
	done | tr '\n' ' '
}

# released_after [LIMIT_S]: waits until no program of bpfgraph is loaded,
# at most LIMIT_S seconds (300), and prints how long that took (-1: still
# loaded at the limit). After a trace bpfgraph exits within seconds and
# leaves the hooks' release to a background process (--wait-detach),
# whose idle hooks would still sit in the paths that the kernel's tracer
# or the next timing runs through.
# Each poll lists every loaded program (bpftool, a few system calls per
# program: 6.1's fentry tier has two per traced function, up to 1 500
# after a deep trace), so the polls grow apart, 0.1 s to 1 s: at 0.1 s
# throughout, the polls were half of the wait for a release on 6.1
# (fidelity's openat and read on the instruction clock: 104 and 60 s of
# host time before the kernel's capture, 48 and 32 s now).
released_after() {
	_t=$(up)
	_w=100000
	while bgloaded; do
		awk -v a="$_t" -v b="$(up)" -v l="${1:-300}" 'BEGIN { exit !(b - a > l) }' &&
			{ echo -1; return; }
		usleep $_w
		[ $_w -lt 1000000 ] && _w=$((_w * 2))
		[ $_w -gt 1000000 ] && _w=1000000
	done
	awk -v a="$_t" -v b="$(up)" 'BEGIN { printf "%.1f\n", b - a }'
}
wait_released() { released_after >/dev/null; }

# ksite FUNC: the first 16 bytes of vmlinux function FUNC as the kernel
# runs them (hex, one line), read from /proc/kcore: its fentry site, a
# NOP or what ftrace patched in while something hooks it. "unmapped"
# when no PT_LOAD segment holds it. Busybox arithmetic is signed 64-bit:
# kernel addresses are negative, their differences right.
_kcore_i64() { od -An -td8 -j "$1" -N8 /proc/kcore | tr -d ' '; }
ksite() {
	_a=$(grep " $1\$" /proc/kallsyms | head -1 | cut -d' ' -f1)
	[ -n "$_a" ] || { echo "unmapped"; return; }
	_a=$((0x$_a))
	_phoff=$(_kcore_i64 32)
	_phnum=$(od -An -tu2 -j 56 -N2 /proc/kcore | tr -d ' ')
	_i=0
	while [ $_i -lt "$_phnum" ]; do
		_ph=$((_phoff + _i * 56))
		_d=$((_a - $(_kcore_i64 $((_ph + 16)))))
		if [ "$(od -An -tu4 -j $_ph -N4 /proc/kcore | tr -d ' ')" = 1 ] &&
			[ $_d -ge 0 ] && [ $_d -lt "$(_kcore_i64 $((_ph + 32)))" ]; then
			od -An -tx1 -j $(($(_kcore_i64 $((_ph + 8))) + _d)) -N16 /proc/kcore |
				sed 's/^ *//'
			return
		fi
		_i=$((_i + 1))
	done
	echo "unmapped"
}

# ksite_hooked FUNC [LIMIT_S]: waits until FUNC's fentry site (at its
# start or after a 4-byte endbr64) is no longer the 5-byte NOP, at most
# LIMIT_S seconds (120), and prints its first bytes (ksite).
ksite_hooked() {
	_j=0
	while [ $_j -lt $((${2:-120} * 5)) ]; do
		_k=$(ksite "$1")
		case $_k in
		"0f 1f 44 00 00 "* | ????????????"0f 1f 44 00 00 "*) ;;
		*) break ;;
		esac
		usleep 200000
		_j=$((_j + 1))
	done
	echo "$_k"
}

# repeat N GAP_MS WL-CMD...: the wl arguments for N runs of WL-CMD, GAP_MS
# apart (so that live discovery attaches between them).
repeat() {
	_n=$1 _gap=$2
	shift 2
	while [ "$_n" -gt 0 ]; do
		printf '%s sleep %s ' "$*" "$_gap"
		_n=$((_n - 1))
	done
}

# The trace options OPTION... back to what they were before being set.
_options_undo() {
	for _o in "$@"; do
		case "$_o" in
		no*) echo "${_o#no}" >$T/trace_options ;;
		*) echo "no$_o" >$T/trace_options ;;
		esac
	done
}

# The end of a capture or a series: its options undone, ftrace at rest,
# the trace clock CLOCK again (none: left as is).
_oracle_end() { # CLOCK OPTION...
	_oc=$1
	shift
	_options_undo "$@"
	oracle_reset
	[ -z "$_oc" ] || echo "$_oc" >$T/trace_clock
}

# Put ftrace back to rest.
oracle_reset() {
	echo 0 >$T/tracing_on
	echo nop >$T/current_tracer
	echo >$T/set_graph_function
	echo >$T/set_ftrace_pid
	echo >$T/set_ftrace_notrace
	echo 0 >$T/max_graph_depth
	echo 1 >$T/tracing_on
}

# oracle_view FILE OPTION...: the trace printed with the options set, then
# put back; no FILE when the kernel refuses one of them.
oracle_view() {
	_vf=$1
	shift
	_set=
	for _o in "$@"; do
		echo "$_o" >$T/trace_options 2>/dev/null || break
		_set="$_set $_o"
	done
	[ "$_set" = " $*" ] && cat $T/trace >"$_vf"
	# shellcheck disable=SC2086 # the options are words
	_options_undo $_set
}

# CMD in the background, its output to FILE.out and FILE.err, until it
# stops itself: CMD itself must stop first, as a shell wrapper would run
# its own opens under the filter (the bench's wl has --stop for this).
# Its pid in _pid; 1 (CMD killed) when it did not stop.
_oracle_start() { # FILE CMD...
	_sf=$1
	shift
	"$@" >"$_sf.out" 2>"$_sf.err" &
	_pid=$!
	wait_stopped $_pid && return 0
	echo "oracle_capture: '$*' did not stop itself (use wl --stop)" >&2
	kill -KILL $_pid 2>/dev/null
	wait $_pid
	return 1
}

# A capture under the tracer as it is (oracle_capture's -a, oracle_take):
# CMD into FILE2, tracing off and the buffer emptied until its pid is the
# filter's.
_oracle_again() { # FILE2 CMD...
	_f2=$1
	shift
	echo >$T/trace
	_oracle_start "$_f2" "$@" || return 1
	echo $_pid >$T/set_ftrace_pid
	echo 1 >$T/tracing_on
	kill -CONT $_pid
	wait $_pid
	echo $? >"$_f2.rc"
	echo 0 >$T/tracing_on
	cat $T/trace >"$_f2"
}

# A series of captures under one function_graph: oracle_open turns it on
# for no task, each oracle_take runs its CMD with the filter and the graph
# function its own, oracle_close turns it off. Enabling and disabling the
# tracer patches every function of the kernel: under the emulator each
# cycle costs more host time than the captures themselves, and a suite of
# cases needs it once instead of once a case.
# oracle_open [-O OPTION]...: OPTIONs set for all captures, put back by
# oracle_close. Waits for bpfgraph's hooks to be released first.
oracle_open() {
	_sopts=
	while [ $# -gt 0 ]; do
		case "$1" in
		-O) _sopts="$_sopts $2"; shift 2 ;;
		*) echo "oracle_open: usage: oracle_open [-O OPTION]..." >&2; return 2 ;;
		esac
	done
	wait_released
	oracle_reset
	_sclock=$(sed -n 's/.*\[\(.*\)\].*/\1/p' $T/trace_clock)
	echo global >$T/trace_clock
	echo 4096 >$T/buffer_size_kb
	echo 0 >$T/tracing_on
	# The pid of a process gone: no task is traced until a capture names
	# its own (the filter is empty only when nothing is written).
	sh -c 'exit 0' &
	wait $!
	echo $! >$T/set_ftrace_pid
	echo get_kprobe >$T/set_ftrace_notrace
	echo function_graph >$T/current_tracer
	for _o in $_sopts; do
		echo "$_o" >$T/trace_options
	done
}

# oracle_take [-a FILE2] -o FILE FUNC -- CMD...: as oracle_capture's FILE
# (and -a's FILE2), under oracle_open's tracer.
oracle_take() {
	_file=oracle.txt
	_again=
	_func=
	while [ $# -gt 0 ]; do
		case "$1" in
		-o) _file=$2; shift 2 ;;
		-a) _again=$2; shift 2 ;;
		--) shift; break ;;
		*) _func=$1; shift ;;
		esac
	done
	[ -n "$_func" ] && [ $# -gt 0 ] || {
		echo "oracle_take: usage: oracle_take [-a FILE2] -o FILE FUNC -- CMD..." >&2
		return 2
	}
	echo "$_func" >$T/set_graph_function || {
		echo "oracle_take: cannot graph '$_func'" >&2
		return 1
	}
	_oracle_again "$_file" "$@" || return 1
	[ -z "$_again" ] || _oracle_again "$_again" "$@"
}

oracle_close() {
	# shellcheck disable=SC2086 # the options are words
	_oracle_end "$_sclock" $_sopts
}

# oracle_capture [-o FILE] [-d DEPTH] [-O OPTION]... [-v VFILE=OPT[,OPT...]]...
#                [-x DAT] FUNC -- CMD...
# The kernel's own function_graph for FUNC (or several, space-separated),
# restricted to CMD's pid; the `trace` file goes to FILE (default
# oracle.txt), CMD's exit code to FILE.rc, its stdout/stderr to
# FILE.out/FILE.err. Reading `trace` consumes nothing: each -v prints the
# same events again into VFILE with the print options OPT set (none when
# the kernel refuses one), and -x then has trace-cmd extract them into
# DAT with its defaults (Debian's: version 7, zstd-compressed), its exit
# code to DAT.rc, its messages and seconds to DAT.log. -a FILE2 runs CMD
# once more after the first run, under the same tracer (enabling and
# disabling function_graph patches every function in the kernel: most of
# a capture's time under the emulator), into FILE2 and its FILE2.rc,
# FILE2.out, FILE2.err; -v and -x apply to the first run only.
# CMD starts stopped (SIGSTOP before exec) and everything is set up from
# this shell, which is not traced: enabling tracing from inside the traced
# task leaves a spurious first line (docs/function-graph-format.md,
# "Capturing a reference"). The stopped task sits in signal delivery, not
# in FUNC, so no frame of FUNC is open when the hooks go live.
oracle_capture() {
	_file=oracle.txt
	_depth=0
	_opts=
	_dat=
	_views=
	_again=
	while [ $# -gt 0 ]; do
		case "$1" in
		-o) _file=$2; shift 2 ;;
		-a) _again=$2; shift 2 ;;
		-x) _dat=$2; shift 2 ;;
		-v) _views="$_views $2"; shift 2 ;;
		-d) _depth=$2; shift 2 ;;
		-O) _opts="$_opts $2"; shift 2 ;;
		--) shift; break ;;
		*) _func=$1; shift ;;
		esac
	done
	[ -n "${_func:-}" ] && [ $# -gt 0 ] || {
		echo "oracle_capture: usage: oracle_capture [-o FILE] FUNC -- CMD..." >&2
		return 2
	}
	wait_released
	oracle_reset
	# The trace file merges the CPUs' buffers by timestamp. The default
	# clock, `local`, is per CPU; where the guest's TSCs drift apart (the
	# 6.1 guest on the host clock marks them unstable only on some boots),
	# a call that moved to a CPU whose clock is behind shows its interrupt
	# before its own entry (seen in CI: `irq_enter_rcu();` as the first
	# line). `global` orders events across CPUs, as bpfgraph's clock does.
	_clock=$(sed -n 's/.*\[\(.*\)\].*/\1/p' $T/trace_clock)
	echo global >$T/trace_clock
	echo >$T/trace
	# Big enough for a few thousand lines per CPU without overwrite.
	echo 4096 >$T/buffer_size_kb
	if ! _oracle_start "$_file" "$@"; then
		echo "$_clock" >$T/trace_clock
		return 1
	fi
	# Pid filter first, so this shell's own writes below are never traced.
	echo $_pid >$T/set_ftrace_pid
	echo "$_func" >$T/set_graph_function || {
		echo "oracle_capture: cannot graph '$_func'" >&2
		kill -KILL $_pid
		wait $_pid
		oracle_reset
		echo "$_clock" >$T/trace_clock
		return 1
	}
	echo "$_depth" >$T/max_graph_depth
	# 6.1's int3 handler calls get_kprobe(), which is traceable: when a
	# CPU hits a site that ftrace is patching and the handler's own site
	# is being patched too, int3 recurses until the NMI-depth BUG_ON
	# (seen in this bench). Leaving it unhooked avoids that.
	echo get_kprobe >$T/set_ftrace_notrace
	echo function_graph >$T/current_tracer
	for _o in $_opts; do
		echo "$_o" >$T/trace_options
	done
	kill -CONT $_pid
	wait $_pid
	echo $? >"$_file.rc"
	echo 0 >$T/tracing_on
	cat $T/trace >"$_file"
	[ -z "$_again" ] || _oracle_again "$_again" "$@"
	for _v in $_views; do
		oracle_view "${_v%%=*}" $(echo "${_v#*=}" | tr , ' ')
	done
	if [ -n "$_dat" ]; then
		_t=$(up)
		trace-cmd extract -o "$_dat" >"$_dat.log" 2>&1
		echo $? >"$_dat.rc"
		echo "extract: $(since "$_t") s" >>"$_dat.log"
	fi
	# Options are global: put the defaults back.
	# shellcheck disable=SC2086 # the options are words
	_oracle_end "$_clock" $_opts
}
