#!/bin/sh
# bpfgraph on do_sys_openat2 for three failed opens, and the kernel's own
# function_graph on the same workload in the same boot, for comparison.
# bench-timeout: 450
set -u
. /bench/lib/guest.sh
# Two levels of callees, no net, no discovery: the text, its header and
# its nesting are what this case compares, on the host's clock; the whole
# graph, the first call's net and what discovery adds are the fidelity
# suite's (openat there, on the instruction clock). On 6.1 the default
# took six minutes of CI's hour here: function_graph recording the first
# call, then hundreds of trampolines linked and released one by one.
progress "bpfgraph --callee-depth=2 --wide=off --no-discovery -G do_sys_openat2 -- wl openmiss 3"
bpfgraph -v --callee-depth=2 --wide=off --no-discovery -G do_sys_openat2 -- /bin/wl openmiss 3 >trace.txt 2>stderr.txt
echo $? >rc
progress "oracle"
oracle_capture -o oracle.txt do_sys_openat2 -- wl --stop openmiss 3
# The tracer lifts its fd limit for its links; COMMAND keeps the one the
# tracer was started with.
progress "fd limit of the command"
sh -c 'ulimit -n; ulimit -Hn' >ulimit.expected
bpfgraph --no-discovery --wide=off -o /dev/null -G __do_sys_getpid -- /bin/sh -c 'ulimit -n; ulimit -Hn' \
	>ulimit.txt 2>ulimit.err
