#!/bin/sh
# The performance bench (issue #6), guest side: everything measured side
# by side in one boot, untraced vs the kernel's function_graph vs
# bpfgraph. Results as "KEY value..." lines in results.txt; perf.check
# on the host turns them into the table. Needs /tmp/bb/bwl and
# /tmp/bb/ldlink: tests/bench/run.sh prepends them to this script (as a
# payload) and sets BENCH_SHORT.
# bench-timeout: 2400
set -u
. /bench/lib/guest.sh
PATH=/tmp/bb:$PATH
BENCH_SHORT=${BENCH_SHORT:-0}
R=$OUT/results.txt
: >"$R"

if [ ! -x /tmp/bb/bwl ] || [ ! -x /tmp/bb/ldlink ]; then
	echo "perf: bwl and ldlink missing: run tests/bench/run.sh" >&2
	exit 1
fi

res() { echo "$*" >>"$R"; }

# BENCH_SKIP="STEP...": steps left out (unrel-bg: bpfgraph on tcp_sendmsg;
# sub-args, sub-kprobes, sub-work: in-subtree runs, see run.sh).
skipped() { case " ${BENCH_SKIP:-} " in *" $1 "*) return 0 ;; esac; return 1; }
# BENCH_ONLY="STEP...": only these of getpid openat unrel tp ss (default all).
wanted() {
	[ -z "${BENCH_ONLY:-}" ] && return 0
	case " $BENCH_ONLY " in *" $1 "*) return 0 ;; esac
	return 1
}

# A key=value field of a line: kv LINE KEY
kv() { echo "$1" | tr ' ' '\n' | sed -n "s/^$2=//p" | head -n1; }

# "CALLS DEPTH0" of function_graph text (either tool's).
count_calls() {
	awk '/^#/ { next }
	{
		i = index($0, "|  "); if (!i) next
		t = substr($0, i + 3)
		# "f() {", "f();", and with funcgraph-args "f(a=1) {", "f(a=1);"
		if (t ~ /^}/ || (t !~ /\) \{$/ && t !~ /\);/)) next
		calls++
		if (t ~ /^[A-Za-z_]/) d0++
	}
	END { printf "%d %d\n", calls, d0 }' "$1"
}

# bpfgraph's summary line fields: summary FILE -> "ATTACHED RECORDS DROPS ATTACH_S DETACH_S"
summary() {
	sed -n 's/^bpfgraph: \([0-9]*\) functions attached.*; \([0-9]*\) records, \([0-9]*\) dropped.*attach \([0-9.]*\) s, detach \([0-9.]*\) s$/\1 \2 \3 \4 \5/p' "$1" | tail -n1
}

# function_graph on FUNC, only for CMD's pid (CMD must stop itself:
# bwl --stop); the trace goes to FILE. fg_pid FUNC FILE CMD...
fg_pid() {
	_f=$1 _file=$2
	shift 2
	oracle_reset
	echo >$T/trace
	echo 4096 >$T/buffer_size_kb
	"$@" &
	_pid=$!
	wait_stopped $_pid || { kill -KILL $_pid; wait $_pid; return 1; }
	echo $_pid >$T/set_ftrace_pid
	echo "$_f" >$T/set_graph_function
	echo get_kprobe >$T/set_ftrace_notrace
	echo function_graph >$T/current_tracer
	kill -CONT $_pid
	wait $_pid
	echo 0 >$T/tracing_on
	cat $T/trace >"$_file"
	oracle_reset
}

# Names bpfgraph's plan attaches with trampolines for these arguments:
# not what it kprobes (no BTF, or __rcu_read_lock and the like, which a
# trampoline would call from inside itself: endless recursion).
plan_names() {
	bpfgraph --dry-run -O nofuncgraph-irqs "$@" 2>/dev/null |
		awk '$1 == "attach" && NF >= 2 && $3 !~ /^\[/ && !/kprobe/ { print $2 }'
}

# ---- 1. in-subtree cost ------------------------------------------------
in_subtree() { # CASE FUNC OP N
	c=$1 f=$2 op=$3 n=$4
	progress "in-subtree $c: untraced"
	bwl -o "$c.none" "$op" "$n"
	progress "in-subtree $c: function_graph"
	fg_pid "$f" "$c.fg.txt" bwl --stop -o "$c.fg" "$op" "$n"
	progress "in-subtree $c: bpfgraph"
	bpfgraph -v --wait-detach -o "$c.bg.txt" -G "$f" -- bwl -o "$c.bg" "$op" "$n" 2>"$c.bg.err"
	# The same with the argument registers recorded (issue #20): what
	# funcgraph-args adds per traced call, side by side with bg.
	if ! skipped sub-args; then
		progress "in-subtree $c: bpfgraph -O funcgraph-args"
		bpfgraph -O funcgraph-args -v --wait-detach -o "$c.bga.txt" -G "$f" -- bwl -o "$c.bga" "$op" "$n" 2>"$c.bga.err"
	fi
	if ! skipped sub-kprobes; then
		progress "in-subtree $c: bpfgraph --kprobes"
		bpfgraph --kprobes -v --wait-detach -o "$c.bgk.txt" -G "$f" -- bwl -o "$c.bgk" "$op" "$n" 2>"$c.bgk.err"
	fi
	progress "in-subtree $c: bare trampolines (ldlink both)"
	plan_names -G "$f" >"$c.names"
	ldlink -m both -o "$c.ldl" "$c.names" -- bwl -o "$c.floor" "$op" "$n"
	# Where bpfgraph's in-context time goes: the same trampolines with
	# one kind of its work in each program (ldlink.bpf.c).
	if [ "$c" = getpid ] && ! skipped sub-work; then
		for w in ktime storage ring all; do
			progress "in-subtree $c: trampolines with $w work"
			ldlink -m both -p $w -o "$c.ldl.$w" "$c.names" -- bwl -o "$c.work.$w" "$op" "$n"
			res "sub $c work $w $(sed -n 's/.* ns=\([0-9]*\).*/\1/p' "$c.work.$w")"
		done
	fi
	bwl -o "$c.none" "$op" "$n"
	res "sub $c none $(sed -n 's/.* ns=\([0-9]*\).*/\1/p' "$c.none" | sort -n | head -n1) $n"
	res "sub $c fg $(sed -n 's/.* ns=\([0-9]*\).*/\1/p' "$c.fg") $(count_calls "$c.fg.txt")"
	res "sub $c bg $(sed -n 's/.* ns=\([0-9]*\) self_ticks=[0-9-]* parent_ticks=\([0-9-]*\)/\1 \2/p' "$c.bg") $(count_calls "$c.bg.txt") $(summary "$c.bg.err")"
	[ -f "$c.bgk" ] &&
		res "sub $c bgk $(sed -n 's/.* ns=\([0-9]*\) self_ticks=[0-9-]* parent_ticks=\([0-9-]*\)/\1 \2/p' "$c.bgk") $(count_calls "$c.bgk.txt") $(summary "$c.bgk.err")"
	[ -f "$c.bga" ] &&
		res "sub $c bga $(sed -n 's/.* ns=\([0-9]*\) self_ticks=[0-9-]* parent_ticks=\([0-9-]*\)/\1 \2/p' "$c.bga") $(count_calls "$c.bga.txt") $(summary "$c.bga.err")"
	res "sub $c floor $(sed -n 's/.* ns=\([0-9]*\).*/\1/p' "$c.floor") $(wc -l <"$c.names")"
	res "sub $c bgfds $(sed -n 's/.* parent_fds=\([0-9-]*\)\/\([0-9-]*\) .*/\1 \2/p' "$c.bg")"
	# Keep the head of the traces only: they cross a serial line.
	for x in fg bg bgk bga; do
		[ -f "$c.$x.txt" ] || continue
		head -n 200 "$c.$x.txt" >"$c.$x.head"
		rm -f "$c.$x.txt"
	done
}

# ---- 2. unrelated cost -------------------------------------------------
UNREL_FUNC=tcp_sendmsg
# bpfgraph [OPTION...] on UNREL_FUNC while the unrelated workload runs:
# its timing goes to un.TAG.
unrel_bg() { # TAG OPTION...
	_t=$1
	shift
	progress "unrelated: bpfgraph $* -G $UNREL_FUNC"
	bpfgraph "$@" -v --wait-detach --no-discovery --no-callsite-probes -o "un.$_t.txt" \
		-G $UNREL_FUNC 2>"un.$_t.err" &
	_bp=$!
	# -v: it says when all is attached (the trace stays empty: no TCP).
	wait_for 'Ctrl-C to stop' "un.$_t.err" 600
	bwl -o "un.$_t" pipe "$np" openmiss "$no"
	kill -INT $_bp
	wait $_bp
}

unrelated() { # NPIPE NOPEN
	np=$1 no=$2
	progress "unrelated: untraced"
	bwl -o un.none pipe "$np" openmiss "$no"
	progress "unrelated: function_graph -G $UNREL_FUNC"
	oracle_reset
	echo >$T/trace
	echo $UNREL_FUNC >$T/set_graph_function
	echo get_kprobe >$T/set_ftrace_notrace
	echo function_graph >$T/current_tracer
	bwl -o un.fg pipe "$np" openmiss "$no"
	oracle_reset
	if skipped unrel-bg; then
		: >un.bg
	else
		# --no-discovery: with its default kprobes on the indirect call
		# sites of the planned functions (and the RCU call sites), every
		# task that runs one of them takes an int3 there: under emulation
		# this step then ran past 10 minutes.
		unrel_bg bg
		unrel_bg bgk --kprobes
	fi
	progress "unrelated: bare trampolines on the same plan"
	plan_names -G $UNREL_FUNC >un.names
	ldlink -m both -o un.ldl un.names -- bwl -o un.floor pipe "$np" openmiss "$no"
	bwl -o un.none pipe "$np" openmiss "$no"
	for op in pipe openmiss; do
		none=$(sed -n "s/^op=$op .* ns=\([0-9]*\).*/\1/p" un.none | sort -n | head -n1)
		res "unrel $op none $none"
		for x in fg bg bgk floor; do
			[ -f un.$x ] || continue
			res "unrel $op $x $(sed -n "s/^op=$op .* ns=\([0-9]*\).*/\1/p" un.$x)"
		done
	done
	res "unrel funcs bg $(summary un.bg.err 2>/dev/null | cut -d' ' -f1) floor $(wc -l <un.names)"
}

# Every bpfgraph here runs with --wait-detach: the next timed run must not
# pass through the idle hooks of the last one while a background process
# releases them, and detaching is part of what is measured.

# ---- 3. start/stop and 5. memory ---------------------------------------
# Rarely called functions (no ext4 file system in the guest), so that
# attach and detach are measured alone.
startstop() { # LABEL GLOB...
	l=$1
	shift
	args=
	for g in "$@"; do args="$args -G $g"; done
	progress "start/stop $l: bpfgraph $args"
	# shellcheck disable=SC2086
	plan_names --callee-depth=0 $args >"ss.$l.names"
	awk '/MemAvailable/ { print $2 }' /proc/meminfo >"ss.$l.mem0"
	# shellcheck disable=SC2086
	# --wait-detach: the release is measured, not left to a background process.
	bwl -o "ss.$l.ru" exec bpfgraph -v --wait-detach --callee-depth=0 -O nofuncgraph-irqs -o "ss.$l.txt" \
		$args -- bwl sleep 3000 2>"ss.$l.err" &
	bp=$!
	wait_for '^bpfgraph: tracing ' "ss.$l.err" 600
	usleep 500000
	mem_sample "$l"
	wait $bp
	# The same set by kprobes (--kprobes): nothing to verify per function.
	progress "start/stop $l: bpfgraph --kprobes $args"
	# shellcheck disable=SC2086
	bpfgraph --kprobes -v --wait-detach --callee-depth=0 -O nofuncgraph-irqs -o "ss.$l.k.txt" \
		$args -- bwl sleep 3000 2>"ss.$l.k.err"
	res "ss $l bgk $(summary "ss.$l.k.err")"
	rm -f "ss.$l.k.txt"
	res "ss $l bg $(summary "ss.$l.err") $(sed -n 's/.*attach cost: templates \([0-9.]*\) s; \([0-9]*\) clones loaded in \([0-9.]*\) s ([^)]*), \([0-9]*\) links in \([0-9.]*\) s; detach: \([0-9]*\) closes \([0-9.]*\) s (several at once), skeleton \([0-9.]*\) s/\1 \2 \3 \4 \5 \6 \7 \8/p' "ss.$l.err")"
	for m in entry both; do
		[ "$BENCH_SHORT" = 1 ] && [ $m = both ] && [ "$l" != small ] && continue
		progress "start/stop $l: baseline loop ($m, $(wc -l <"ss.$l.names") functions)"
		ldlink -m $m -o "ss.$l.base" "ss.$l.names"
	done
	while read -r line; do
		res "ss $l base $line"
	done <"ss.$l.base"
}

# BPF map memory (memlock of the map fds), RSS, kernel memory used.
mem_sample() { # LABEL
	# The tracer, not its forked command before exec (also "bpfgraph"):
	# the process holding the links.
	pid= best=-1
	for p in $(pidof bpfgraph); do
		n=$(ls -l /proc/"$p"/fd 2>/dev/null | grep -c 'bpf_link')
		[ "$n" -gt "$best" ] && best=$n pid=$p
	done
	[ -n "$pid" ] || return 0
	maps=0
	for f in /proc/"$pid"/fdinfo/*; do
		grep -q '^map_type' "$f" 2>/dev/null || continue
		m=$(sed -n 's/^memlock:[[:space:]]*//p' "$f")
		t=$(sed -n 's/^map_type:[[:space:]]*//p' "$f")
		echo "$t $m" >>"ss.$1.maps"
		maps=$((maps + m))
	done
	hwm=$(sed -n 's/^VmHWM:[[:space:]]*\([0-9]*\).*/\1/p' /proc/"$pid"/status)
	rss=$(sed -n 's/^VmRSS:[[:space:]]*\([0-9]*\).*/\1/p' /proc/"$pid"/status)
	links=$(ls -l /proc/"$pid"/fd 2>/dev/null | grep -c 'bpf_link')
	avail=$(awk '/MemAvailable/ { print $2 }' /proc/meminfo)
	res "mem $1 maps_bytes $maps hwm_kb $hwm rss_kb $rss links $links memavail_drop_kb $(($(cat "ss.$1.mem0") - avail))"
}

# ---- 4. throughput -----------------------------------------------------
throughput() { # OP RATE...
	op=$1
	shift
	bwl -o "tp.startup" exec bpfgraph --dry-run -G __do_sys_getpid >/dev/null 2>&1
	for r in "$@"; do
		progress "throughput: $op at ${r}/s (0: flat out)"
		f=__do_sys_getpid
		[ "$op" = openmiss ] && f=do_sys_openat2
		rm -f "tp.$op.$r.res"
		bwl -o "tp.$op.$r.ru" exec bpfgraph --wait-detach -G $f -o "tp.$op.$r.txt" \
			-- bwl -o "tp.$op.$r.res" rate "$op" "$r" 2000 2>"tp.$op.$r.err"
		res "tp $op $r $(cat "tp.$op.$r.res") $(cat "tp.$op.$r.ru") $(summary "tp.$op.$r.err") lines=$(wc -l <"tp.$op.$r.txt")"
		rm -f "tp.$op.$r.txt"
	done
	res "tp startup $(cat tp.startup)"
}

# Functions of the kernel's own function_graph vs bpfgraph for the same
# subtree: how many hooks each enables.
res "kernel $(uname -r) cpus $(nproc) short $BENCH_SHORT"
# bpf_ktime_get_ns() reads the clocksource; function_graph reads
# sched_clock (the TSC) whatever it is.
res "clocksource $(cat /sys/devices/system/clocksource/clocksource0/current_clocksource 2>/dev/null)"
res "fg_functions $(wc -l <$T/available_filter_functions)"

if [ "$BENCH_SHORT" = 1 ]; then
	wanted getpid && in_subtree getpid __do_sys_getpid getpid 5000
	wanted openat && in_subtree openat do_sys_openat2 openmiss 300
	wanted unrel && unrelated 5000 500
	wanted tp && throughput getpid 2000 20000 0
	wanted ss && startstop small 'ext4_mb_*'
	wanted ss && startstop medium 'ext4_[a-f]*'
else
	wanted getpid && in_subtree getpid __do_sys_getpid getpid 20000
	wanted openat && in_subtree openat do_sys_openat2 openmiss 1000
	wanted unrel && unrelated 20000 2000
	wanted tp && throughput getpid 1000 5000 20000 50000 0
	wanted tp && throughput openmiss 1000 0
	wanted ss && startstop small 'ext4_mb_*'
	wanted ss && startstop medium 'ext4_[a-f]*'
	wanted ss && startstop large 'ext4_*' 'crypto_*'
fi
progress "done"
