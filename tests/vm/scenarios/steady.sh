#!/bin/sh
# Tracing without a COMMAND under a steady load: a process reads a file
# in a loop (wl readloop, counting its calls) while bpfgraph traces
# -G vfs_read for 12 s, by -p and system-wide. Two marks from the process
# (SIGUSR1: calls so far and CLOCK_MONOTONIC, the clock of bpfgraph's
# timestamps), 3 s and 6 s after bpfgraph is ready, give the calls it made
# in that window; the check counts the traced ones that began in it. The
# 6 s to spare keep the window inside the trace on a slow guest (a busy
# host's "sleep 3" took 5.7 s there).
#   NAME.marks  the process's "mark CALLS NS" lines and "total CALLS"
#   NAME.txt    bpfgraph's text (funcgraph-abstime, funcgraph-proc)
#   NAME.err    its stderr (-v), NAME.rc, NAME.pid (the process)
#   NAME.opt    debug.kprobes-optimization before bpfgraph and after its
#               hooks were released (bpfgraph holds it at 0 for a while)
#   NAME.aff    the lines of available_filter_functions_addrs (6.5+)
# bench-timeout: 600
set -u
. /bench/lib/guest.sh

steady() { # NAME [-p]
	name=$1
	wl readloop 0 >$name.marks &
	lp=$!
	echo $lp >$name.pid
	usleep 200000
	if [ "${2:-}" = -p ]; then sel="-p $lp"; else sel=; fi
	opt=/proc/sys/debug/kprobes-optimization
	cat $opt >$name.opt 2>/dev/null || echo none >$name.opt
	# The kernel's count of what ftrace can hook, against the records
	# bpfgraph read from kernel memory for the wide net (-v).
	wc -l </sys/kernel/tracing/available_filter_functions_addrs >$name.aff 2>/dev/null ||
		rm -f $name.aff
	progress "$name: bpfgraph -G vfs_read $sel -d 12 over a pread loop"
	# shellcheck disable=SC2086 # $sel is two words or none
	bpfgraph -v -G vfs_read $sel -d 12 -O funcgraph-abstime -O funcgraph-proc \
		-o $name.txt 2>$name.err &
	bp=$!
	i=0
	while ! grep -q '^bpfgraph: ready after' $name.err && [ $i -lt 1200 ] &&
		kill -0 $bp 2>/dev/null; do
		usleep 50000
		i=$((i + 1))
	done
	sleep 3
	kill -USR1 $lp
	sleep 3
	kill -USR1 $lp
	wait $bp
	echo $? >$name.rc
	kill -TERM $lp
	wait $lp
	wait_released
	cat $opt >>$name.opt 2>/dev/null || echo none >>$name.opt
}

steady pid -p
steady sys
