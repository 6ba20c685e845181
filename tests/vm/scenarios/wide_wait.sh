#!/bin/sh
# --wide-wait: without a command, the wide net (every traceable function
# hooked, every task slowed) waits at most that long for a first traced
# call to begin, then closes as after one, and the plan's hooks trace
# the calls that come later. -p on a process that opens missing files
# only once told (SIGUSR1), after bpfgraph said it closed the net
# (--wide-wait=2). On a kernel without kprobe.session links (6.1) the
# net is function_graph's and the bound does not apply: the check says so.
#   bound.out/.err/.rc   bpfgraph -v --wide=session --wide-wait=2 -p P
#   waited               seconds from bpfgraph's "tracing" line to its
#                        notice, or "none"
# bench-timeout: 300
set -u
. /bench/lib/guest.sh

/bin/wl pause 1 openmiss 3 sleep 600000 &
p=$!
progress "bpfgraph -v --wide=session --wide-wait=2 --callee-depth=1 -G do_sys_openat2 -p $p"
bpfgraph -v --wide=session --wide-wait=2 --callee-depth=1 -G do_sys_openat2 -p $p \
	>bound.out 2>bound.err &
b=$!
waited=none
if wait_for '^bpfgraph: tracing' bound.err 240; then
	s=$(up)
	if wait_for 'no traced call began' bound.err 60; then
		waited=$(since "$s")
	fi
fi
echo "$waited" >waited
# The opens now: after the notice, or at once where there was none.
kill -USR1 $p
i=0
while [ "$(grep -c 'do_sys_openat2 = -2' bound.out 2>/dev/null)" -lt 3 ] && [ $i -lt 600 ]; do
	usleep 100000
	i=$((i + 1))
done
kill -INT $b
wait $b
echo $? >bound.rc
kill $p 2>/dev/null
wait $p 2>/dev/null
wait_released
exit 0
