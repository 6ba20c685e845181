#!/bin/sh
# bpfgraph on do_sys_openat2 for three failed opens, and the kernel's own
# function_graph on the same workload in the same boot, for comparison.
# bench-timeout: 450
set -u
. /bench/lib/guest.sh
progress "bpfgraph -G do_sys_openat2 -- wl openmiss 3"
# -v: says whether the ftrace net recorded the first call (the check expects
# no return value there then).
bpfgraph -v -G do_sys_openat2 -- /bin/wl openmiss 3 >trace.txt 2>stderr.txt
echo $? >rc
progress "oracle"
oracle_capture -o oracle.txt do_sys_openat2 -- wl --stop openmiss 3
# The tracer lifts its fd limit for its links; COMMAND keeps the one the
# tracer was started with.
progress "fd limit of the command"
sh -c 'ulimit -n; ulimit -Hn' >ulimit.expected
bpfgraph --no-discovery -o /dev/null -G __do_sys_getpid -- /bin/sh -c 'ulimit -n; ulimit -Hn' \
	>ulimit.txt 2>ulimit.err
