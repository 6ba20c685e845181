#!/bin/sh
# The hook tiers side by side (issue #19), guest side, on the instruction
# clock: for each tier the booted kernel has (fentry; kprobe-multi,
# kprobe-session and fentry-multi without the wide net; the default,
# kprobe-session with the net; fentry-multi with it), and for the kernel's own
# function_graph, on one entry function: start (launch until "tracing"),
# stop (SIGINT until exit), added time per traced call, unrelated work (a
# pipe loop in another task) while the net is open and after the first
# call, the traced path (failed opens) in a task the trace does not
# follow, and the first traced call itself for tiers.check to score against
# function_graph's. Results as "KEY value..." lines in results.txt. Needs
# /tmp/bb/bwl: tests/bench/run.sh --tiers prepends it (as a payload), with
# TIERS_ONLY, TIERS_NCALL, TIERS_NPIPE and TIERS_FLOORS from its
# environment.
# bench-clock: icount
# bench-timeout: 2400
set -u
. /bench/lib/guest.sh
PATH=/tmp/bb:$PATH
R=$OUT/results.txt
: >"$R"
F=${TIERS_FUNC:-do_sys_openat2}
NCALL=${TIERS_NCALL:-200}
NPIPE=${TIERS_NPIPE:-20000}

res() { echo "$*" >>"$R"; }
ns_of() { sed -n 's/.* ns=\([0-9]*\).*/\1/p' "$1" | head -n 1; }
# The timed task's own CPU time: without a tracer's reader, which shares
# the guest's one CPU (a machine with more runs it beside the call).
cpu_of() { sed -n 's/.* cpu_ns=\([0-9]*\).*/\1/p' "$1" | head -n 1; }

res "kernel $(uname -r)"
res "func $F ncall $NCALL npipe $NPIPE"
# The tier lines, wherever --dry-run prints them among its "# " lines.
dry=$(bpfgraph --dry-run -G "$F" 2>/dev/null | grep "^# ")
tiers=fentry
bpfgraph --dry-run --hook=kprobe-multi -G "$F" >/dev/null 2>&1 && tiers="$tiers kmulti"
# kprobe.session (6.10+): the kprobe.multi tier's default where the kernel has it.
bpfgraph --dry-run --hook=kprobe-session -G "$F" >/dev/null 2>&1 && tiers="$tiers ksession"
# tracing_multi (7.x): refused up front where the kernel lacks it.
bpfgraph --dry-run --hook=fentry-multi -G "$F" >/dev/null 2>&1 && tiers="$tiers tmulti"
case "$dry" in *"# wide net: every"*) tiers="$tiers wide" ;; esac
# The default for a COMMAND where tracefs is free: function_graph records its
# first call (the ftrace net), the kprobe.session net being the default for
# -p and system-wide. Where the kernel has no such net (6.1) it is already
# the fentry tier's.
case "$tiers" in *wide*)
	case "$(bpfgraph --dry-run -G "$F" -- /bin/wl 2>/dev/null | grep '^# wide net')" in
	*"function_graph records"*) tiers="$tiers ftnet" ;;
	esac ;;
esac
# fentry-multi with the wide net: the default where the kernel has both.
case "$tiers" in *tmulti*wide*) tiers="$tiers tmulti-wide" ;; esac
# Only when asked (TIERS_ONLY): the wide net without __rcu_read_lock and
# the like (--no-callsite-probes), which stay hooked after narrowing.
case "$tiers ${TIERS_ONLY:-}" in *wide*" wide-norcu"*) tiers="$tiers wide-norcu" ;; esac
# The same for the ftrace net: its steady state shows them by call-site probes.
case "$tiers ${TIERS_ONLY:-}" in *ftnet*" ftnet-norcu"*) tiers="$tiers ftnet-norcu" ;; esac
# fentry-multi's batch behind the ftrace net, where the kernel has both.
case "$tiers ${TIERS_ONLY:-}" in *tmulti*ftnet*" tmulti-ftnet"*) tiers="$tiers tmulti-ftnet" ;; esac
# kprobe.session behind it (auto's choice there before fentry-multi was).
case "$tiers ${TIERS_ONLY:-}" in *tmulti*ftnet*" ksession-ftnet"*) tiers="$tiers ksession-ftnet" ;; esac
# ... and the wide net with the plan on kprobe.multi link pairs, not sessions.
case "$tiers ${TIERS_ONLY:-}" in *kmulti*wide*" wide-pairs"*) tiers="$tiers wide-pairs" ;; esac
case "$tiers ${TIERS_ONLY:-}" in *tmulti-wide*tmulti-wide-norcu*) tiers="$tiers tmulti-wide-norcu" ;; esac
# The lock primitives the other way than the tier's default (--locks):
# hooked like other callees behind the wide net (-p: at their call sites
# by default), at their call sites for a COMMAND (hooked by default).
case "$tiers ${TIERS_ONLY:-}" in *wide*" wide-lockhook"*) tiers="$tiers wide-lockhook" ;; esac
case "$tiers ${TIERS_ONLY:-}" in *ftnet*" ftnet-lockcs"*) tiers="$tiers ftnet-lockcs" ;; esac
case "$tiers ${TIERS_ONLY:-}" in *fentry*" fentry-lockcs"*) tiers="$tiers fentry-lockcs" ;; esac
# TIERS_ONLY="TIER...": these of them only (the CI's short run).
if [ -n "${TIERS_ONLY:-}" ]; then
	only=
	for t in $tiers; do
		case " $TIERS_ONLY " in *" $t "*) only="$only $t" ;; esac
	done
	tiers=${only# }
fi
res "tiers $tiers"
opts_of() {
	case $1 in
	fentry) echo "--hook=fentry" ;;
	kmulti) echo "--hook=kprobe-multi --wide=off" ;;
	ksession) echo "--hook=kprobe-session --wide=off" ;;
	tmulti) echo "--hook=fentry-multi --wide=off" ;;
	tmulti-wide) echo "--hook=fentry-multi --wide=session" ;;
	tmulti-wide-norcu) echo "--hook=fentry-multi --wide=session --no-callsite-probes" ;;
	wide) echo "--hook=auto --wide=session" ;;
	wide-norcu) echo "--hook=auto --wide=session --no-callsite-probes" ;;
	ftnet) echo "--hook=auto --wide=first" ;;
	ftnet-norcu) echo "--hook=auto --wide=first --no-callsite-probes" ;;
	fentry-lockcs) echo "--hook=fentry --locks=callsites" ;;
	wide-lockhook) echo "--hook=auto --wide=session --locks=hooked" ;;
	ftnet-lockcs) echo "--hook=auto --wide=first --locks=callsites" ;;
	tmulti-ftnet) echo "--hook=fentry-multi --wide=first" ;;
	ksession-ftnet) echo "--hook=kprobe-session --wide=first" ;;
	wide-pairs) echo "--hook=kprobe-multi --wide=session" ;;
	esac
}

progress "untraced"
bwl -o none.call openmiss "$NCALL"
bwl -o none.pipe pipe "$NPIPE"
res "none call $(ns_of none.call)"
res "none call_cpu $(cpu_of none.call)"
res "none pipe $(ns_of none.pipe)"

progress "function_graph"
oracle_reset
echo "$F" >$T/set_graph_function
s=$(up)
echo function_graph >$T/current_tracer
res "fg start $(since "$s")"
bwl -o fg.pipe pipe "$NPIPE"
res "fg pipe_before $(ns_of fg.pipe)"
res "fg pipe_after $(ns_of fg.pipe)"
s=$(up)
echo nop >$T/current_tracer
res "fg stop $(since "$s")"
oracle_reset
# Per call: only the timed task, as bpfgraph traces only its command.
echo >$T/trace
# Room for every event of the run: the text formatting below reads them all.
# "7 (expanded: 1408)" before its first use: 1408 is what it will be.
kb=$(sed 's/.*expanded: \([0-9]*\))/\1/; s/ .*//' $T/buffer_size_kb)
echo 32768 >$T/buffer_size_kb
bwl --stop -o fg.call openmiss "$NCALL" &
p=$!
wait_stopped $p
echo $p >$T/set_ftrace_pid
echo "$F" >$T/set_graph_function
echo function_graph >$T/current_tracer
kill -CONT $p
wait $p
echo 0 >$T/tracing_on
# The kernel's own text formatting of those calls (reading the trace file),
# the reference for bpfgraph's reader: CPU time of a reader of the text.
bwl -o fg.fmt exec cat $T/trace >fg.fmt.txt
res "fg fmt_us $(sed -n 's/^utime_us=\([0-9]*\) stime_us=\([0-9]*\).*/\1 \2/p' fg.fmt | awk '{ print $1 + $2 }')"
res "fg fmt_calls $(sed -n 's/.* calls=\([0-9]*\).*/\1/p' fg.call | head -n 1)"
res "fg fmt_lines $(wc -l <fg.fmt.txt)"
res "fg fmt_overrun $(sed -n 's/^overrun: //p' $T/per_cpu/cpu*/stats | awk '{ s += $1 } END { print s + 0 }')"
rm -f fg.fmt.txt
echo "$kb" >$T/buffer_size_kb
oracle_reset
res "fg call $(ns_of fg.call)"
res "fg call_cpu $(cpu_of fg.call)"
# The same calls in a task the trace does not follow (another process on
# the traced path): function_graph with its pid filter on a task asleep.
sleep 600 &
sp=$!
echo $sp >$T/set_ftrace_pid
echo "$F" >$T/set_graph_function
echo function_graph >$T/current_tracer
bwl -o fg.other openmiss "$NCALL"
oracle_reset
kill $sp
wait $sp 2>/dev/null
res "fg other_cpu $(cpu_of fg.other)"
oracle_capture -o fg.first.txt "$F" -- wl --stop openmiss 1 sleep 300 openmiss 1

for t in $tiers; do
	o=$(opts_of $t)
	progress "$t: per call"
	# shellcheck disable=SC2086
	wait_released
	bpfgraph $o -v -o $t.call.txt -G "$F" -- bwl -o $t.call openmiss "$NCALL" 2>$t.call.err
	res "$t call $(ns_of $t.call)"
	res "$t call_cpu $(cpu_of $t.call)"
	# bpfgraph's own CPU from "ready" to its last record written (-v),
	# and what it dropped.
	res "$t own_cpu $(sed -n 's/^bpfgraph: own CPU from ready to the last record: \([0-9.]*\) s.*/\1/p' $t.call.err | head -n 1)"
	# ... and its reading thread's from the timed loop's start (bwl) to
	# the last record written: the steady state's reading and writing.
	c0=$(sed -n 's/.* parent_cpu0_ns=\([0-9]*\).*/\1/p' $t.call | head -n 1)
	c1=$(sed -n "s/^bpfgraph: own CPU from ready to the last record: .* the reading thread's since it started: \([0-9.]*\) s.*/\1/p" $t.call.err | head -n 1)
	[ -n "$c0" ] && [ "$c0" != 0 ] && [ -n "$c1" ] &&
		res "$t own_loop $(awk -v a="$c0" -v b="$c1" 'BEGIN { printf "%.0f", b * 1e9 - a }')"
	# Its reading and writing of records over the whole trace (attaching
	# what they showed left out), and the calls made (warm-up included).
	res "$t read_cpu $(sed -n "s/^bpfgraph: own CPU from ready .* reading and writing records \([0-9.]*\) s of it.*/\1/p" $t.call.err | head -n 1)"
	res "$t read_sys $(sed -n "s/^bpfgraph: own CPU from ready .* reading and writing records [0-9.]* s of it (system \([0-9.]*\) s.*/\1/p" $t.call.err | head -n 1)"
	res "$t calls $(sed -n 's/.* calls=\([0-9]*\).*/\1/p' $t.call | head -n 1)"
	# ... and per record: what the figure per call holds less the one-time
	# work, whose weight on it changes with the calls bwl made.
	res "$t read_rec_ns $(sed -n 's/^bpfgraph: own CPU from ready .* page faults; \([0-9]*\) ns per record)$/\1/p' $t.call.err | head -n 1)"
	# For a diagnosis: the wait for an idle machine before the loop, and
	# the reader's CPU at its start and end (bwl's line, whole).
	res "$t bwl $(head -n 1 $t.call)"
	res "$t drops $(sed -n 's/.* records, \([0-9]*\) dropped.*/\1/p' $t.call.err | head -n 1)"
	# How long the command waited after its first call while what that
	# call met was hooked (the ftrace net; the wide net's closing), then
	# what its records led to.
	a=$(sed -n -e 's/^bpfgraph: first traced call over: .* \([0-9.]*\) s after it .*/\1/p' \
		-e 's/^bpfgraph: first traced call over: function_graph .*, \([0-9.]*\) s$/\1/p' $t.call.err | head -n 1)
	g=$(sed -n 's/^bpfgraph: .* hooked before the command went on, \([0-9.]*\) s$/\1/p' $t.call.err | head -n 1)
	res "$t after_first $(awk -v a="$a" -v g="${g:-0}" 'BEGIN { if (a != "") printf "%.2f", a + g }')"
	rm -f $t.call.txt
	progress "$t: first call"
	# shellcheck disable=SC2086
	wait_released
	bpfgraph $o -G "$F" -- /bin/wl openmiss 1 sleep 300 openmiss 1 >$t.first.txt 2>$t.first.err
	wait_released
	progress "$t: start, unrelated work, stop"
	# The tier without its variant's suffix (what is measured is the same).
	b=${t%-norcu} && b=${b%-lockhook} && b=${b%-lockcs}
	if [ "$b" = ftnet ] || [ "${t#*-}" = ftnet ]; then
		s=$(up)
		# Its COMMAND: one call at once, then asleep; the net is
		# function_graph's own, whose cost to unrelated work is fg's row.
		# shellcheck disable=SC2086
		bpfgraph $o -v -G "$F" -- /bin/wl openmiss 1 sleep 600000 >$t.ss.txt 2>$t.ss.err &
		bp=$!
		wait_for '^bpfgraph: tracing ' $t.ss.err 600
		res "$t start $(since "$s")"
		wait_for 'first traced call over' $t.ss.err 600
		wp=
	else
		# The traced task: one call when told, then asleep (exec keeps the pid).
		rm -f go.$t
		mkfifo go.$t
		# After it: a pause, then an open of a FIFO that waits inside the
		# traced function (pipe_incall below).
		sh -c "read x <go.$t; exec /bin/wl openmiss 1 pause 1 fifo 1 sleep 600000" &
		wp=$!
		s=$(up)
		# --wide-wait=0: the net is measured open, before the call (pipe_before).
		# shellcheck disable=SC2086
		bpfgraph $o -v --wide-wait=0 -G "$F" -p $wp >$t.ss.txt 2>$t.ss.err &
		bp=$!
		wait_for '^bpfgraph: tracing ' $t.ss.err 600
		res "$t start $(since "$s")"
		bwl -o $t.pipe0 pipe "$NPIPE"
		res "$t pipe_before $(ns_of $t.pipe0)"
		echo go >go.$t
		# Without a wide net (6.1) function_graph records that call, then
		# the hooks are made while nothing is traced: the steady state
		# comes after (docs/kernels.md, "Without a command"), once what
		# that call met and the plan's rest are hooked too, which goes on
		# for seconds after the gap's end (on 6.1 the pipe loop ran 2x
		# slower meanwhile: its kprobes trap until they are optimized).
		if grep -q '^bpfgraph: tracing by function_graph' $t.ss.err; then
			wait_for 'calls begun from' $t.ss.err 900
			wait_for 'first traced call over' $t.ss.err 900
		fi
	fi
	if [ "$b" = wide ] || [ "$t" = wide-pairs ] || [ "$b" = tmulti-wide ]; then
		wait_for 'first traced call over' $t.ss.err 120
		# The steady state: once the narrowed net's hook on the rcu pair
		# has handed over to call-site probes (or stayed), placed by a
		# thread meanwhile (user/live/rcusites.c); how long that took.
		if [ "${t%-norcu}" = "$t" ]; then
			s=$(up)
			wait_for '^bpfgraph: __rcu_read_lock/unlock: ' $t.ss.err 300
			res "$t handover $(since "$s")"
		fi
	fi
	sleep 2
	bwl -o $t.pipe1 pipe "$NPIPE"
	res "$t pipe_after $(ns_of $t.pipe1)"
	# The traced path in a task the trace does not follow: every hook of
	# the plan runs, none records.
	bwl -o $t.other openmiss "$NCALL"
	res "$t other_cpu $(cpu_of $t.other)"
	# The same while the traced process is inside a traced call (its open
	# of a FIFO waits for a writer): every hooked call of the loop then
	# meets a task inside a graph somewhere.
	if [ -n "$wp" ]; then
		kill -USR1 $wp
		sleep 1
		bwl -o $t.pipe2 pipe "$NPIPE"
		res "$t pipe_incall $(ns_of $t.pipe2)"
		# Its writer lets it go (not for ever, should it be gone).
		timeout 30 sh -c ': >/tmp/bpfgraph-wl.fifo' || true
	fi
	# What the tier hooks now, for the floor below (ftrace's list: every
	# function with a hook, whoever owns it; nothing else hooks here).
	sed 's/[[:space:]].*//' $T/enabled_functions | sort -u >$t.hooked
	s=$(up)
	kill -INT $bp
	wait $bp
	res "$t stop $(since "$s")"
	# The hooks left to a background process, until the kernel let them go.
	wait_released
	res "$t clean $(since "$s")"
	if [ -n "$wp" ]; then
		kill $wp 2>/dev/null
		wait $wp 2>/dev/null
	fi
done
# A floor on trampolines, column COL: ldlink's fexit and fentry programs
# of kind WORK (ldlink.bpf.c) linked to floor.names one by one, the timed
# failed opens under them, then the pipe loop and another task's failed
# opens. "; :" keeps sh from running the last command in its own process
# (the one -p lean records): both loops are its children.
on_trampolines() { # COL WORK
	wait_released
	rm -f "$1.ldl"
	ldlink -m both -p "$2" -o "$1.ldl" floor.names -- bwl -o "$1.call" openmiss "$NCALL"
	res "$1 call $(ns_of "$1.call")"
	res "$1 call_cpu $(cpu_of "$1.call")"
	res "$1 funcs $(sed -n 's/.* funcs=\([0-9]*\).*/\1/p' "$1.ldl" | head -n 1)"
	res "$1 failed $(sed -n 's/.* failed=\([0-9]*\).*/\1/p' "$1.ldl" | head -n 1)"
	res "$1 start $(sed -n 's/.* attach_s=\([0-9.]*\).*/\1/p' "$1.ldl" | head -n 1)"
	res "$1 stop $(sed -n 's/.* detach_s=\([0-9.]*\).*/\1/p' "$1.ldl" | head -n 1)"
	wait_released
	ldlink -m both -p "$2" -o "$1.ldl" floor.names -- sh -c \
		"bwl -o $1.pipe pipe $NPIPE && bwl -o $1.other openmiss $NCALL; :"
	res "$1 pipe_after $(ns_of "$1.pipe")"
	res "$1 other_cpu $(cpu_of "$1.other")"
}

# The floor's functions on trampolines (TIERS_FLOORS has "tramp"): an
# empty fexit and fentry program each, linked one by one as any fentry
# tool must before tracing_multi (ldlink -m both). A trampoline runs
# both programs on every call, inside a graph or not. The rcu pair is
# left out: a steady state on trampolines would keep it at its call
# sites, as bpfgraph does now, a cost this floor does not hold.
# A recorder at its leanest on the same trampolines (TIERS_FLOORS has
# "lean"): per run a test of the process, the function's address and
# a time stamp into a per-CPU batch, the batch into the ring buffer
# every 256 records (ldlink -p lean): what function_graph records of
# a call, with nothing of bpfgraph's bookkeeping. Only the command's
# own calls are recorded; the pipe loop's and the other task's are
# not (another process).
tramp_floors() {
	case " ${TIERS_FLOORS:-} " in *" tramp "*)
		progress "floor: empty fentry and fexit programs on the $(wc -l <floor.names) functions"
		on_trampolines tramp none
		;;
	esac
	case " ${TIERS_FLOORS:-} " in *" lean "*)
		progress "floor: a lean recorder on trampolines, the $(wc -l <floor.names) functions"
		on_trampolines lean lean
		;;
	esac
}

# The floor: empty programs on the functions the default tier hooks once
# the first call is over (the wide net where the kernel has it, else the
# last tier), by the same kind of hook. What a call or the pipe loop costs
# then is the kernel's hook alone, which no program of ours can go below.
# Inside a graph every call's return is hooked; outside one no return is;
# __rcu_read_lock/unlock's entries only, by kprobe.multi, once the net is
# closed.
d=
for t in $tiers; do
	d=$t
done
last=$d
lazy='^__rcu_read_(un)?lock$'
case " $tiers " in *" wide "*) d=wide ;; esac
# Only for the kprobe.session tiers, whose hooks ldlink -m session makes alike.
case $d in wide* | ksession) ;; *) d= ;; esac
if [ -n "$d" ] && [ -s $d.hooked ]; then
	progress "floor: empty kprobe.session programs on the $(wc -l <$d.hooked) functions $d hooks"
	res "floor funcs $(wc -l <$d.hooked)"
	res "floor tier $d"
	grep -E "$lazy" $d.hooked >floor.lazy
	grep -vE "$lazy" $d.hooked >floor.names
	wait_released
	# "ldlink ... --" over the lazy ones, if any, around each run.
	lz=
	[ -s floor.lazy ] && lz="ldlink -m multi-entry -o floor.ldl floor.lazy --"
	$lz ldlink -m session -o floor.ldl floor.names -- bwl -o floor.call openmiss "$NCALL"
	res "floor call $(ns_of floor.call)"
	res "floor call_cpu $(cpu_of floor.call)"
	wait_released
	$lz ldlink -m session-entry -o floor.ldl floor.names -- sh -c \
		"bwl -o floor.pipe pipe $NPIPE && bwl -o floor.other openmiss $NCALL"
	res "floor pipe_after $(ns_of floor.pipe)"
	res "floor other_cpu $(cpu_of floor.other)"
	tramp_floors
elif [ "$last" = fentry ] && [ -s fentry.hooked ] && [ -n "${TIERS_FLOORS:-}" ]; then
	# The last tier is on trampolines already (6.1): the trampoline floors
	# on its functions are its own hooks' floor.
	res "tramp tier fentry"
	grep -vE "$lazy" fentry.hooked >floor.names
	tramp_floors
fi
progress "done"
