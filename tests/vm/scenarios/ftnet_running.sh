#!/bin/sh
# The ftrace net without a command (--wide=ftrace: the default's choice
# where the kernel has no kprobe.session links for the wide net, 6.1;
# asked for on the others): function_graph records the first traced
# call of -p's process (failed opens, -G do_sys_openat2) and of the
# machine (reads, -G vfs_read); it stops once that call is over, bpfgraph
# makes its hooks (the calls begun meanwhile are not traced, which it
# says), and its programs take over. --callee-depth=1 and -O
# nofuncgraph-irqs: fewer functions to hook (each about 0.35 s on 6.1
# under emulation, and as long to release); an interrupt in the first
# call drew in over a hundred more (6.1, host clock: 216 and 219 functions
# attached, 417 s; without the interrupts 103 and 48, 149 s). The
# interrupts' part of the net is the fidelity suite's (a command's first
# call, 6.1's default).
#   NAME.txt      bpfgraph's text (funcgraph-abstime, funcgraph-proc)
#   NAME.err      its stderr (-v), NAME.rc
#   NAME.tracefs  tracefs's top instance after it, NAME.before before it
# bench-timeout: 900
set -u
. /bench/lib/guest.sh

tracefs() { # FILE: the settings the ftrace net changes and puts back
	for f in current_tracer set_ftrace_pid set_ftrace_notrace_pid set_graph_function \
		set_graph_notrace tracing_on options/function-fork options/overwrite; do
		printf '%s: %s\n' "$f" "$(head -n 1 /sys/kernel/tracing/$f 2>&1)"
	done >"$1"
}

# NAME BPFGRAPH-ARGS...: until 10 s after bpfgraph's hooks took over (its
# line on the calls not traced meanwhile), at most 600 s, then SIGINT.
run() {
	name=$1
	shift
	tracefs $name.before
	bpfgraph -v --wide=ftrace -O nofuncgraph-irqs -O funcgraph-abstime -O funcgraph-proc "$@" -o $name.txt 2>$name.err &
	bp=$!
	i=0
	while ! grep -q 'calls begun from' $name.err && [ $i -lt 600 ] && kill -0 $bp 2>/dev/null; do
		sleep 1
		i=$((i + 1))
	done
	sleep 10
	kill -INT $bp
	wait $bp
	echo $? >$name.rc
	tracefs $name.tracefs
	wait_released
}

# One process opening a missing file three times every 0.2 s, for 20 minutes.
args=
i=0
while [ $i -lt 6000 ]; do
	args="$args openmiss 3 sleep 200"
	i=$((i + 1))
done
# shellcheck disable=SC2086 # $args is many words
wl $args >/dev/null &
lp=$!
usleep 200000
progress "pid: bpfgraph -p over failed opens, -G do_sys_openat2"
run pid --callee-depth=1 -G do_sys_openat2 -p $lp
kill $lp
wait $lp

(while :; do
	wl read 3 >/dev/null
	usleep 200000
done) &
lo=$!
progress "sys: bpfgraph system-wide over reads, -G vfs_read"
run sys --callee-depth=1 -G vfs_read
kill $lo
