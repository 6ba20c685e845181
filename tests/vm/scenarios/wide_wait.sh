#!/bin/sh
# --wide-wait: without a command, the net (the wide net: every traceable
# function hooked; or function_graph on every function: either slows
# every task) waits at most that long for a first traced call to begin,
# then closes as after one, and the plan's hooks trace the calls that
# come later. -p on a process that opens missing files only once told
# (SIGUSR1), after bpfgraph said it closed the net (--wide-wait=2); once
# with each net (--wide=session: the wide net where the kernel has
# kprobe.session links, no net where not, as on 6.1; --wide=ftrace).
# Where the plan is hooked after function_graph's net (calls begun
# meanwhile not traced), the opens come once it is.
#   NET.out/.err/.rc   bpfgraph -v --wide=W --wide-wait=2 -p P
#                      (NET: bound for session, ftbound for ftrace)
#   NET.waited         seconds from bpfgraph's "tracing" line to its
#                      notice, or "none"
# bench-timeout: 420
set -u
. /bench/lib/guest.sh

bound_run() { # NAME WIDE
	/bin/wl pause 1 openmiss 3 sleep 600000 &
	p=$!
	progress "bpfgraph -v --wide=$2 --wide-wait=2 --callee-depth=1 -G do_sys_openat2 -p $p"
	bpfgraph -v --wide="$2" --wide-wait=2 --callee-depth=1 -G do_sys_openat2 -p $p \
		>"$1.out" 2>"$1.err" &
	b=$!
	waited=none
	if wait_for '^bpfgraph: tracing' "$1.err" 240; then
		s=$(up)
		if wait_for 'no traced call began' "$1.err" 90; then
			waited=$(since "$s")
			# function_graph's net: the calls begun while the plan is
			# hooked are not traced (said); the opens after that.
			if grep -q "function_graph's first" "$1.err"; then
				wait_for '^bpfgraph: the plan is hooked' "$1.err" 240
			fi
		fi
	fi
	echo "$waited" >"$1.waited"
	# The opens now: after the notice, or at once where there was none.
	kill -USR1 $p
	i=0
	while [ "$(grep -c 'do_sys_openat2 = -2' "$1.out" 2>/dev/null)" -lt 3 ] && [ $i -lt 600 ]; do
		usleep 100000
		i=$((i + 1))
	done
	kill -INT $b
	wait $b
	echo $? >"$1.rc"
	kill $p 2>/dev/null
	wait $p 2>/dev/null
	wait_released
}

bound_run bound session
bound_run ftbound ftrace
exit 0
